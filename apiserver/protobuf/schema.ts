/**
 * The protobuf messages of Kubernetes that Paddock reads: the one place their field numbers are
 * written. Field numbers and types come from the published generated.proto files of k8s.io/api,
 * k8s.io/apimachinery and k8s.io/apiextensions-apiserver; names are the JSON names.
 *
 * Two readers use them. The decoder (decode.ts) reads the kinds kubectl sends as protobuf (its
 * `create` generators, `create token` and the `auth` reviews, TOP_LEVEL_MESSAGES): every message
 * it reaches lists all the fields a client can meaningfully send, and it skips any other field,
 * as protobuf readers do. The gateway's translation (translate/protobuf-fields.ts) reads, in any
 * kind it translates, the fields its rules touch: the messages only it reaches list just those.
 */

export type ScalarType = 'string' | 'bytes' | 'int32' | 'int64' | 'bool';

export interface FieldSpec {
  /** The JSON name. */
  name: string;
  /** A scalar type or the full name of a message in MESSAGES. For a map, the type of its values. */
  type: string;
  repeated?: true;
  /** A map field: the wire carries entries {key = 1, value = 2}; `type` is the value's type. */
  map?: { key: ScalarType };
  /**
   * Go's JSON keeps this field when it is zero: it is a pointer (on the wire only when set) or has
   * no `omitempty`. Other fields are dropped when zero or empty.
   */
  emitZero?: true;
  /** An embedded Go struct (`json:",inline"`): its fields appear directly in the parent object. */
  inline?: true;
  /**
   * Written by the server (`status`, which kubectl fills with zero values, and
   * `metadata.managedFields`): the decoder skips it, so a client's copy never reaches the stored
   * object; translation still rewrites it.
   */
  serverOwned?: true;
}

export type MessageSpec = Readonly<Record<number, FieldSpec>>;

/** The proto packages of the messages: a message's full name is its package's prefix and its name. */
export const PACKAGES = {
  meta: 'k8s.io.apimachinery.pkg.apis.meta.v1.',
  runtime: 'k8s.io.apimachinery.pkg.runtime.',
  core: 'k8s.io.api.core.v1.',
  apps: 'k8s.io.api.apps.v1.',
  batch: 'k8s.io.api.batch.v1.',
  rbac: 'k8s.io.api.rbac.v1.',
  scheduling: 'k8s.io.api.scheduling.v1.',
  policy: 'k8s.io.api.policy.v1.',
  networking: 'k8s.io.api.networking.v1.',
  authorization: 'k8s.io.api.authorization.v1.',
  authentication: 'k8s.io.api.authentication.v1.',
  discovery: 'k8s.io.api.discovery.v1.',
  events: 'k8s.io.api.events.v1.',
  storage: 'k8s.io.api.storage.v1.',
  admissionregistration: 'k8s.io.api.admissionregistration.v1.',
  apiextensions: 'k8s.io.apiextensions-apiserver.pkg.apis.apiextensions.v1.',
} as const;

const {
  meta: META,
  runtime: RUNTIME,
  core: CORE,
  apps: APPS,
  batch: BATCH,
  rbac: RBAC,
  scheduling: SCHEDULING,
  policy: POLICY,
  networking: NETWORKING,
  authorization: AUTHORIZATION,
  authentication: AUTHENTICATION,
  discovery: DISCOVERY,
  events: EVENTS,
  storage: STORAGE,
  admissionregistration: ADMISSION,
  apiextensions: APIEXTENSIONS,
} = PACKAGES;
const QUANTITY = 'k8s.io.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString';

/** Every Kubernetes protobuf body starts with these four bytes, then a runtime.Unknown (ENVELOPE). */
export const MAGIC = Buffer.from('k8s\0', 'latin1');
/** runtime.Unknown: the object's typeMeta, its encoded bytes (`raw`) and their encoding. */
export const ENVELOPE = `${RUNTIME}Unknown`;
/** runtime.TypeMeta inside the envelope (not meta/v1 TypeMeta, which numbers the two the other way round). */
export const ENVELOPE_TYPE_META = `${RUNTIME}TypeMeta`;

/** Metadata is field 1 of every top-level kind. */
export const METADATA_FIELD = 1;

const metadata: FieldSpec = { name: 'metadata', type: `${META}ObjectMeta` };

/** Well-known messages whose JSON form is not an object; the decoder converts them. */
export const WELL_KNOWN = {
  time: `${META}Time`,
  quantity: QUANTITY,
  intOrString: INT_OR_STRING,
  extraValue: `${AUTHORIZATION}ExtraValue`,
} as const;

