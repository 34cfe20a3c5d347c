/** Service accounts: NAME SECRETS AGE. */
import { ageColumn, column, nameColumn } from './columns.js';
import type { Printer } from './printer.js';
import { age } from './timestamps.js';

export const serviceAccountPrinter: Printer = {
  columns: [nameColumn, column('Secrets', 'string'), ageColumn],
  cells: (sa, now) => [sa.metadata?.name ?? '', (sa.secrets ?? []).length, age(sa, now)],
};
