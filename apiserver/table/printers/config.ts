/** Configuration data: configmaps (NAME DATA AGE) and secrets (NAME TYPE DATA AGE). */
import { ageColumn, column, nameColumn } from './columns.js';
import type { Printer } from './printer.js';
import { age } from './timestamps.js';

const keyCount = (map: unknown): number => Object.keys(map ?? {}).length;

export const configMapPrinter: Printer = {
  columns: [nameColumn, column('Data', 'string'), ageColumn],
  cells: (cm, now) => [cm.metadata?.name ?? '', keyCount(cm.data) + keyCount(cm.binaryData), age(cm, now)],
};

export const secretPrinter: Printer = {
  columns: [nameColumn, column('Type', 'string'), column('Data', 'string'), ageColumn],
  // The API defaults a secret's type to Opaque.
  cells: (secret, now) => [
    secret.metadata?.name ?? '',
    secret.type ?? 'Opaque',
    keyCount(secret.data),
    age(secret, now),
  ],
};
