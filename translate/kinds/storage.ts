/**
 * Storage references. PersistentVolumes and StorageClasses are cluster-scoped tenant objects
 * (prefixed names), so every reference to them is prefixed: PV `claimRef` points into a tenant
 * namespace, PVC `volumeName` to a PV, `storageClassName` (and its legacy annotation, still
 * honoured by the volume controller) to a StorageClass; CSI secret references name a namespace.
 */
import { objectReference } from './object-reference.js';
import { all, at, optional, prefixed, requiredStringAt, stringAt } from './transform.js';

const storageClassName = stringAt('storageClassName', prefixed);
const storageClassAnnotation = at(['metadata', 'annotations'], stringAt('volume.beta.kubernetes.io/storage-class', prefixed));
const secretReference = requiredStringAt('namespace', prefixed);
const CSI_SECRET_REFERENCES = ['controllerPublishSecretRef', 'nodeStageSecretRef', 'nodePublishSecretRef', 'controllerExpandSecretRef', 'nodeExpandSecretRef'];

/** A PersistentVolumeClaimSpec, also found in StatefulSet claim templates and ephemeral volumes. */
export const persistentVolumeClaimSpec = all(stringAt('volumeName', prefixed), storageClassName);

export const persistentVolumeClaimConvertor = all(storageClassAnnotation, at(['spec'], persistentVolumeClaimSpec));

export const persistentVolumeConvertor = all(
  storageClassAnnotation,
  at(['spec'], all(optional('claimRef', objectReference('PersistentVolumeClaim')), storageClassName, at(['csi'], all(...CSI_SECRET_REFERENCES.map((key) => optional(key, secretReference)))))),
);
