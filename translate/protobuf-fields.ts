/**
 * The protobuf fields the translation rules read or write: protobuf-body.ts decodes only these into
 * a JSON "shadow" of the object, lets objects.ts translate it, and copies every other field byte for
 * byte. Deliberately sparse: a field belongs here only when a rule in kinds/ looks at it, and the
 * path down to it. The fields are named here by their JSON names; their numbers and shapes come from
 * the one schema of Kubernetes' messages (apiserver/protobuf/schema.ts), so a number is written only
 * there. Numbers differ between API versions, so each kind's record (kinds/kind-records.ts) names its
 * table per version. This file holds the tables; the records say which kind uses which.
 */
import {
  ENVELOPE_TYPE_META,
  MESSAGES,
  METADATA_FIELD,
  PACKAGES,
  type FieldSpec,
} from '../apiserver/protobuf/schema.js';

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

/**
 * The fields a rule reads of one message, by JSON name: `true` for a string, a list of strings or a
 * map of them; the selection within it for a message. An inline struct is named by its Go field
 * (`volumeSource`), as the schema names it, though its fields sit in the enclosing object.
 */
interface Selection {
  readonly [name: string]: true | Selection;
}

/** The table of `selection` in the schema's `message`. */
function fieldsOf(message: string, selection: Selection): MessageFields {
  const spec = MESSAGES[message];
  const fields: Record<number, FieldRule> = {};
  for (const [name, inner] of Object.entries(selection)) {
    const found = Object.entries(spec).find(([, field]) => field.name === name);
    if (found === undefined) throw new Error(`protobuf schema: ${message} has no field ${name}`);
    fields[Number(found[0])] = ruleOf(found[1], inner, `${message}.${name}`);
  }
  return fields;
}

function ruleOf(field: FieldSpec, inner: true | Selection, where: string): FieldRule {
  const { name } = field;
  if (inner !== true) {
    const fields = fieldsOf(field.type, inner);
    if (field.inline) return { type: 'inline', fields };
    return field.repeated ? { type: 'message', name, fields, repeated: true } : { type: 'message', name, fields };
  }
  if (field.type !== 'string') throw new Error(`protobuf schema: ${where} is no string, list or map of strings`);
  if (field.map) return { type: 'stringMap', name };
  if (field.repeated) return { type: 'strings', name };
  return field.emitZero ? { type: 'string', name, keepEmpty: true } : { type: 'string', name };
}

// k8s.io/apimachinery meta/v1
const labelSelector: Selection = { matchExpressions: { key: true, operator: true, values: true } };

/** runtime.TypeMeta inside the runtime.Unknown envelope. */
export const TYPE_META: MessageFields = fieldsOf(ENVELOPE_TYPE_META, { apiVersion: true, kind: true });

/** The metadata of every top-level kind. */
export const METADATA: MessageFields = {
  [METADATA_FIELD]: {
    type: 'message',
    name: 'metadata',
    fields: fieldsOf(`${PACKAGES.meta}ObjectMeta`, {
      name: true,
      generateName: true,
      namespace: true,
      labels: true,
      annotations: true,
      ownerReferences: { kind: true, name: true, apiVersion: true },
      managedFields: { apiVersion: true },
    }),
  },
};

// core/v1
const objectReference: Selection = { kind: true, namespace: true, name: true, apiVersion: true };
const typedLocalReference: Selection = { apiGroup: true, kind: true, name: true };
const persistentVolumeClaimSpec: Selection = {
  volumeName: true,
  storageClassName: true,
  dataSource: typedLocalReference,
  dataSourceRef: { ...typedLocalReference, namespace: true },
};
const podSpec: Selection = {
  // Volume.volumeSource is inline: `volumes[].ephemeral.volumeClaimTemplate.spec` in JSON.
  volumes: { volumeSource: { ephemeral: { volumeClaimTemplate: { spec: persistentVolumeClaimSpec } } } },
  priorityClassName: true,
  runtimeClassName: true,
};
const podTemplateSpec: Selection = { spec: podSpec };
const secretRef: Selection = { secretRef: { namespace: true } };
const endpointAddress: Selection = { targetRef: objectReference };

// rbac.authorization.k8s.io/v1
const policyRules: Selection = { rules: { apiGroups: true, resources: true, resourceNames: true } };
const binding: Selection = {
  subjects: { kind: true, name: true, namespace: true },
  roleRef: { kind: true, name: true },
};

// admissionregistration.k8s.io/v1 and apiextensions.k8s.io/v1 share the shape of WebhookClientConfig.
const webhookClientConfig: Selection = { service: { namespace: true }, url: true };
const webhookConfiguration: Selection = {
  webhooks: { clientConfig: webhookClientConfig, rules: { rule: { scope: true } }, namespaceSelector: labelSelector },
};

// authorization.k8s.io/v1
const resourceAttributes: Selection = { namespace: true, group: true, resource: true, name: true };
const subjectAccessReview: Selection = { spec: { resourceAttributes, user: true, groups: true } };

