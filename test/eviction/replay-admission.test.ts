/**
 * What a failover replays of a tenant, object by object (eviction/replay-admission.ts): the
 * tenant's own objects are written as its own creates would be (cluster-scoped ones with the
 * gateway's credentials, namespaced ones as its administrator), unchanged by the round through
 * its view; the gateway's grants are made again rather than copied; whatever the tenant's own
 * write would be refused — planted upstream past the gateway — is skipped, saying why.
 */
import { expect } from 'chai';
import type { Json } from '../../apiserver/json.js';
import type { CacheResource } from '../../search/cluster-resource-store.js';
import { admitReplay, replayKindScope, type ReplayAdmission } from '../../eviction/replay-admission.js';
import type { ReplayStep } from '../../eviction/tenant-replay.js';
import { tenantContext } from '../../translate/context.js';

const T = 'abc123';
const OTHER = 'xyz789';
const NS = `${T}-shop`;
const RBAC = 'rbac.authorization.k8s.io';
const TENANT_LABEL = 'kubezoo.io/tenant';

const resource = (group: string, resource: string, kind: string, namespaced: boolean): CacheResource => ({
  group,
  version: 'v1',
  resource,
  kind,
  namespaced,
});
const CONFIGMAPS = resource('', 'configmaps', 'ConfigMap', true);
const PODS = resource('', 'pods', 'Pod', true);
const NAMESPACES = resource('', 'namespaces', 'Namespace', false);
const NODES = resource('', 'nodes', 'Node', false);
const PERSISTENT_VOLUMES = resource('', 'persistentvolumes', 'PersistentVolume', false);
const ROLEBINDINGS = resource(RBAC, 'rolebindings', 'RoleBinding', true);
const CLUSTERROLES = resource(RBAC, 'clusterroles', 'ClusterRole', false);
const CLUSTERROLEBINDINGS = resource(RBAC, 'clusterrolebindings', 'ClusterRoleBinding', false);
const CRDS = resource('apiextensions.k8s.io', 'customresourcedefinitions', 'CustomResourceDefinition', false);
const CRONTABS = resource(`${T}-stable.example.com`, 'crontabs', 'CronTab', true);
const GADGETS = resource(`${T}-stable.example.com`, 'gadgets', 'Gadget', false);
const OTHER_CRONTABS = resource(`${OTHER}-stable.example.com`, 'crontabs', 'CronTab', true);
const KARMADA_CLUSTERS = resource('cluster.karmada.io', 'clusters', 'Cluster', false);

const ctx = tenantContext(
  T,
  replayKindScope(T, [
    CONFIGMAPS,
    PODS,
    NAMESPACES,
    NODES,
    PERSISTENT_VOLUMES,
    ROLEBINDINGS,
    CLUSTERROLES,
    CLUSTERROLEBINDINGS,
    CRDS,
    CRONTABS,
    GADGETS,
    OTHER_CRONTABS,
    KARMADA_CLUSTERS,
  ]),
);

/** A step as replayPlan makes it: the old cluster's object with its type, what the cluster assigned gone. */
function step(of: CacheResource, metadata: Json, rest: Json = {}): ReplayStep {
  const apiVersion = of.group ? `${of.group}/${of.version}` : of.version;
  return {
    resource: of,
    namespace: of.namespaced ? metadata.namespace : '',
    name: metadata.name,
    body: { apiVersion, kind: of.kind, metadata, ...rest },
  };
}

const roleBinding = (name: string, role: string, subjects: Json[]) =>
  step(
    ROLEBINDINGS,
    { name, namespace: NS },
    { roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role }, subjects },
  );
const user = (name: string) => ({ apiGroup: RBAC, kind: 'User', name });
const group = (name: string) => ({ apiGroup: RBAC, kind: 'Group', name });

/** Written unchanged, to this path, as this identity. */
const written = (as: 'gateway' | 'tenant-admin', path: string) => ({ verdict: 'write', as, path });

