/** Persistent volumes and the claims bound to them. */
import { ageColumn, column, nameColumn, wideColumn } from './columns.js';
import type { Printer } from './printer.js';
import { age } from './timestamps.js';

/** The legacy annotation wins over `spec.storageClassName`. */
const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

const ACCESS_MODE_ABBREVIATIONS: [mode: string, abbreviation: string][] = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

/** `RWO,ROX,RWX,RWOP`, in that order whatever the order of the list. */
function accessModes(modes: string[] | undefined): string {
  const present = new Set(modes ?? []);
  return ACCESS_MODE_ABBREVIATIONS.filter(([mode]) => present.has(mode))
    .map(([, abbreviation]) => abbreviation)
    .join(',');
}

function storageClass(object: any): string {
  const annotations = object.metadata?.annotations ?? {};
  if (BETA_STORAGE_CLASS_ANNOTATION in annotations) return annotations[BETA_STORAGE_CLASS_ANNOTATION];
  return object.spec?.storageClassName ?? '';
}

/** `Terminating` once deleted, else the phase, which the API defaults to Pending. */
const phase = (object: any): string =>
  object.metadata?.deletionTimestamp ? 'Terminating' : (object.status?.phase ?? 'Pending');

/** The API defaults `volumeMode` to Filesystem. */
const volumeMode = (object: any): string => object.spec?.volumeMode ?? 'Filesystem';

const volumeAttributesClass = (object: any): string => object.spec?.volumeAttributesClassName ?? '<unset>';

/** NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE, wide VOLUMEMODE. */
export const persistentVolumePrinter: Printer = {
  columns: [
    nameColumn,
    column('Capacity', 'string'),
    column('Access Modes', 'string'),
    column('Reclaim Policy', 'string'),
    column('Status', 'string'),
    column('Claim', 'string'),
    column('StorageClass', 'string', 'StorageClass of the pv'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    column('Reason', 'string'),
    ageColumn,
    wideColumn('VolumeMode', 'string'),
  ],
  cells(pv, now) {
    const spec = pv.spec ?? {};
    const claim = spec.claimRef ? `${spec.claimRef.namespace ?? ''}/${spec.claimRef.name ?? ''}` : '';
    return [
      pv.metadata?.name ?? '',
      spec.capacity?.storage ?? '0',
      accessModes(spec.accessModes),
      // The API defaults the reclaim policy of a volume to Retain.
      spec.persistentVolumeReclaimPolicy ?? 'Retain',
      phase(pv),
      claim,
      storageClass(pv),
      volumeAttributesClass(pv),
      pv.status?.reason ?? '',
      age(pv, now),
      volumeMode(pv),
    ];
  },
};

/** NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE, wide VOLUMEMODE. */
export const persistentVolumeClaimPrinter: Printer = {
  columns: [
    nameColumn,
    column('Status', 'string'),
    column('Volume', 'string'),
    column('Capacity', 'string'),
    column('Access Modes', 'string'),
    column('StorageClass', 'string', 'StorageClass of the pvc'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    ageColumn,
    wideColumn('VolumeMode', 'string'),
  ],
  cells(pvc, now) {
    const volumeName: string = pvc.spec?.volumeName ?? '';
    // Capacity and access modes are those of the bound volume, so they stay empty until binding.
    const bound = volumeName !== '';
    return [
      pvc.metadata?.name ?? '',
      phase(pvc),
      volumeName,
      bound ? (pvc.status?.capacity?.storage ?? '0') : '',
      bound ? accessModes(pvc.status?.accessModes) : '',
      storageClass(pvc),
      volumeAttributesClass(pvc),
      age(pvc, now),
      volumeMode(pvc),
    ];
  },
};