/** The tables of the kinds whose convertor touches more than metadata, named for the records of kinds/kind-records.ts. */
export const PROTOBUF_FIELDS = {
  namespace: {},
  coreEvent: fieldsOf(`${PACKAGES.core}Event`, { involvedObject: objectReference, related: objectReference }),
  eventsEvent: fieldsOf(`${PACKAGES.events}Event`, { regarding: objectReference, related: objectReference }),
  endpoints: fieldsOf(`${PACKAGES.core}Endpoints`, {
    subsets: { addresses: endpointAddress, notReadyAddresses: endpointAddress },
  }),
  endpointSlice: fieldsOf(`${PACKAGES.discovery}EndpointSlice`, { endpoints: { targetRef: objectReference } }),
  persistentVolume: fieldsOf(`${PACKAGES.core}PersistentVolume`, {
    spec: {
      persistentVolumeSource: {
        rbd: secretRef,
        iscsi: secretRef,
        cinder: secretRef,
        cephfs: secretRef,
        flexVolume: secretRef,
        azureFile: { secretNamespace: true },
        scaleIO: secretRef,
        storageos: { secretRef: objectReference },
        csi: {
          controllerPublishSecretRef: { namespace: true },
          nodeStageSecretRef: { namespace: true },
          nodePublishSecretRef: { namespace: true },
          controllerExpandSecretRef: { namespace: true },
          nodeExpandSecretRef: { namespace: true },
        },
      },
      claimRef: objectReference,
      storageClassName: true,
    },
  }),
  persistentVolumeClaim: fieldsOf(`${PACKAGES.core}PersistentVolumeClaim`, { spec: persistentVolumeClaimSpec }),
  storageClass: fieldsOf(`${PACKAGES.storage}StorageClass`, { parameters: true }),
  pod: fieldsOf(`${PACKAGES.core}Pod`, { spec: podSpec }),
  podTemplate: fieldsOf(`${PACKAGES.core}PodTemplate`, { template: podTemplateSpec }),
  replicationController: fieldsOf(`${PACKAGES.core}ReplicationController`, { spec: { template: podTemplateSpec } }),
  deployment: fieldsOf(`${PACKAGES.apps}Deployment`, { spec: { template: podTemplateSpec } }),
  replicaSet: fieldsOf(`${PACKAGES.apps}ReplicaSet`, { spec: { template: podTemplateSpec } }),
  daemonSet: fieldsOf(`${PACKAGES.apps}DaemonSet`, { spec: { template: podTemplateSpec } }),
  statefulSet: fieldsOf(`${PACKAGES.apps}StatefulSet`, {
    spec: { template: podTemplateSpec, volumeClaimTemplates: { spec: persistentVolumeClaimSpec } },
  }),
  job: fieldsOf(`${PACKAGES.batch}Job`, { spec: { template: podTemplateSpec } }),
  cronJob: fieldsOf(`${PACKAGES.batch}CronJob`, { spec: { jobTemplate: { spec: { template: podTemplateSpec } } } }),
  ingress: fieldsOf(`${PACKAGES.networking}Ingress`, { spec: { ingressClassName: true } }),
  ingressClass: fieldsOf(`${PACKAGES.networking}IngressClass`, {
    spec: { parameters: { apiGroup: true, kind: true, name: true, scope: true, namespace: true } },
  }),
  role: fieldsOf(`${PACKAGES.rbac}Role`, policyRules),
  clusterRole: fieldsOf(`${PACKAGES.rbac}ClusterRole`, {
    ...policyRules,
    aggregationRule: { clusterRoleSelectors: labelSelector },
  }),
  roleBinding: fieldsOf(`${PACKAGES.rbac}RoleBinding`, binding),
  clusterRoleBinding: fieldsOf(`${PACKAGES.rbac}ClusterRoleBinding`, binding),
  crd: fieldsOf(`${PACKAGES.apiextensions}CustomResourceDefinition`, {
    spec: { group: true, conversion: { webhook: { clientConfig: webhookClientConfig } } },
  }),
  mutatingWebhookConfiguration: fieldsOf(
    `${PACKAGES.admissionregistration}MutatingWebhookConfiguration`,
    webhookConfiguration,
  ),
  validatingWebhookConfiguration: fieldsOf(
    `${PACKAGES.admissionregistration}ValidatingWebhookConfiguration`,
    webhookConfiguration,
  ),
  selfSubjectReview: fieldsOf(`${PACKAGES.authentication}SelfSubjectReview`, {
    status: { userInfo: { username: true, groups: true } },
  }),
  subjectAccessReview: fieldsOf(`${PACKAGES.authorization}SubjectAccessReview`, subjectAccessReview),
  localSubjectAccessReview: fieldsOf(`${PACKAGES.authorization}LocalSubjectAccessReview`, subjectAccessReview),
  selfSubjectAccessReview: fieldsOf(`${PACKAGES.authorization}SelfSubjectAccessReview`, {
    spec: { resourceAttributes },
  }),
  selfSubjectRulesReview: fieldsOf(`${PACKAGES.authorization}SelfSubjectRulesReview`, {
    spec: { namespace: true },
    status: { resourceRules: { apiGroups: true, resources: true, resourceNames: true } },
  }),
} satisfies Record<string, MessageFields>;