export const MESSAGES: Readonly<Record<string, MessageSpec>> = {
  // k8s.io/apimachinery
  [`${META}ObjectMeta`]: {
    1: { name: 'name', type: 'string' },
    2: { name: 'generateName', type: 'string' },
    3: { name: 'namespace', type: 'string' },
    4: { name: 'selfLink', type: 'string' },
    5: { name: 'uid', type: 'string' },
    6: { name: 'resourceVersion', type: 'string' },
    7: { name: 'generation', type: 'int64' },
    8: { name: 'creationTimestamp', type: `${META}Time` },
    9: { name: 'deletionTimestamp', type: `${META}Time`, emitZero: true },
    10: { name: 'deletionGracePeriodSeconds', type: 'int64', emitZero: true },
    11: { name: 'labels', type: 'string', map: { key: 'string' } },
    12: { name: 'annotations', type: 'string', map: { key: 'string' } },
    13: { name: 'ownerReferences', type: `${META}OwnerReference`, repeated: true },
    14: { name: 'finalizers', type: 'string', repeated: true },
    17: { name: 'managedFields', type: `${META}ManagedFieldsEntry`, repeated: true, serverOwned: true },
  },
  [`${META}ManagedFieldsEntry`]: {
    3: { name: 'apiVersion', type: 'string' },
  },
  [`${META}OwnerReference`]: {
    5: { name: 'apiVersion', type: 'string', emitZero: true },
    1: { name: 'kind', type: 'string', emitZero: true },
    3: { name: 'name', type: 'string', emitZero: true },
    4: { name: 'uid', type: 'string', emitZero: true },
    6: { name: 'controller', type: 'bool', emitZero: true },
    7: { name: 'blockOwnerDeletion', type: 'bool', emitZero: true },
  },
  [`${META}LabelSelector`]: {
    1: { name: 'matchLabels', type: 'string', map: { key: 'string' } },
    2: { name: 'matchExpressions', type: `${META}LabelSelectorRequirement`, repeated: true },
  },
  [`${META}LabelSelectorRequirement`]: {
    1: { name: 'key', type: 'string', emitZero: true },
    2: { name: 'operator', type: 'string', emitZero: true },
    3: { name: 'values', type: 'string', repeated: true },
  },
  [`${META}Time`]: {
    1: { name: 'seconds', type: 'int64' },
    2: { name: 'nanos', type: 'int32' },
  },
  [QUANTITY]: {
    1: { name: 'string', type: 'string' },
  },
  [ENVELOPE]: {
    1: { name: 'typeMeta', type: ENVELOPE_TYPE_META },
    2: { name: 'raw', type: 'bytes' },
    3: { name: 'contentEncoding', type: 'string' },
    4: { name: 'contentType', type: 'string' },
  },
  [ENVELOPE_TYPE_META]: {
    1: { name: 'apiVersion', type: 'string' },
    2: { name: 'kind', type: 'string' },
  },
  [INT_OR_STRING]: {
    1: { name: 'type', type: 'int64' },
    2: { name: 'intVal', type: 'int32' },
    3: { name: 'strVal', type: 'string' },
  },

  // core/v1: the kinds
  [`${CORE}Namespace`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${CORE}NamespaceSpec` },
  },
  [`${CORE}NamespaceSpec`]: {
    1: { name: 'finalizers', type: 'string', repeated: true },
  },
  [`${CORE}ConfigMap`]: {
    [METADATA_FIELD]: metadata,
    4: { name: 'immutable', type: 'bool', emitZero: true },
    2: { name: 'data', type: 'string', map: { key: 'string' } },
    3: { name: 'binaryData', type: 'bytes', map: { key: 'string' } },
  },
  [`${CORE}Secret`]: {
    [METADATA_FIELD]: metadata,
    5: { name: 'immutable', type: 'bool', emitZero: true },
    2: { name: 'data', type: 'bytes', map: { key: 'string' } },
    4: { name: 'stringData', type: 'string', map: { key: 'string' } },
    3: { name: 'type', type: 'string' },
  },
  [`${CORE}ServiceAccount`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'secrets', type: `${CORE}ObjectReference`, repeated: true },
    3: { name: 'imagePullSecrets', type: `${CORE}LocalObjectReference`, repeated: true },
    4: { name: 'automountServiceAccountToken', type: 'bool', emitZero: true },
  },
  [`${CORE}Service`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${CORE}ServiceSpec` },
  },
  [`${CORE}ResourceQuota`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${CORE}ResourceQuotaSpec` },
  },

  // core/v1: references
  [`${CORE}ObjectReference`]: {
    1: { name: 'kind', type: 'string' },
    2: { name: 'namespace', type: 'string' },
    3: { name: 'name', type: 'string' },
    4: { name: 'uid', type: 'string' },
    5: { name: 'apiVersion', type: 'string' },
    6: { name: 'resourceVersion', type: 'string' },
    7: { name: 'fieldPath', type: 'string' },
  },
  [`${CORE}LocalObjectReference`]: {
    1: { name: 'name', type: 'string' },
  },
  [`${CORE}TypedLocalObjectReference`]: {
    1: { name: 'apiGroup', type: 'string', emitZero: true },
    2: { name: 'kind', type: 'string', emitZero: true },
    3: { name: 'name', type: 'string', emitZero: true },
  },

  // core/v1: services and quotas
  [`${CORE}ServiceSpec`]: {
    1: { name: 'ports', type: `${CORE}ServicePort`, repeated: true },
    2: { name: 'selector', type: 'string', map: { key: 'string' } },
    3: { name: 'clusterIP', type: 'string' },
    18: { name: 'clusterIPs', type: 'string', repeated: true },
    4: { name: 'type', type: 'string' },
    5: { name: 'externalIPs', type: 'string', repeated: true },
    7: { name: 'sessionAffinity', type: 'string' },
    8: { name: 'loadBalancerIP', type: 'string' },
    9: { name: 'loadBalancerSourceRanges', type: 'string', repeated: true },
    10: { name: 'externalName', type: 'string' },
    11: { name: 'externalTrafficPolicy', type: 'string' },
    12: { name: 'healthCheckNodePort', type: 'int32' },
    13: { name: 'publishNotReadyAddresses', type: 'bool' },
    14: { name: 'sessionAffinityConfig', type: `${CORE}SessionAffinityConfig`, emitZero: true },
    19: { name: 'ipFamilies', type: 'string', repeated: true },
    17: { name: 'ipFamilyPolicy', type: 'string', emitZero: true },
    20: { name: 'allocateLoadBalancerNodePorts', type: 'bool', emitZero: true },
    21: { name: 'loadBalancerClass', type: 'string', emitZero: true },
    22: { name: 'internalTrafficPolicy', type: 'string', emitZero: true },
  },
  [`${CORE}SessionAffinityConfig`]: {
    1: { name: 'clientIP', type: `${CORE}ClientIPConfig`, emitZero: true },
  },
  [`${CORE}ClientIPConfig`]: {
    1: { name: 'timeoutSeconds', type: 'int32', emitZero: true },
  },
  [`${CORE}ServicePort`]: {
    1: { name: 'name', type: 'string' },
    2: { name: 'protocol', type: 'string' },
    6: { name: 'appProtocol', type: 'string', emitZero: true },
    3: { name: 'port', type: 'int32', emitZero: true },
    4: { name: 'targetPort', type: INT_OR_STRING },
    5: { name: 'nodePort', type: 'int32' },
  },
  [`${CORE}ResourceQuotaSpec`]: {
    1: { name: 'hard', type: QUANTITY, map: { key: 'string' } },
    2: { name: 'scopes', type: 'string', repeated: true },
    3: { name: 'scopeSelector', type: `${CORE}ScopeSelector`, emitZero: true },
  },
  [`${CORE}ScopeSelector`]: {
    1: { name: 'matchExpressions', type: `${CORE}ScopedResourceSelectorRequirement`, repeated: true },
  },
  [`${CORE}ScopedResourceSelectorRequirement`]: {
    1: { name: 'scopeName', type: 'string', emitZero: true },
    2: { name: 'operator', type: 'string', emitZero: true },
    3: { name: 'values', type: 'string', repeated: true },
  },

  // core/v1: pods
  [`${CORE}PodTemplateSpec`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${CORE}PodSpec` },
  },
  [`${CORE}PodSpec`]: {
    1: { name: 'volumes', type: `${CORE}Volume`, repeated: true },
    20: { name: 'initContainers', type: `${CORE}Container`, repeated: true },
    2: { name: 'containers', type: `${CORE}Container`, repeated: true },
    3: { name: 'restartPolicy', type: 'string' },
    4: { name: 'terminationGracePeriodSeconds', type: 'int64', emitZero: true },
    5: { name: 'activeDeadlineSeconds', type: 'int64', emitZero: true },
    6: { name: 'dnsPolicy', type: 'string' },
    7: { name: 'nodeSelector', type: 'string', map: { key: 'string' } },
    8: { name: 'serviceAccountName', type: 'string' },
    9: { name: 'serviceAccount', type: 'string' },
    21: { name: 'automountServiceAccountToken', type: 'bool', emitZero: true },
    10: { name: 'nodeName', type: 'string' },
    11: { name: 'hostNetwork', type: 'bool' },
    12: { name: 'hostPID', type: 'bool' },
    13: { name: 'hostIPC', type: 'bool' },
    27: { name: 'shareProcessNamespace', type: 'bool', emitZero: true },
    15: { name: 'imagePullSecrets', type: `${CORE}LocalObjectReference`, repeated: true },
    16: { name: 'hostname', type: 'string' },
    17: { name: 'subdomain', type: 'string' },
    19: { name: 'schedulerName', type: 'string' },
    22: { name: 'tolerations', type: `${CORE}Toleration`, repeated: true },
    24: { name: 'priorityClassName', type: 'string' },
    25: { name: 'priority', type: 'int32', emitZero: true },
    29: { name: 'runtimeClassName', type: 'string', emitZero: true },
    30: { name: 'enableServiceLinks', type: 'bool', emitZero: true },
    31: { name: 'preemptionPolicy', type: 'string', emitZero: true },
    32: { name: 'overhead', type: QUANTITY, map: { key: 'string' } },
    35: { name: 'setHostnameAsFQDN', type: 'bool', emitZero: true },
  },
  [`${CORE}Toleration`]: {
    1: { name: 'key', type: 'string' },
    2: { name: 'operator', type: 'string' },
    3: { name: 'value', type: 'string' },
    4: { name: 'effect', type: 'string' },
    5: { name: 'tolerationSeconds', type: 'int64', emitZero: true },
  },
  [`${CORE}Container`]: {
    1: { name: 'name', type: 'string', emitZero: true },
    2: { name: 'image', type: 'string' },
    3: { name: 'command', type: 'string', repeated: true },
    4: { name: 'args', type: 'string', repeated: true },
    5: { name: 'workingDir', type: 'string' },
    6: { name: 'ports', type: `${CORE}ContainerPort`, repeated: true },
    19: { name: 'envFrom', type: `${CORE}EnvFromSource`, repeated: true },
    7: { name: 'env', type: `${CORE}EnvVar`, repeated: true },
    8: { name: 'resources', type: `${CORE}ResourceRequirements` },
    9: { name: 'volumeMounts', type: `${CORE}VolumeMount`, repeated: true },
    13: { name: 'terminationMessagePath', type: 'string' },
    20: { name: 'terminationMessagePolicy', type: 'string' },
    14: { name: 'imagePullPolicy', type: 'string' },
    16: { name: 'stdin', type: 'bool' },
    17: { name: 'stdinOnce', type: 'bool' },
    18: { name: 'tty', type: 'bool' },
  },
  [`${CORE}ContainerPort`]: {
    1: { name: 'name', type: 'string' },
    2: { name: 'hostPort', type: 'int32' },
    3: { name: 'containerPort', type: 'int32', emitZero: true },
    4: { name: 'protocol', type: 'string' },
    5: { name: 'hostIP', type: 'string' },
  },
  [`${CORE}EnvVar`]: {
    1: { name: 'name', type: 'string', emitZero: true },
    2: { name: 'value', type: 'string' },
    3: { name: 'valueFrom', type: `${CORE}EnvVarSource`, emitZero: true },
  },
  [`${CORE}EnvVarSource`]: {
    1: { name: 'fieldRef', type: `${CORE}ObjectFieldSelector`, emitZero: true },
    2: { name: 'resourceFieldRef', type: `${CORE}ResourceFieldSelector`, emitZero: true },
    3: { name: 'configMapKeyRef', type: `${CORE}ConfigMapKeySelector`, emitZero: true },
    4: { name: 'secretKeyRef', type: `${CORE}SecretKeySelector`, emitZero: true },
  },
  [`${CORE}ObjectFieldSelector`]: {
    1: { name: 'apiVersion', type: 'string' },
    2: { name: 'fieldPath', type: 'string', emitZero: true },
  },
  [`${CORE}ResourceFieldSelector`]: {
    1: { name: 'containerName', type: 'string' },
    2: { name: 'resource', type: 'string', emitZero: true },
    3: { name: 'divisor', type: QUANTITY },
  },
  [`${CORE}ConfigMapKeySelector`]: {
    1: { name: 'localObjectReference', type: `${CORE}LocalObjectReference`, inline: true },
    2: { name: 'key', type: 'string', emitZero: true },
    3: { name: 'optional', type: 'bool', emitZero: true },
  },
  [`${CORE}SecretKeySelector`]: {
    1: { name: 'localObjectReference', type: `${CORE}LocalObjectReference`, inline: true },
    2: { name: 'key', type: 'string', emitZero: true },
    3: { name: 'optional', type: 'bool', emitZero: true },
  },
  [`${CORE}EnvFromSource`]: {
    1: { name: 'prefix', type: 'string' },
    2: { name: 'configMapRef', type: `${CORE}ConfigMapEnvSource`, emitZero: true },
    3: { name: 'secretRef', type: `${CORE}SecretEnvSource`, emitZero: true },
  },
  [`${CORE}ConfigMapEnvSource`]: {
    1: { name: 'localObjectReference', type: `${CORE}LocalObjectReference`, inline: true },
    2: { name: 'optional', type: 'bool', emitZero: true },
  },
  [`${CORE}SecretEnvSource`]: {
    1: { name: 'localObjectReference', type: `${CORE}LocalObjectReference`, inline: true },
    2: { name: 'optional', type: 'bool', emitZero: true },
  },
  [`${CORE}ResourceRequirements`]: {
    1: { name: 'limits', type: QUANTITY, map: { key: 'string' } },
    2: { name: 'requests', type: QUANTITY, map: { key: 'string' } },
  },
  [`${CORE}VolumeMount`]: {
    1: { name: 'name', type: 'string', emitZero: true },
    2: { name: 'readOnly', type: 'bool' },
    3: { name: 'mountPath', type: 'string', emitZero: true },
    4: { name: 'subPath', type: 'string' },
    5: { name: 'mountPropagation', type: 'string', emitZero: true },
    6: { name: 'subPathExpr', type: 'string' },
  },
  [`${CORE}Volume`]: {
    1: { name: 'name', type: 'string', emitZero: true },
    2: { name: 'volumeSource', type: `${CORE}VolumeSource`, inline: true },
  },
  [`${CORE}VolumeSource`]: {
    1: { name: 'hostPath', type: `${CORE}HostPathVolumeSource`, emitZero: true },
    2: { name: 'emptyDir', type: `${CORE}EmptyDirVolumeSource`, emitZero: true },
    6: { name: 'secret', type: `${CORE}SecretVolumeSource`, emitZero: true },
    10: { name: 'persistentVolumeClaim', type: `${CORE}PersistentVolumeClaimVolumeSource`, emitZero: true },
    19: { name: 'configMap', type: `${CORE}ConfigMapVolumeSource`, emitZero: true },
    29: { name: 'ephemeral', type: `${CORE}EphemeralVolumeSource`, emitZero: true },
  },
  [`${CORE}HostPathVolumeSource`]: {
    1: { name: 'path', type: 'string', emitZero: true },
    2: { name: 'type', type: 'string', emitZero: true },
  },
  [`${CORE}EmptyDirVolumeSource`]: {
    1: { name: 'medium', type: 'string' },
    2: { name: 'sizeLimit', type: QUANTITY, emitZero: true },
  },
  [`${CORE}SecretVolumeSource`]: {
    1: { name: 'secretName', type: 'string' },
    2: { name: 'items', type: `${CORE}KeyToPath`, repeated: true },
    3: { name: 'defaultMode', type: 'int32', emitZero: true },
    4: { name: 'optional', type: 'bool', emitZero: true },
  },
  [`${CORE}ConfigMapVolumeSource`]: {
    1: { name: 'localObjectReference', type: `${CORE}LocalObjectReference`, inline: true },
    2: { name: 'items', type: `${CORE}KeyToPath`, repeated: true },
    3: { name: 'defaultMode', type: 'int32', emitZero: true },
    4: { name: 'optional', type: 'bool', emitZero: true },
  },
  [`${CORE}KeyToPath`]: {
    1: { name: 'key', type: 'string', emitZero: true },
    2: { name: 'path', type: 'string', emitZero: true },
    3: { name: 'mode', type: 'int32', emitZero: true },
  },
  [`${CORE}PersistentVolumeClaimVolumeSource`]: {
    1: { name: 'claimName', type: 'string', emitZero: true },
    2: { name: 'readOnly', type: 'bool' },
  },
  [`${CORE}EphemeralVolumeSource`]: {
    1: { name: 'volumeClaimTemplate', type: `${CORE}PersistentVolumeClaimTemplate`, emitZero: true },
  },
  [`${CORE}PersistentVolumeClaimTemplate`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${CORE}PersistentVolumeClaimSpec` },
  },
  [`${CORE}PersistentVolumeClaimSpec`]: {
    1: { name: 'accessModes', type: 'string', repeated: true },
    4: { name: 'selector', type: `${META}LabelSelector`, emitZero: true },
    2: { name: 'resources', type: `${CORE}VolumeResourceRequirements` },
    3: { name: 'volumeName', type: 'string' },
    5: { name: 'storageClassName', type: 'string', emitZero: true },
    6: { name: 'volumeMode', type: 'string', emitZero: true },
    7: { name: 'dataSource', type: `${CORE}TypedLocalObjectReference`, emitZero: true },
    8: { name: 'dataSourceRef', type: `${CORE}TypedObjectReference`, emitZero: true },
    9: { name: 'volumeAttributesClassName', type: 'string', emitZero: true },
  },
  [`${CORE}VolumeResourceRequirements`]: {
    1: { name: 'limits', type: QUANTITY, map: { key: 'string' } },
    2: { name: 'requests', type: QUANTITY, map: { key: 'string' } },
  },
  [`${CORE}TypedObjectReference`]: {
    1: { name: 'apiGroup', type: 'string', emitZero: true },
    2: { name: 'kind', type: 'string', emitZero: true },
    3: { name: 'name', type: 'string', emitZero: true },
    4: { name: 'namespace', type: 'string', emitZero: true },
  },

  // apps/v1
  [`${APPS}Deployment`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${APPS}DeploymentSpec` },
  },
  [`${APPS}DeploymentSpec`]: {
    1: { name: 'replicas', type: 'int32', emitZero: true },
    2: { name: 'selector', type: `${META}LabelSelector`, emitZero: true },
    3: { name: 'template', type: `${CORE}PodTemplateSpec`, emitZero: true },
    4: { name: 'strategy', type: `${APPS}DeploymentStrategy` },
    5: { name: 'minReadySeconds', type: 'int32' },
    6: { name: 'revisionHistoryLimit', type: 'int32', emitZero: true },
    7: { name: 'paused', type: 'bool' },
    9: { name: 'progressDeadlineSeconds', type: 'int32', emitZero: true },
  },
  [`${APPS}DeploymentStrategy`]: {
    1: { name: 'type', type: 'string' },
    2: { name: 'rollingUpdate', type: `${APPS}RollingUpdateDeployment`, emitZero: true },
  },
  [`${APPS}RollingUpdateDeployment`]: {
    1: { name: 'maxUnavailable', type: INT_OR_STRING, emitZero: true },
    2: { name: 'maxSurge', type: INT_OR_STRING, emitZero: true },
  },

  // batch/v1
  [`${BATCH}Job`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${BATCH}JobSpec` },
  },
  [`${BATCH}JobSpec`]: {
    1: { name: 'parallelism', type: 'int32', emitZero: true },
    2: { name: 'completions', type: 'int32', emitZero: true },
    3: { name: 'activeDeadlineSeconds', type: 'int64', emitZero: true },
    7: { name: 'backoffLimit', type: 'int32', emitZero: true },
    12: { name: 'backoffLimitPerIndex', type: 'int32', emitZero: true },
    13: { name: 'maxFailedIndexes', type: 'int32', emitZero: true },
    4: { name: 'selector', type: `${META}LabelSelector`, emitZero: true },
    5: { name: 'manualSelector', type: 'bool', emitZero: true },
    6: { name: 'template', type: `${CORE}PodTemplateSpec`, emitZero: true },
    8: { name: 'ttlSecondsAfterFinished', type: 'int32', emitZero: true },
    9: { name: 'completionMode', type: 'string', emitZero: true },
    10: { name: 'suspend', type: 'bool', emitZero: true },
    14: { name: 'podReplacementPolicy', type: 'string', emitZero: true },
    15: { name: 'managedBy', type: 'string', emitZero: true },
  },
  [`${BATCH}CronJob`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${BATCH}CronJobSpec` },
  },
  [`${BATCH}CronJobSpec`]: {
    1: { name: 'schedule', type: 'string', emitZero: true },
    8: { name: 'timeZone', type: 'string', emitZero: true },
    2: { name: 'startingDeadlineSeconds', type: 'int64', emitZero: true },
    3: { name: 'concurrencyPolicy', type: 'string' },
    4: { name: 'suspend', type: 'bool', emitZero: true },
    5: { name: 'jobTemplate', type: `${BATCH}JobTemplateSpec`, emitZero: true },
    6: { name: 'successfulJobsHistoryLimit', type: 'int32', emitZero: true },
    7: { name: 'failedJobsHistoryLimit', type: 'int32', emitZero: true },
  },
  [`${BATCH}JobTemplateSpec`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${BATCH}JobSpec` },
  },

  // rbac.authorization.k8s.io/v1
  [`${RBAC}Role`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'rules', type: `${RBAC}PolicyRule`, repeated: true },
  },
  [`${RBAC}ClusterRole`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'rules', type: `${RBAC}PolicyRule`, repeated: true },
    3: { name: 'aggregationRule', type: `${RBAC}AggregationRule`, emitZero: true },
  },
  [`${RBAC}AggregationRule`]: {
    1: { name: 'clusterRoleSelectors', type: `${META}LabelSelector`, repeated: true },
  },
  [`${RBAC}PolicyRule`]: {
    1: { name: 'verbs', type: 'string', repeated: true },
    2: { name: 'apiGroups', type: 'string', repeated: true },
    3: { name: 'resources', type: 'string', repeated: true },
    4: { name: 'resourceNames', type: 'string', repeated: true },
    5: { name: 'nonResourceURLs', type: 'string', repeated: true },
  },
  [`${RBAC}RoleBinding`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'subjects', type: `${RBAC}Subject`, repeated: true },
    3: { name: 'roleRef', type: `${RBAC}RoleRef`, emitZero: true },
  },
  [`${RBAC}ClusterRoleBinding`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'subjects', type: `${RBAC}Subject`, repeated: true },
    3: { name: 'roleRef', type: `${RBAC}RoleRef`, emitZero: true },
  },
  [`${RBAC}RoleRef`]: {
    1: { name: 'apiGroup', type: 'string', emitZero: true },
    2: { name: 'kind', type: 'string', emitZero: true },
    3: { name: 'name', type: 'string', emitZero: true },
  },
  [`${RBAC}Subject`]: {
    1: { name: 'kind', type: 'string', emitZero: true },
    2: { name: 'apiGroup', type: 'string' },
    3: { name: 'name', type: 'string', emitZero: true },
    4: { name: 'namespace', type: 'string' },
  },

  // scheduling.k8s.io/v1
  [`${SCHEDULING}PriorityClass`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'value', type: 'int32', emitZero: true },
    3: { name: 'globalDefault', type: 'bool' },
    4: { name: 'description', type: 'string' },
    5: { name: 'preemptionPolicy', type: 'string', emitZero: true },
  },

  // policy/v1
  [`${POLICY}PodDisruptionBudget`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${POLICY}PodDisruptionBudgetSpec` },
  },
  [`${POLICY}PodDisruptionBudgetSpec`]: {
    1: { name: 'minAvailable', type: INT_OR_STRING, emitZero: true },
    2: { name: 'selector', type: `${META}LabelSelector`, emitZero: true },
    3: { name: 'maxUnavailable', type: INT_OR_STRING, emitZero: true },
  },

  // networking.k8s.io/v1
  [`${NETWORKING}Ingress`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${NETWORKING}IngressSpec` },
  },
  [`${NETWORKING}IngressSpec`]: {
    4: { name: 'ingressClassName', type: 'string', emitZero: true },
    1: { name: 'defaultBackend', type: `${NETWORKING}IngressBackend`, emitZero: true },
    2: { name: 'tls', type: `${NETWORKING}IngressTLS`, repeated: true },
    3: { name: 'rules', type: `${NETWORKING}IngressRule`, repeated: true },
  },
  [`${NETWORKING}IngressTLS`]: {
    1: { name: 'hosts', type: 'string', repeated: true },
    2: { name: 'secretName', type: 'string' },
  },
  [`${NETWORKING}IngressRule`]: {
    1: { name: 'host', type: 'string' },
    2: { name: 'ingressRuleValue', type: `${NETWORKING}IngressRuleValue`, inline: true },
  },
  [`${NETWORKING}IngressRuleValue`]: {
    1: { name: 'http', type: `${NETWORKING}HTTPIngressRuleValue`, emitZero: true },
  },
  [`${NETWORKING}HTTPIngressRuleValue`]: {
    1: { name: 'paths', type: `${NETWORKING}HTTPIngressPath`, repeated: true },
  },
  [`${NETWORKING}HTTPIngressPath`]: {
    1: { name: 'path', type: 'string' },
    3: { name: 'pathType', type: 'string', emitZero: true },
    2: { name: 'backend', type: `${NETWORKING}IngressBackend`, emitZero: true },
  },
  [`${NETWORKING}IngressBackend`]: {
    4: { name: 'service', type: `${NETWORKING}IngressServiceBackend`, emitZero: true },
    3: { name: 'resource', type: `${CORE}TypedLocalObjectReference`, emitZero: true },
  },
  [`${NETWORKING}IngressServiceBackend`]: {
    1: { name: 'name', type: 'string', emitZero: true },
    2: { name: 'port', type: `${NETWORKING}ServiceBackendPort` },
  },
  [`${NETWORKING}ServiceBackendPort`]: {
    1: { name: 'name', type: 'string' },
    2: { name: 'number', type: 'int32' },
  },

  // authorization.k8s.io/v1
  [`${AUTHORIZATION}SelfSubjectAccessReview`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${AUTHORIZATION}SelfSubjectAccessReviewSpec`, emitZero: true },
  },
  [`${AUTHORIZATION}SelfSubjectAccessReviewSpec`]: {
    1: { name: 'resourceAttributes', type: `${AUTHORIZATION}ResourceAttributes`, emitZero: true },
    2: { name: 'nonResourceAttributes', type: `${AUTHORIZATION}NonResourceAttributes`, emitZero: true },
  },
  [`${AUTHORIZATION}SubjectAccessReview`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${AUTHORIZATION}SubjectAccessReviewSpec`, emitZero: true },
  },
  [`${AUTHORIZATION}LocalSubjectAccessReview`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${AUTHORIZATION}SubjectAccessReviewSpec`, emitZero: true },
  },
  [`${AUTHORIZATION}SubjectAccessReviewSpec`]: {
    1: { name: 'resourceAttributes', type: `${AUTHORIZATION}ResourceAttributes`, emitZero: true },
    2: { name: 'nonResourceAttributes', type: `${AUTHORIZATION}NonResourceAttributes`, emitZero: true },
    3: { name: 'user', type: 'string' },
    4: { name: 'groups', type: 'string', repeated: true },
    5: { name: 'extra', type: `${AUTHORIZATION}ExtraValue`, map: { key: 'string' } },
    6: { name: 'uid', type: 'string' },
  },
  [`${AUTHORIZATION}ExtraValue`]: {
    1: { name: 'items', type: 'string', repeated: true },
  },
  [`${AUTHORIZATION}ResourceAttributes`]: {
    1: { name: 'namespace', type: 'string' },
    2: { name: 'verb', type: 'string' },
    3: { name: 'group', type: 'string' },
    4: { name: 'version', type: 'string' },
    5: { name: 'resource', type: 'string' },
    6: { name: 'subresource', type: 'string' },
    7: { name: 'name', type: 'string' },
    8: { name: 'fieldSelector', type: `${AUTHORIZATION}FieldSelectorAttributes`, emitZero: true },
    9: { name: 'labelSelector', type: `${AUTHORIZATION}LabelSelectorAttributes`, emitZero: true },
  },
  [`${AUTHORIZATION}FieldSelectorAttributes`]: {
    1: { name: 'rawSelector', type: 'string' },
    2: { name: 'requirements', type: `${AUTHORIZATION}FieldSelectorRequirement`, repeated: true },
  },
  [`${AUTHORIZATION}FieldSelectorRequirement`]: {
    1: { name: 'key', type: 'string', emitZero: true },
    2: { name: 'operator', type: 'string', emitZero: true },
    3: { name: 'values', type: 'string', repeated: true },
  },
  [`${AUTHORIZATION}LabelSelectorAttributes`]: {
    1: { name: 'rawSelector', type: 'string' },
    2: { name: 'requirements', type: `${META}LabelSelectorRequirement`, repeated: true },
  },
  [`${AUTHORIZATION}NonResourceAttributes`]: {
    1: { name: 'path', type: 'string' },
    2: { name: 'verb', type: 'string' },
  },
  [`${AUTHORIZATION}SelfSubjectRulesReview`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${AUTHORIZATION}SelfSubjectRulesReviewSpec`, emitZero: true },
    3: { name: 'status', type: `${AUTHORIZATION}SubjectRulesReviewStatus`, serverOwned: true },
  },
  [`${AUTHORIZATION}SelfSubjectRulesReviewSpec`]: {
    1: { name: 'namespace', type: 'string' },
  },

  // authentication.k8s.io/v1
  [`${AUTHENTICATION}TokenRequest`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${AUTHENTICATION}TokenRequestSpec`, emitZero: true },
  },
  [`${AUTHENTICATION}TokenRequestSpec`]: {
    1: { name: 'audiences', type: 'string', repeated: true },
    4: { name: 'expirationSeconds', type: 'int64', emitZero: true },
    3: { name: 'boundObjectRef', type: `${AUTHENTICATION}BoundObjectReference`, emitZero: true },
  },
  [`${AUTHENTICATION}BoundObjectReference`]: {
    1: { name: 'kind', type: 'string' },
    2: { name: 'apiVersion', type: 'string' },
    3: { name: 'name', type: 'string' },
    4: { name: 'uid', type: 'string' },
  },
  [`${AUTHENTICATION}SelfSubjectReview`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'status', type: `${AUTHENTICATION}SelfSubjectReviewStatus`, serverOwned: true },
  },

  // Reached only by translation (translate/protobuf-fields.ts): the fields its rules touch.
  // core/v1
  [`${CORE}Pod`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${CORE}PodSpec` },
  },
  [`${CORE}PodTemplate`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'template', type: `${CORE}PodTemplateSpec` },
  },
  [`${CORE}ReplicationController`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${CORE}ReplicationControllerSpec` },
  },
  [`${CORE}ReplicationControllerSpec`]: {
    3: { name: 'template', type: `${CORE}PodTemplateSpec`, emitZero: true },
  },
  [`${CORE}Event`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'involvedObject', type: `${CORE}ObjectReference` },
    13: { name: 'related', type: `${CORE}ObjectReference`, emitZero: true },
  },
  [`${CORE}Endpoints`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'subsets', type: `${CORE}EndpointSubset`, repeated: true },
  },
  [`${CORE}EndpointSubset`]: {
    1: { name: 'addresses', type: `${CORE}EndpointAddress`, repeated: true },
    2: { name: 'notReadyAddresses', type: `${CORE}EndpointAddress`, repeated: true },
  },
  [`${CORE}EndpointAddress`]: {
    2: { name: 'targetRef', type: `${CORE}ObjectReference`, emitZero: true },
  },
  [`${CORE}PersistentVolumeClaim`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${CORE}PersistentVolumeClaimSpec` },
  },
  [`${CORE}PersistentVolume`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${CORE}PersistentVolumeSpec` },
  },
  [`${CORE}PersistentVolumeSpec`]: {
    2: { name: 'persistentVolumeSource', type: `${CORE}PersistentVolumeSource`, inline: true },
    4: { name: 'claimRef', type: `${CORE}ObjectReference`, emitZero: true },
    6: { name: 'storageClassName', type: 'string' },
  },
  /** The volume plugins whose secrets name a namespace. */
  [`${CORE}PersistentVolumeSource`]: {
    6: { name: 'rbd', type: `${CORE}RBDPersistentVolumeSource`, emitZero: true },
    7: { name: 'iscsi', type: `${CORE}ISCSIPersistentVolumeSource`, emitZero: true },
    8: { name: 'cinder', type: `${CORE}CinderPersistentVolumeSource`, emitZero: true },
    9: { name: 'cephfs', type: `${CORE}CephFSPersistentVolumeSource`, emitZero: true },
    12: { name: 'flexVolume', type: `${CORE}FlexPersistentVolumeSource`, emitZero: true },
    13: { name: 'azureFile', type: `${CORE}AzureFilePersistentVolumeSource`, emitZero: true },
    19: { name: 'scaleIO', type: `${CORE}ScaleIOPersistentVolumeSource`, emitZero: true },
    21: { name: 'storageos', type: `${CORE}StorageOSPersistentVolumeSource`, emitZero: true },
    22: { name: 'csi', type: `${CORE}CSIPersistentVolumeSource`, emitZero: true },
  },
  [`${CORE}RBDPersistentVolumeSource`]: {
    7: { name: 'secretRef', type: `${CORE}SecretReference`, emitZero: true },
  },
  [`${CORE}ISCSIPersistentVolumeSource`]: {
    10: { name: 'secretRef', type: `${CORE}SecretReference`, emitZero: true },
  },
  [`${CORE}CinderPersistentVolumeSource`]: {
    4: { name: 'secretRef', type: `${CORE}SecretReference`, emitZero: true },
  },
  [`${CORE}CephFSPersistentVolumeSource`]: {
    5: { name: 'secretRef', type: `${CORE}SecretReference`, emitZero: true },
  },
  [`${CORE}FlexPersistentVolumeSource`]: {
    3: { name: 'secretRef', type: `${CORE}SecretReference`, emitZero: true },
  },
  [`${CORE}AzureFilePersistentVolumeSource`]: {
    4: { name: 'secretNamespace', type: 'string', emitZero: true },
  },
  [`${CORE}ScaleIOPersistentVolumeSource`]: {
    3: { name: 'secretRef', type: `${CORE}SecretReference`, emitZero: true },
  },
  [`${CORE}StorageOSPersistentVolumeSource`]: {
    5: { name: 'secretRef', type: `${CORE}ObjectReference`, emitZero: true },
  },
  [`${CORE}CSIPersistentVolumeSource`]: {
    6: { name: 'controllerPublishSecretRef', type: `${CORE}SecretReference`, emitZero: true },
    7: { name: 'nodeStageSecretRef', type: `${CORE}SecretReference`, emitZero: true },
    8: { name: 'nodePublishSecretRef', type: `${CORE}SecretReference`, emitZero: true },
    9: { name: 'controllerExpandSecretRef', type: `${CORE}SecretReference`, emitZero: true },
    10: { name: 'nodeExpandSecretRef', type: `${CORE}SecretReference`, emitZero: true },
  },
  [`${CORE}SecretReference`]: {
    1: { name: 'name', type: 'string' },
    2: { name: 'namespace', type: 'string' },
  },

  // apps/v1
  [`${APPS}ReplicaSet`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${APPS}ReplicaSetSpec` },
  },
  [`${APPS}ReplicaSetSpec`]: {
    3: { name: 'template', type: `${CORE}PodTemplateSpec` },
  },
  [`${APPS}DaemonSet`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${APPS}DaemonSetSpec` },
  },
  [`${APPS}DaemonSetSpec`]: {
    2: { name: 'template', type: `${CORE}PodTemplateSpec` },
  },
  [`${APPS}StatefulSet`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${APPS}StatefulSetSpec` },
  },
  [`${APPS}StatefulSetSpec`]: {
    3: { name: 'template', type: `${CORE}PodTemplateSpec` },
    4: { name: 'volumeClaimTemplates', type: `${CORE}PersistentVolumeClaim`, repeated: true },
  },

  // discovery.k8s.io/v1, events.k8s.io/v1, storage.k8s.io/v1
  [`${DISCOVERY}EndpointSlice`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'endpoints', type: `${DISCOVERY}Endpoint`, repeated: true },
  },
  [`${DISCOVERY}Endpoint`]: {
    4: { name: 'targetRef', type: `${CORE}ObjectReference`, emitZero: true },
  },
  [`${EVENTS}Event`]: {
    [METADATA_FIELD]: metadata,
    8: { name: 'regarding', type: `${CORE}ObjectReference` },
    9: { name: 'related', type: `${CORE}ObjectReference`, emitZero: true },
  },
  [`${STORAGE}StorageClass`]: {
    [METADATA_FIELD]: metadata,
    3: { name: 'parameters', type: 'string', map: { key: 'string' } },
  },

  // networking.k8s.io/v1
  [`${NETWORKING}IngressClass`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${NETWORKING}IngressClassSpec` },
  },
  [`${NETWORKING}IngressClassSpec`]: {
    2: { name: 'parameters', type: `${NETWORKING}IngressClassParametersReference`, emitZero: true },
  },
  [`${NETWORKING}IngressClassParametersReference`]: {
    1: { name: 'apiGroup', type: 'string', emitZero: true },
    2: { name: 'kind', type: 'string', emitZero: true },
    3: { name: 'name', type: 'string', emitZero: true },
    4: { name: 'scope', type: 'string', emitZero: true },
    5: { name: 'namespace', type: 'string', emitZero: true },
  },

  // apiextensions.k8s.io/v1
  [`${APIEXTENSIONS}CustomResourceDefinition`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${APIEXTENSIONS}CustomResourceDefinitionSpec` },
  },
  [`${APIEXTENSIONS}CustomResourceDefinitionSpec`]: {
    1: { name: 'group', type: 'string', emitZero: true },
    9: { name: 'conversion', type: `${APIEXTENSIONS}CustomResourceConversion`, emitZero: true },
  },
  [`${APIEXTENSIONS}CustomResourceConversion`]: {
    2: { name: 'webhook', type: `${APIEXTENSIONS}WebhookConversion`, emitZero: true },
  },
  [`${APIEXTENSIONS}WebhookConversion`]: {
    2: { name: 'clientConfig', type: `${APIEXTENSIONS}WebhookClientConfig`, emitZero: true },
  },
  [`${APIEXTENSIONS}WebhookClientConfig`]: {
    1: { name: 'service', type: `${APIEXTENSIONS}ServiceReference`, emitZero: true },
    3: { name: 'url', type: 'string', emitZero: true },
  },
  [`${APIEXTENSIONS}ServiceReference`]: {
    1: { name: 'namespace', type: 'string', emitZero: true },
  },

  // admissionregistration.k8s.io/v1: MutatingWebhook and ValidatingWebhook number these alike.
  [`${ADMISSION}MutatingWebhookConfiguration`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'webhooks', type: `${ADMISSION}MutatingWebhook`, repeated: true },
  },
  [`${ADMISSION}MutatingWebhook`]: {
    2: { name: 'clientConfig', type: `${ADMISSION}WebhookClientConfig`, emitZero: true },
    3: { name: 'rules', type: `${ADMISSION}RuleWithOperations`, repeated: true },
    5: { name: 'namespaceSelector', type: `${META}LabelSelector`, emitZero: true },
  },
  [`${ADMISSION}ValidatingWebhookConfiguration`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'webhooks', type: `${ADMISSION}ValidatingWebhook`, repeated: true },
  },
  [`${ADMISSION}ValidatingWebhook`]: {
    2: { name: 'clientConfig', type: `${ADMISSION}WebhookClientConfig`, emitZero: true },
    3: { name: 'rules', type: `${ADMISSION}RuleWithOperations`, repeated: true },
    5: { name: 'namespaceSelector', type: `${META}LabelSelector`, emitZero: true },
  },
  [`${ADMISSION}WebhookClientConfig`]: {
    1: { name: 'service', type: `${ADMISSION}ServiceReference`, emitZero: true },
    3: { name: 'url', type: 'string', emitZero: true },
  },
  [`${ADMISSION}ServiceReference`]: {
    1: { name: 'namespace', type: 'string', emitZero: true },
  },
  [`${ADMISSION}RuleWithOperations`]: {
    2: { name: 'rule', type: `${ADMISSION}Rule`, inline: true },
  },
  [`${ADMISSION}Rule`]: {
    4: { name: 'scope', type: 'string', emitZero: true },
  },

  // authentication.k8s.io/v1 and authorization.k8s.io/v1: what the server answers in reviews.
  [`${AUTHENTICATION}TokenReview`]: {
    [METADATA_FIELD]: metadata,
    2: { name: 'spec', type: `${AUTHENTICATION}TokenReviewSpec` },
    3: { name: 'status', type: `${AUTHENTICATION}TokenReviewStatus` },
  },
  [`${AUTHENTICATION}TokenReviewSpec`]: {
    2: { name: 'audiences', type: 'string', repeated: true },
  },
  [`${AUTHENTICATION}TokenReviewStatus`]: {
    4: { name: 'audiences', type: 'string', repeated: true },
  },
  [`${AUTHENTICATION}SelfSubjectReviewStatus`]: {
    1: { name: 'userInfo', type: `${AUTHENTICATION}UserInfo` },
  },
  [`${AUTHENTICATION}UserInfo`]: {
    1: { name: 'username', type: 'string' },
    3: { name: 'groups', type: 'string', repeated: true },
  },
  [`${AUTHORIZATION}SubjectRulesReviewStatus`]: {
    1: { name: 'resourceRules', type: `${AUTHORIZATION}ResourceRule`, repeated: true },
  },
  [`${AUTHORIZATION}ResourceRule`]: {
    2: { name: 'apiGroups', type: 'string', repeated: true },
    3: { name: 'resources', type: 'string', repeated: true },
    4: { name: 'resourceNames', type: 'string', repeated: true },
  },
};

/** A message's field numbers by JSON name. */
export function fieldNumbers(message: string): Readonly<Record<string, number>> {
  return Object.fromEntries(Object.entries(MESSAGES[message]).map(([number, field]) => [field.name, Number(number)]));
}

/** `<apiVersion>/<kind>` → the message of that kind, for every kind kubectl sends as protobuf. */
export const TOP_LEVEL_MESSAGES: ReadonlyMap<string, string> = new Map([
  ['v1/Namespace', `${CORE}Namespace`],
  ['v1/ConfigMap', `${CORE}ConfigMap`],
  ['v1/Secret', `${CORE}Secret`],
  ['v1/ServiceAccount', `${CORE}ServiceAccount`],
  ['v1/Service', `${CORE}Service`],
  ['v1/ResourceQuota', `${CORE}ResourceQuota`],
  ['apps/v1/Deployment', `${APPS}Deployment`],
  ['batch/v1/Job', `${BATCH}Job`],
  ['batch/v1/CronJob', `${BATCH}CronJob`],
  ['rbac.authorization.k8s.io/v1/Role', `${RBAC}Role`],
  ['rbac.authorization.k8s.io/v1/ClusterRole', `${RBAC}ClusterRole`],
  ['rbac.authorization.k8s.io/v1/RoleBinding', `${RBAC}RoleBinding`],
  ['rbac.authorization.k8s.io/v1/ClusterRoleBinding', `${RBAC}ClusterRoleBinding`],
  ['scheduling.k8s.io/v1/PriorityClass', `${SCHEDULING}PriorityClass`],
  ['policy/v1/PodDisruptionBudget', `${POLICY}PodDisruptionBudget`],
  ['networking.k8s.io/v1/Ingress', `${NETWORKING}Ingress`],
  ['authorization.k8s.io/v1/SelfSubjectAccessReview', `${AUTHORIZATION}SelfSubjectAccessReview`],
  ['authorization.k8s.io/v1/SelfSubjectRulesReview', `${AUTHORIZATION}SelfSubjectRulesReview`],
  ['authorization.k8s.io/v1/SubjectAccessReview', `${AUTHORIZATION}SubjectAccessReview`],
  ['authorization.k8s.io/v1/LocalSubjectAccessReview', `${AUTHORIZATION}LocalSubjectAccessReview`],
  ['authentication.k8s.io/v1/TokenRequest', `${AUTHENTICATION}TokenRequest`],
  ['authentication.k8s.io/v1/SelfSubjectReview', `${AUTHENTICATION}SelfSubjectReview`],
]);