const CASES: [string, ReplayStep, { verdict: string; as?: string; path?: string; reason?: RegExp }][] = [
  [
    'a ConfigMap in a tenant namespace: as the tenant administrator',
    step(CONFIGMAPS, { name: 'settings', namespace: NS, labels: { app: 'shop' } }, { data: { a: '1' } }),
    written('tenant-admin', `/api/v1/namespaces/${NS}/configmaps`),
  ],
  [
    'a tenant Namespace: with the gateway credentials',
    step(NAMESPACES, { name: NS, labels: { [TENANT_LABEL]: T, 'kubernetes.io/metadata.name': NS } }),
    written('gateway', '/api/v1/namespaces'),
  ],
  [
    "a CRD of the tenant's group: with the gateway credentials",
    step(
      CRDS,
      { name: `crontabs.${T}-stable.example.com` },
      {
        spec: {
          group: `${T}-stable.example.com`,
          names: { plural: 'crontabs', kind: 'CronTab' },
          scope: 'Namespaced',
          versions: [{ name: 'v1', served: true, storage: true }],
        },
      },
    ),
    written('gateway', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'),
  ],
  [
    "a namespaced custom object of the tenant's CRD: as the tenant administrator",
    step(CRONTABS, { name: 'nightly', namespace: NS }, { spec: { schedule: '@daily' } }),
    written('tenant-admin', `/apis/${T}-stable.example.com/v1/namespaces/${NS}/crontabs`),
  ],
  [
    "a cluster-scoped custom object of the tenant's CRD: with the gateway credentials",
    step(GADGETS, { name: `${T}-g1` }, { size: 3 }),
    written('gateway', `/apis/${T}-stable.example.com/v1/gadgets`),
  ],
  [
    "the tenant's ClusterRole: with the gateway credentials",
    step(
      CLUSTERROLES,
      { name: `${T}-reader`, labels: { [TENANT_LABEL]: T } },
      { rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] },
    ),
    written('gateway', `/apis/${RBAC}/v1/clusterroles`),
  ],
  [
    "the tenant's dormant ClusterRoleBinding: with the gateway credentials",
    step(
      CLUSTERROLEBINDINGS,
      { name: `${T}-readers` },
      { roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: `${T}:reader` }, subjects: [user(`${T}-bob`)] },
    ),
    // One made before they were stored as RoleBindings goes where they are stored now.
    written('gateway', `/apis/${RBAC}/v1/namespaces/${T}-kube-system/rolebindings`),
  ],
  [
    "the tenant's ClusterRoleBinding as stored, a RoleBinding in its kube-system: with the gateway credentials",
    step(
      ROLEBINDINGS,
      {
        name: 'paddock.clusterrolebinding:readers',
        namespace: `${T}-kube-system`,
        labels: { 'kubezoo.io/cluster-role-binding-of': T },
      },
      { roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: `${T}:reader` }, subjects: [user(`${T}-bob`)] },
    ),
    written('gateway', `/apis/${RBAC}/v1/namespaces/${T}-kube-system/rolebindings`),
  ],
  [
    "a stored ClusterRoleBinding naming another tenant's user",
    step(
      ROLEBINDINGS,
      {
        name: 'paddock.clusterrolebinding:readers',
        namespace: `${T}-kube-system`,
        labels: { 'kubezoo.io/cluster-role-binding-of': T },
      },
      { roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: `${T}:reader` }, subjects: [user('other1-bob')] },
    ),
    { verdict: 'skip', reason: /not the tenant's|must be one of the tenant's/ },
  ],
  [
    "a RoleBinding of the tenant's role to its own user: as the tenant administrator",
    roleBinding('readers', `${T}-reader`, [user(`${T}-bob`), group(`${T}-system:authenticated`)]),
    written('tenant-admin', `/apis/${RBAC}/v1/namespaces/${NS}/rolebindings`),
  ],
  [
    "one of the gateway's grants: made again, not copied",
    step(
      ROLEBINDINGS,
      { name: 'paddock:cluster-admin', namespace: NS, labels: { [TENANT_LABEL]: T } },
      { roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: `${T}-cluster-admin` }, subjects: [user(`${T}-admin`)] },
    ),
    { verdict: 'remake' },
  ],
  [
    "a RoleBinding of the cluster's cluster-admin to every authenticated user",
    roleBinding('open-door', 'cluster-admin', [group('system:authenticated')]),
    { verdict: 'skip', reason: /not the tenant's/ },
  ],
  [
    "a RoleBinding of the tenant's role to every authenticated user of the cluster",
    roleBinding('wide', `${T}-cluster-admin`, [user(`${T}-bob`), group('system:authenticated')]),
    { verdict: 'skip', reason: /subjects\[1\]: must be one of the tenant's users, groups or service accounts/ },
  ],
  [
    "a RoleBinding of another tenant's role",
    roleBinding('borrowed', `${OTHER}-cluster-admin`, [user(`${T}-bob`)]),
    { verdict: 'skip', reason: /not the tenant's/ },
  ],
  [
    "a RoleBinding granting another tenant's ServiceAccount",
    roleBinding('guest', `${T}-cluster-admin`, [{ kind: 'ServiceAccount', namespace: `${OTHER}-default`, name: 'x' }]),
    { verdict: 'skip', reason: /subjects\[0\]/ },
  ],
  [
    "a Pod of the cluster's own priority class",
    step(
      PODS,
      { name: 'critical', namespace: NS },
      { spec: { priorityClassName: 'system-node-critical', containers: [{ name: 'c', image: 'nginx' }] } },
    ),
    { verdict: 'skip', reason: /spec\.priorityClassName/ },
  ],
  [
    "a ClusterRole that aggregates into the cluster's admin role",
    step(
      CLUSTERROLES,
      {
        name: `${T}-sneaky`,
        labels: { [TENANT_LABEL]: T, 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' },
      },
      { rules: [] },
    ),
    { verdict: 'skip', reason: /aggregate-to-/ },
  ],
  [
    "a PersistentVolume bound to a claim of another tenant's namespace",
    step(
      PERSISTENT_VOLUMES,
      { name: `${T}-pv` },
      { spec: { claimRef: { kind: 'PersistentVolumeClaim', namespace: `${OTHER}-data`, name: 'c' } } },
    ),
    { verdict: 'skip', reason: /spec\.claimRef/ },
  ],
  [
    "a custom object of another tenant's CRD in the tenant's namespace",
    step(OTHER_CRONTABS, { name: 'foreign', namespace: NS }, { spec: {} }),
    { verdict: 'skip', reason: /not the tenant's/ },
  ],
  [
    'a Node named with the tenant prefix: shared and read-only',
    step(NODES, { name: `${T}-node` }),
    { verdict: 'skip', reason: /shared by all tenants and read-only/ },
  ],
  [
    "an object of an admin's API group named with the tenant prefix",
    step(KARMADA_CLUSTERS, { name: `${T}-member` }),
    { verdict: 'skip', reason: /not the tenant's/ },
  ],
];

describe('eviction: what a failover replays of a tenant, object by object (replay-admission.ts)', () => {
  for (const [title, input, expected] of CASES) {
    it(title, () => {
      const frozen = structuredClone(input.body);
      const admission: ReplayAdmission = admitReplay(ctx, input);
      expect(input.body, 'the step is left as it was').to.deep.equal(frozen);
      expect(admission.verdict).to.equal(expected.verdict);
      if (admission.verdict === 'skip') expect(admission.reason).to.match(expected.reason!);
      if (admission.verdict !== 'write') return;
      expect({ verdict: admission.verdict, as: admission.as, path: admission.path }).to.deep.equal(expected);
      // The tenant's create of what it sees of the object stores it as it was (a ClusterRoleBinding where they are stored).
      const stored =
        input.resource.resource === 'clusterrolebindings'
          ? {
              ...input.body,
              kind: 'RoleBinding',
              metadata: {
                name: 'paddock.clusterrolebinding:readers',
                namespace: `${T}-kube-system`,
                labels: { 'kubezoo.io/cluster-role-binding-of': T },
              },
            }
          : input.body;
      expect(admission.body).to.deep.equal(stored);
    });
  }
});
