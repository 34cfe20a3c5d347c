/** Namespaces: NAME STATUS AGE. */
import { ageColumn, column, nameColumn } from './columns.js';
import type { Printer } from './printer.js';
import { age } from './timestamps.js';

export const namespacePrinter: Printer = {
  columns: [nameColumn, column('Status', 'string', 'The status of the namespace'), ageColumn],
  // kube-apiserver sets the phase to Active on create, so a namespace without one is Active.
  cells: (ns, now) => [ns.metadata?.name ?? '', ns.status?.phase ?? 'Active', age(ns, now)],
};
