/**
 * Storage references. PersistentVolumes and StorageClasses are cluster-scoped tenant objects
 * (prefixed names), so every reference to them is prefixed: PV `claimRef` points into a tenant
 * namespace, PVC `volumeName` to a PV, `storageClassName` (and its legacy annotation, still
 * honoured by the volume controller) to a StorageClass; a PVC's data source names an object of
 * the tenant's (a namespace, or a cluster-scoped name, by its kind); the secrets a volume plugin
 * or a provisioner reads (PV secret references, StorageClass `*-secret-namespace` parameters)
 * name a namespace.
 */
import { isObject } from '../../apiserver/json.js';
import { TranslationError } from '../context.js';
import { EACH, owned, ruled, type Invariant } from './invariants.js';
import { objectReference } from './object-reference.js';
import {
  all,
  at,
  optional,
  prefixed,
  requiredStringAt,
  stringAt,
  type StringRule,
  type Convertor,
} from './convertor.js';
import { typedReference } from './typed-reference.js';

const STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';
const storageClassName = stringAt('storageClassName', prefixed);
const storageClassAnnotation = at(['metadata', 'annotations'], stringAt(STORAGE_CLASS_ANNOTATION, prefixed));
const secretReference = requiredStringAt('namespace', prefixed);
const CSI_SECRET_REFERENCES = [
  'controllerPublishSecretRef',
  'nodeStageSecretRef',
  'nodePublishSecretRef',
  'controllerExpandSecretRef',
  'nodeExpandSecretRef',
];
/** In-tree volume sources whose `secretRef` is a SecretReference (name and namespace); storageos's is an ObjectReference, converted alike. */
const PLUGIN_SECRET_REFERENCES = ['rbd', 'iscsi', 'cinder', 'cephfs', 'flexVolume', 'scaleIO', 'storageos'];

/** A PersistentVolumeClaimSpec, also found in StatefulSet claim templates and ephemeral volumes. */
export const persistentVolumeClaimSpec = all(
  stringAt('volumeName', prefixed),
  storageClassName,
  optional('dataSource', typedReference),
  optional('dataSourceRef', typedReference),
);

export const persistentVolumeClaimConvertor = all(storageClassAnnotation, at(['spec'], persistentVolumeClaimSpec));

const volumeSecrets = all(
  at(['csi'], all(...CSI_SECRET_REFERENCES.map((key) => optional(key, secretReference)))),
  ...PLUGIN_SECRET_REFERENCES.map((plugin) => at([plugin], optional('secretRef', secretReference))),
  at(['azureFile'], stringAt('secretNamespace', prefixed)),
);

export const persistentVolumeConvertor = all(
  storageClassAnnotation,
  at(['spec'], all(optional('claimRef', objectReference('PersistentVolumeClaim')), storageClassName, volumeSecrets)),
);

/**
 * StorageClass parameters that name the namespace of a secret the provisioner reads
 * (`csi.storage.k8s.io/provisioner-secret-namespace`, in-tree `secretNamespace`,
 * `adminSecretNamespace`, …). The CSI template `${pvc.namespace}` is the claim's own namespace,
 * already the tenant's, and stays; any other template could name anyone's, so it is refused.
 */
export const SECRET_NAMESPACE_PARAMETER = /secret-?namespace$/i;
const PVC_NAMESPACE_TEMPLATE = '${pvc.namespace}';

const secretNamespaceParameter: StringRule = {
  up: (ctx, value) => {
    if (value === PVC_NAMESPACE_TEMPLATE) return value;
    if (value.includes('${'))
      throw new TranslationError(
        403,
        'Forbidden',
        `StorageClass parameters naming a secret namespace may only use the template ${PVC_NAMESPACE_TEMPLATE}`,
      );
    return prefixed.up(ctx, value);
  },
  down: (ctx, value) => (value === PVC_NAMESPACE_TEMPLATE ? value : prefixed.down(ctx, value)),
};

const secretNamespaceParameters: Convertor = {
  up: (ctx, parameters) => {
    for (const key of Object.keys(parameters))
      if (SECRET_NAMESPACE_PARAMETER.test(key)) stringAt(key, secretNamespaceParameter).up(ctx, parameters);
  },
  down: (ctx, parameters) => {
    for (const key of Object.keys(parameters))
      if (SECRET_NAMESPACE_PARAMETER.test(key)) stringAt(key, secretNamespaceParameter).down(ctx, parameters);
    return true;
  },
};

export const storageClassConvertor = optional('parameters', secretNamespaceParameters);

// Isolation invariants (kinds/invariants.ts): the same fields, as stored upstream.

const TENANT_NAMESPACE = "must name one of the tenant's namespaces";
const TENANT_NAME = "must name one of the tenant's objects (its name carries the tenant prefix)";

const claimSpecInvariants = (path: readonly string[]): Invariant[] => [
  ruled([...path, 'volumeName'], prefixed, TENANT_NAME),
  ruled([...path, 'storageClassName'], prefixed, TENANT_NAME),
  owned([...path, 'dataSource'], typedReference, TENANT_NAME),
  owned([...path, 'dataSourceRef'], typedReference, TENANT_NAME),
];

/** The claim template of an ephemeral volume, in a pod spec at `podSpec`. */
export const ephemeralVolumeInvariants = (podSpec: readonly string[]): Invariant[] =>
  claimSpecInvariants([...podSpec, 'volumes', EACH, 'ephemeral', 'volumeClaimTemplate', 'spec']);

export const persistentVolumeClaimSpecInvariants = claimSpecInvariants;

const storageClassAnnotationInvariant = ruled(
  ['metadata', 'annotations', STORAGE_CLASS_ANNOTATION],
  prefixed,
  TENANT_NAME,
);

export const persistentVolumeClaimInvariants: readonly Invariant[] = [
  storageClassAnnotationInvariant,
  ...claimSpecInvariants(['spec']),
];

export const persistentVolumeInvariants: readonly Invariant[] = [
  storageClassAnnotationInvariant,
  owned(['spec', 'claimRef'], objectReference('PersistentVolumeClaim'), TENANT_NAMESPACE),
  ruled(['spec', 'storageClassName'], prefixed, TENANT_NAME),
  ...CSI_SECRET_REFERENCES.map((key) => ruled(['spec', 'csi', key, 'namespace'], prefixed, TENANT_NAMESPACE)),
  ...PLUGIN_SECRET_REFERENCES.map((plugin) =>
    ruled(['spec', plugin, 'secretRef', 'namespace'], prefixed, TENANT_NAMESPACE),
  ),
  ruled(['spec', 'azureFile', 'secretNamespace'], prefixed, TENANT_NAMESPACE),
];

export const storageClassInvariants: readonly Invariant[] = [
  {
    path: ['parameters'],
    must: `name one of the tenant's namespaces (or ${PVC_NAMESPACE_TEMPLATE}) in every *-secret-namespace parameter`,
    holds: (ctx, parameters) =>
      !isObject(parameters) ||
      Object.entries(parameters).every(
        ([key, value]) =>
          !SECRET_NAMESPACE_PARAMETER.test(key) ||
          typeof value !== 'string' ||
          secretNamespaceParameter.down(ctx, value) !== null,
      ),
  },
];
