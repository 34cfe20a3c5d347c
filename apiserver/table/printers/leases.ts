/** Leases: NAME HOLDER AGE. */
import { ageColumn, column, nameColumn } from './columns.js';
import type { Printer } from './printer.js';
import { age } from './timestamps.js';

export const leasePrinter: Printer = {
  columns: [nameColumn, column('Holder', 'string'), ageColumn],
  cells: (lease, now) => [lease.metadata?.name ?? '', lease.spec?.holderIdentity ?? '', age(lease, now)],
};
