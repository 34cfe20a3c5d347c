/** Storage classes: NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE. */
import { ageColumn, column, nameColumn } from './columns.js';
import type { Printer } from './printer.js';
import { age } from './timestamps.js';

const DEFAULT_CLASS_ANNOTATIONS = [
  'storageclass.kubernetes.io/is-default-class',
  'storageclass.beta.kubernetes.io/is-default-class',
];

export const storageClassPrinter: Printer = {
  columns: [
    nameColumn,
    column('Provisioner', 'string'),
    column('ReclaimPolicy', 'string'),
    column('VolumeBindingMode', 'string'),
    column('AllowVolumeExpansion', 'string'),
    ageColumn,
  ],
  cells(sc, now) {
    const annotations = sc.metadata?.annotations ?? {};
    const isDefault = DEFAULT_CLASS_ANNOTATIONS.some((key) => annotations[key] === 'true');
    return [
      `${sc.metadata?.name ?? ''}${isDefault ? ' (default)' : ''}`,
      sc.provisioner ?? '',
      sc.reclaimPolicy ?? 'Delete',
      sc.volumeBindingMode ?? 'Immediate',
      sc.allowVolumeExpansion ?? false,
      age(sc, now),
    ];
  },
};
