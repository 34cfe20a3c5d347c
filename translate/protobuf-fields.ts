/**
 * The protobuf fields the translation rules read or write, by field number, with their JSON names:
 * protobuf-body.ts decodes only these into a JSON "shadow" of the object, lets objects.ts translate
 * it, and copies every other field byte for byte. Deliberately sparse: a field belongs here only
 * when a rule in kinds/ looks at it, and the path down to it. Numbers are those of the published
 * generated.proto files of k8s.io/api, k8s.io/apimachinery and k8s.io/apiextensions-apiserver;
 * they differ between API versions, so each kind's record (kinds/kind-records.ts) names its table per
 * version. This file holds the tables; the records say which kind uses which.
 */
/**
 * How one field appears in the JSON object. Every field here is length-delimited on the wire.
 * - `string`: `keepEmpty` when Go's JSON prints `""` (a pointer, or no `omitempty`), as the full
 *   decoder does, so the rules see the same value either way;
 * - `strings`: a repeated string; `stringMap`: a map<string, string>;
 * - `message`: a nested object (`repeated`: an array of them);
 * - `inline`: an embedded Go struct (`json:",inline"`) whose fields sit in the enclosing object.
 */
export type FieldRule =
  | { type: 'string'; name: string; keepEmpty?: true }
  | { type: 'strings'; name: string }
  | { type: 'stringMap'; name: string }
  | { type: 'message'; name: string; fields: MessageFields; repeated?: true }
  | { type: 'inline'; fields: MessageFields };

export type MessageFields = Readonly<Record<number, FieldRule>>;

const string = (name: string): FieldRule => ({ type: 'string', name });
const stringKeptEmpty = (name: string): FieldRule => ({ type: 'string', name, keepEmpty: true });
const strings = (name: string): FieldRule => ({ type: 'strings', name });
const stringMap = (name: string): FieldRule => ({ type: 'stringMap', name });
const message = (name: string, fields: MessageFields): FieldRule => ({ type: 'message', name, fields });
const list = (name: string, fields: MessageFields): FieldRule => ({ type: 'message', name, fields, repeated: true });

// k8s.io/apimachinery meta/v1
const ownerReference: MessageFields = {
  1: stringKeptEmpty('kind'),
  3: stringKeptEmpty('name'),
  5: stringKeptEmpty('apiVersion'),
};
const objectMeta: MessageFields = {
  1: string('name'),
  2: string('generateName'),
  3: string('namespace'),
  11: stringMap('labels'),
  12: stringMap('annotations'),
  13: list('ownerReferences', ownerReference),
  17: list('managedFields', { 3: string('apiVersion') }),
};
const labelSelector: MessageFields = {
  2: list('matchExpressions', { 1: stringKeptEmpty('key'), 2: stringKeptEmpty('operator'), 3: strings('values') }),
};

/** runtime.TypeMeta inside the runtime.Unknown envelope (not meta/v1 TypeMeta, which numbers them the other way round). */
export const TYPE_META: MessageFields = { 1: stringKeptEmpty('apiVersion'), 2: stringKeptEmpty('kind') };

/** Field 1 of every top-level kind. */
export const METADATA: MessageFields = { 1: message('metadata', objectMeta) };

// core/v1
const objectReference: MessageFields = {
  1: string('kind'),
  2: string('namespace'),
  3: string('name'),
  5: string('apiVersion'),
};
const typedReference: MessageFields = {
  1: stringKeptEmpty('apiGroup'),
  2: stringKeptEmpty('kind'),
  3: stringKeptEmpty('name'),
  4: stringKeptEmpty('namespace'),
};
const persistentVolumeClaimSpec: MessageFields = {
  3: string('volumeName'),
  5: stringKeptEmpty('storageClassName'),
  7: message('dataSource', typedReference),
  8: message('dataSourceRef', typedReference),
};
const podSpec: MessageFields = {
  // Volume.volumeSource (2) is inline; VolumeSource.ephemeral = 29 → volumeClaimTemplate = 1 → spec = 2.
  1: list('volumes', {
    2: {
      type: 'inline',
      fields: {
        29: message('ephemeral', {
          1: message('volumeClaimTemplate', { 2: message('spec', persistentVolumeClaimSpec) }),
        }),
      },
    },
  }),
  24: string('priorityClassName'),
  29: stringKeptEmpty('runtimeClassName'),
};
const podTemplateSpec: MessageFields = { 2: message('spec', podSpec) };
/** Deployment, ReplicaSet, ReplicationController: spec.template is field 3 of their specs. */
const templateAt3: MessageFields = { 2: message('spec', { 3: message('template', podTemplateSpec) }) };
const jobSpec: MessageFields = { 6: message('template', podTemplateSpec) };
const secretReference: MessageFields = { 2: string('namespace') };
const withSecretRef = (name: string, field: number, reference: MessageFields = secretReference): FieldRule =>
  message(name, { [field]: message('secretRef', reference) });
const persistentVolumeSpec: MessageFields = {
  // PersistentVolumeSource (2) is inline: the volume plugins whose secrets name a namespace.
  2: {
    type: 'inline',
    fields: {
      6: withSecretRef('rbd', 7),
      7: withSecretRef('iscsi', 10),
      8: withSecretRef('cinder', 4),
      9: withSecretRef('cephfs', 5),
      12: withSecretRef('flexVolume', 3),
      13: message('azureFile', { 4: stringKeptEmpty('secretNamespace') }),
      19: withSecretRef('scaleIO', 3),
      21: withSecretRef('storageos', 5, objectReference),
      22: message('csi', {
        6: message('controllerPublishSecretRef', secretReference),
        7: message('nodeStageSecretRef', secretReference),
        8: message('nodePublishSecretRef', secretReference),
        9: message('controllerExpandSecretRef', secretReference),
        10: message('nodeExpandSecretRef', secretReference),
      }),
    },
  },
  4: message('claimRef', objectReference),
  6: string('storageClassName'),
};
const endpointAddress: MessageFields = { 2: message('targetRef', objectReference) };

