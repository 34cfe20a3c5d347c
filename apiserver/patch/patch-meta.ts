/**
 * Strategic-merge-patch metadata of the built-in kinds: the `patchStrategy` and `patchMergeKey`
 * struct tags of k8s.io/api, as a tree of JSON field names. Fields absent from a tree have no tags:
 * their maps are merged and their lists replaced. Tags are the same in every version of a kind, so
 * the table is keyed by group and kind only.
 */

export type PatchStrategy = 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';

export interface FieldPatchMeta {
  readonly strategy?: PatchStrategy;
  /** The item field that identifies an item of a merged list of objects. */
  readonly mergeKey?: string;
  /** Metadata of the field's own fields, or of each item's fields when the field is a list. */
  readonly fields?: PatchMetaTree;
}

export interface PatchMetaTree {
  readonly [field: string]: FieldPatchMeta;
}

function mergedBy(mergeKey: string, fields?: PatchMetaTree): FieldPatchMeta {
  return fields ? { strategy: 'merge', mergeKey, fields } : { strategy: 'merge', mergeKey };
}

const mergedSet: FieldPatchMeta = { strategy: 'merge' };
const conditions = mergedBy('type');

const objectMeta: PatchMetaTree = {
  ownerReferences: mergedBy('uid'),
  finalizers: mergedSet,
};

const container: PatchMetaTree = {
  ports: mergedBy('containerPort'),
  env: mergedBy('name'),
  volumeMounts: mergedBy('mountPath'),
  volumeDevices: mergedBy('devicePath'),
};

const podSpec: PatchMetaTree = {
  volumes: { strategy: 'merge,retainKeys', mergeKey: 'name' },
  initContainers: mergedBy('name', container),
  containers: mergedBy('name', container),
  ephemeralContainers: mergedBy('name', container),
  imagePullSecrets: mergedBy('name'),
  hostAliases: mergedBy('ip'),
  topologySpreadConstraints: mergedBy('topologyKey'),
  schedulingGates: mergedBy('name'),
  resourceClaims: { strategy: 'merge,retainKeys', mergeKey: 'name' },
};

const podTemplateSpec: FieldPatchMeta = { fields: { metadata: { fields: objectMeta }, spec: { fields: podSpec } } };

/** A kind's tree: its own fields plus the ObjectMeta every kind has. */
function kind(fields: PatchMetaTree): PatchMetaTree {
  return { metadata: { fields: objectMeta }, ...fields };
}

/** A workload whose spec holds a pod template, and whose status holds conditions. */
function workload(specFields: PatchMetaTree = {}): PatchMetaTree {
  return kind({
    spec: { fields: { template: podTemplateSpec, ...specFields } },
    status: { fields: { conditions } },
  });
}

/** A kind whose only tagged fields, ObjectMeta's aside, are its status conditions. */
function withConditions(): PatchMetaTree {
  return kind({ status: { fields: { conditions } } });
}

const builtinKinds = new Map<string, PatchMetaTree>([
  [
    'core/Pod',
    kind({
      spec: { fields: podSpec },
      status: {
        fields: {
          conditions,
          podIPs: mergedBy('ip'),
          hostIPs: mergedBy('ip'),
          resourceClaimStatuses: { strategy: 'merge,retainKeys', mergeKey: 'name' },
        },
      },
    }),
  ],
  ['core/PodTemplate', kind({ template: podTemplateSpec })],
  ['core/ReplicationController', workload()],
  ['core/Service', kind({ spec: { fields: { ports: mergedBy('port') } }, status: { fields: { conditions } } })],
  ['core/ServiceAccount', kind({ secrets: mergedBy('name') })],
  [
    'core/Node',
    kind({
      spec: { fields: { podCIDRs: mergedSet } },
      status: { fields: { conditions, addresses: mergedBy('type') } },
    }),
  ],
  ['core/Namespace', withConditions()],
  ['core/PersistentVolumeClaim', withConditions()],
  ['apps/Deployment', workload({ strategy: { strategy: 'retainKeys' } })],
  ['apps/ReplicaSet', workload()],
  ['apps/StatefulSet', workload()],
  ['apps/DaemonSet', workload()],
  ['batch/Job', workload()],
  [
    'batch/CronJob',
    kind({
      spec: {
        fields: {
          jobTemplate: {
            fields: { metadata: { fields: objectMeta }, spec: { fields: { template: podTemplateSpec } } },
          },
        },
      },
    }),
  ],
  ['autoscaling/HorizontalPodAutoscaler', withConditions()],
  ['policy/PodDisruptionBudget', withConditions()],
  ['admissionregistration.k8s.io/MutatingWebhookConfiguration', kind({ webhooks: mergedBy('name') })],
  ['admissionregistration.k8s.io/ValidatingWebhookConfiguration', kind({ webhooks: mergedBy('name') })],
  ['storage.k8s.io/CSINode', kind({ spec: { fields: { drivers: mergedBy('name') } } })],
]);

/** Kinds without tagged fields of their own, such as ConfigMap and Secret, still have ObjectMeta's. */
const untaggedKind = kind({});

/** The metadata tree of a built-in kind; the core group is the empty string. */
export function patchMetaFor(group: string, kindName: string): PatchMetaTree {
  return builtinKinds.get(`${group || 'core'}/${kindName}`) ?? untaggedKind;
}