// rbac.authorization.k8s.io/v1 (PolicyRule: verbs = 1, apiGroups = 2, resources = 3, resourceNames = 4, nonResourceURLs = 5)
const policyRules = list('rules', { 2: strings('apiGroups'), 3: strings('resources'), 4: strings('resourceNames') });
const role: MessageFields = { 2: policyRules };
/** AggregationRule (3): clusterRoleSelectors = 1. */
const clusterRole: MessageFields = {
  2: policyRules,
  3: message('aggregationRule', { 1: list('clusterRoleSelectors', labelSelector) }),
};
const binding: MessageFields = {
  2: list('subjects', { 1: stringKeptEmpty('kind'), 3: stringKeptEmpty('name'), 4: string('namespace') }),
  3: message('roleRef', { 2: stringKeptEmpty('kind'), 3: stringKeptEmpty('name') }),
};

// admissionregistration.k8s.io/v1 and apiextensions.k8s.io/v1 share the shape of WebhookClientConfig.
const webhookClientConfig: MessageFields = {
  1: message('service', { 1: stringKeptEmpty('namespace') }),
  3: stringKeptEmpty('url'),
};
/** MutatingWebhook and ValidatingWebhook number these alike; RuleWithOperations.rule (2) is inline. */
const webhookConfiguration: MessageFields = {
  2: list('webhooks', {
    2: message('clientConfig', webhookClientConfig),
    3: list('rules', { 2: { type: 'inline', fields: { 4: stringKeptEmpty('scope') } } }),
    5: message('namespaceSelector', labelSelector),
  }),
};

// authorization.k8s.io/v1 and authentication.k8s.io/v1
const resourceAttributes: MessageFields = {
  1: string('namespace'),
  3: string('group'),
  5: string('resource'),
  7: string('name'),
};
const subjectAccessReview: MessageFields = {
  2: message('spec', { 1: message('resourceAttributes', resourceAttributes), 3: string('user'), 4: strings('groups') }),
};

/** The tables of the kinds whose convertor touches more than metadata, named for the records of kinds/kind-records.ts. */
export const PROTOBUF_FIELDS = {
  namespace: {},
  coreEvent: { 2: message('involvedObject', objectReference), 13: message('related', objectReference) },
  eventsEvent: { 8: message('regarding', objectReference), 9: message('related', objectReference) },
  endpoints: {
    2: list('subsets', { 1: list('addresses', endpointAddress), 2: list('notReadyAddresses', endpointAddress) }),
  },
  endpointSlice: { 2: list('endpoints', { 4: message('targetRef', objectReference) }) },
  persistentVolume: { 2: message('spec', persistentVolumeSpec) },
  persistentVolumeClaim: { 2: message('spec', persistentVolumeClaimSpec) },
  storageClass: { 3: stringMap('parameters') },
  pod: { 2: message('spec', podSpec) },
  podTemplate: { 2: message('template', podTemplateSpec) },
  /** Deployment, ReplicaSet, ReplicationController. */
  templateAt3,
  daemonSet: { 2: message('spec', { 2: message('template', podTemplateSpec) }) },
  statefulSet: {
    2: message('spec', {
      3: message('template', podTemplateSpec),
      4: list('volumeClaimTemplates', { 2: message('spec', persistentVolumeClaimSpec) }),
    }),
  },
  job: { 2: message('spec', jobSpec) },
  cronJob: { 2: message('spec', { 5: message('jobTemplate', { 2: message('spec', jobSpec) }) }) },
  ingress: { 2: message('spec', { 4: stringKeptEmpty('ingressClassName') }) },
  ingressClass: {
    2: message('spec', {
      2: message('parameters', {
        1: stringKeptEmpty('apiGroup'),
        2: stringKeptEmpty('kind'),
        3: stringKeptEmpty('name'),
        4: stringKeptEmpty('scope'),
        5: stringKeptEmpty('namespace'),
      }),
    }),
  },
  role,
  clusterRole,
  binding,
  crd: {
    2: message('spec', {
      1: stringKeptEmpty('group'),
      9: message('conversion', { 2: message('webhook', { 2: message('clientConfig', webhookClientConfig) }) }),
    }),
  },
  webhookConfiguration,
  tokenRequest: { 2: message('spec', { 1: strings('audiences') }) },
  tokenReview: { 2: message('spec', { 2: strings('audiences') }), 3: message('status', { 4: strings('audiences') }) },
  selfSubjectReview: {
    2: message('status', { 1: message('userInfo', { 1: string('username'), 3: strings('groups') }) }),
  },
  subjectAccessReview,
  selfSubjectAccessReview: { 2: message('spec', { 1: message('resourceAttributes', resourceAttributes) }) },
  selfSubjectRulesReview: {
    2: message('spec', { 1: string('namespace') }),
    3: message('status', {
      1: list('resourceRules', { 2: strings('apiGroups'), 3: strings('resources'), 4: strings('resourceNames') }),
    }),
  },
} satisfies Record<string, MessageFields>;
