/**
 * The replay plan of an evicted tenant: which cached objects are the tenant's, which are replayed
 * and in what order, and what each body keeps, rule by rule (the restore rules of Velero and
 * Karmada the module's header lists). Inputs are deep-frozen, so a plan that wrote to them throws.
 */
import { expect } from 'chai';
import type { Json } from '../../apiserver/json.js';
import type { CacheResource } from '../../search/cluster-resource-store.js';
import { replayPlan, tenantObjects, type ReplaySource, type ReplayStep } from '../../eviction/tenant-replay.js';

const TENANT = 'abc123';
const NS = 'abc123-shop';

const core = (resource: string, kind: string, namespaced = true): CacheResource => ({
  group: '',
  version: 'v1',
  resource,
  kind,
  namespaced,
});
const CRDS: CacheResource = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
};
const NAMESPACES = core('namespaces', 'Namespace', false);
const PODS = core('pods', 'Pod');
const SERVICES = core('services', 'Service');
const PVCS = core('persistentvolumeclaims', 'PersistentVolumeClaim');
const CONFIGMAPS = core('configmaps', 'ConfigMap');
const SECRETS = core('secrets', 'Secret');
const SERVICEACCOUNTS = core('serviceaccounts', 'ServiceAccount');
const ENDPOINTS = core('endpoints', 'Endpoints');
const EVENTS = core('events', 'Event');
const PERSISTENT_VOLUMES = core('persistentvolumes', 'PersistentVolume', false);
const ENDPOINTSLICES: CacheResource = {
  group: 'discovery.k8s.io',
  version: 'v1',
  resource: 'endpointslices',
  kind: 'EndpointSlice',
  namespaced: true,
};
const EVENTS_K8S: CacheResource = {
  group: 'events.k8s.io',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
};
const DEPLOYMENTS: CacheResource = {
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  kind: 'Deployment',
  namespaced: true,
};
const REPLICASETS: CacheResource = { ...DEPLOYMENTS, resource: 'replicasets', kind: 'ReplicaSet' };
const CLUSTERROLES: CacheResource = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'clusterroles',
  kind: 'ClusterRole',
  namespaced: false,
};
const CRONTABS: CacheResource = {
  group: 'abc123-stable.example.com',
  version: 'v1',
  resource: 'crontabs',
  kind: 'CronTab',
  namespaced: true,
};

const TENANT_LABELS = { 'kubezoo.io/tenant': TENANT, app: 'shop' };

/** Metadata as the old cluster wrote it: what the tenant set, beside what the cluster assigned. */
function upstreamMeta(name: string, namespace?: string, extra: Json = {}): Json {
  return {
    name,
    ...(namespace === undefined ? {} : { namespace }),
    uid: `uid-${name}`,
    resourceVersion: '4711',
    creationTimestamp: '2025-01-01T00:00:00Z',
    generation: 3,
    selfLink: `/whatever/${name}`,
    managedFields: [{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:metadata': {} } }],
    labels: { ...TENANT_LABELS },
    annotations: { 'example.com/note': 'kept' },
    ...extra,
  };
}

/** The metadata a replayed body keeps of upstreamMeta. */
function keptMeta(name: string, namespace?: string, extra: Json = {}): Json {
  return {
    name,
    ...(namespace === undefined ? {} : { namespace }),
    labels: TENANT_LABELS,
    annotations: { 'example.com/note': 'kept' },
    ...extra,
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

function plan(...sources: ReplaySource[]): ReplayStep[] {
  return replayPlan(
    TENANT,
    sources.map((source) => ({ resource: source.resource, objects: deepFreeze([...source.objects]) })),
  );
}

const step = (resource: CacheResource, namespace: string, name: string, body: Json): ReplayStep => ({
  resource,
  namespace,
  name,
  body,
});

describe('eviction: the replay plan of an evicted tenant', () => {
  describe('what each body keeps, rule by rule', () => {
    const controllerRef = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d4f', uid: 'u1', controller: true };
    const plainRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u2' };
    const cases: [title: string, resource: CacheResource, input: Json, expected: ReplayStep[]][] = [
      [
        'assigned metadata and status are dropped; labels (the tenant label too) and annotations kept',
        CONFIGMAPS,
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: upstreamMeta('settings', NS, { finalizers: ['example.com/keep'] }),
          data: { a: '1' },
        },
        [
          step(CONFIGMAPS, NS, 'settings', {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: keptMeta('settings', NS, { finalizers: ['example.com/keep'] }),
            data: { a: '1' },
          }),
        ],
      ],
      [
        'a Deployment: status and generation dropped, spec kept whole',
        DEPLOYMENTS,
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: upstreamMeta('web', NS),
          spec: { replicas: 2, selector: { matchLabels: { app: 'web' } } },
          status: { replicas: 2, readyReplicas: 2, observedGeneration: 3 },
        },
        [
          step(DEPLOYMENTS, NS, 'web', {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: keptMeta('web', NS),
            spec: { replicas: 2, selector: { matchLabels: { app: 'web' } } },
          }),
        ],
      ],
      [
        'a controller-owned Pod is skipped (its ReplicaSet makes it again)',
        PODS,
        { metadata: upstreamMeta('web-5d4f-x7k2p', NS, { ownerReferences: [controllerRef] }), spec: {} },
        [],
      ],
      [
        'a controller-owned ReplicaSet is skipped (its Deployment makes it again)',
        REPLICASETS,
        {
          metadata: upstreamMeta('web-5d4f', NS, {
            ownerReferences: [plainRef, { ...controllerRef, kind: 'Deployment', name: 'web' }],
          }),
        },
        [],
      ],
      [
        'non-controller ownerReferences are dropped (their uids name objects of the old cluster)',
        CONFIGMAPS,
        { metadata: upstreamMeta('child', NS, { ownerReferences: [plainRef, { ...plainRef, controller: false }] }) },
        [step(CONFIGMAPS, NS, 'child', { apiVersion: 'v1', kind: 'ConfigMap', metadata: keptMeta('child', NS) })],
      ],
      [
        'an object being deleted is skipped',
        CONFIGMAPS,
        {
          metadata: upstreamMeta('going', NS, {
            deletionTimestamp: '2025-01-02T00:00:00Z',
            deletionGracePeriodSeconds: 0,
            finalizers: ['example.com/cleanup'],
          }),
        },
        [],
      ],
      [
        'deletionGracePeriodSeconds without a deletionTimestamp is dropped, the object replayed',
        CONFIGMAPS,
        { metadata: upstreamMeta('odd', NS, { deletionGracePeriodSeconds: 30 }) },
        [step(CONFIGMAPS, NS, 'odd', { apiVersion: 'v1', kind: 'ConfigMap', metadata: keptMeta('odd', NS) })],
      ],
      [
        "a namespace's ServiceAccount default is skipped (the new cluster makes it)",
        SERVICEACCOUNTS,
        { metadata: upstreamMeta('default', NS) },
        [],
      ],
      [
        'another ServiceAccount is replayed',
        SERVICEACCOUNTS,
        { metadata: upstreamMeta('builder', NS), secrets: [{ name: 'builder-token' }] },
        [
          step(SERVICEACCOUNTS, NS, 'builder', {
            apiVersion: 'v1',
            kind: 'ServiceAccount',
            metadata: keptMeta('builder', NS),
            secrets: [{ name: 'builder-token' }],
          }),
        ],
      ],
      [
        'the ConfigMap kube-root-ca.crt is skipped (the new cluster publishes its own)',
        CONFIGMAPS,
        { metadata: upstreamMeta('kube-root-ca.crt', NS), data: { 'ca.crt': 'old CA' } },
        [],
      ],
      [
        'a service-account token Secret is skipped (the new cluster signs its own)',
        SECRETS,
        { metadata: upstreamMeta('builder-token', NS), type: 'kubernetes.io/service-account-token', data: {} },
        [],
      ],
      [
        'an Opaque Secret is replayed with its data',
        SECRETS,
        { metadata: upstreamMeta('db', NS), type: 'Opaque', data: { password: 'aHVudGVyMg==' } },
        [
          step(SECRETS, NS, 'db', {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: keptMeta('db', NS),
            type: 'Opaque',
            data: { password: 'aHVudGVyMg==' },
          }),
        ],
      ],
      [
        'Endpoints are skipped (made from Services)',
        ENDPOINTS,
        { metadata: upstreamMeta('web', NS), subsets: [{ addresses: [{ ip: '10.1.2.3' }] }] },
        [],
      ],
      [
        'EndpointSlices are skipped (made from Services)',
        ENDPOINTSLICES,
        { metadata: upstreamMeta('web-abcde', NS), addressType: 'IPv4', endpoints: [] },
        [],
      ],
      ['core Events are skipped', EVENTS, { metadata: upstreamMeta('web.17f', NS), reason: 'Scheduled' }, []],
      [
        'events.k8s.io Events are skipped',
        EVENTS_K8S,
        { metadata: upstreamMeta('web.17f', NS), reason: 'Scheduled' },
        [],
      ],
      [
        'a Service: allocated cluster IPs, health check node port and node ports dropped',
        SERVICES,
        {
          metadata: upstreamMeta('web', NS),
          spec: {
            type: 'LoadBalancer',
            selector: { app: 'web' },
            clusterIP: '10.96.0.17',
            clusterIPs: ['10.96.0.17', 'fd00::17'],
            ipFamilies: ['IPv4', 'IPv6'],
            externalTrafficPolicy: 'Local',
            healthCheckNodePort: 31999,
            ports: [
              { name: 'http', port: 80, targetPort: 8080, nodePort: 30080 },
              { name: 'https', port: 443, targetPort: 8443, nodePort: 30443 },
            ],
          },
          status: { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } },
        },
        [
          step(SERVICES, NS, 'web', {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: keptMeta('web', NS),
            spec: {
              type: 'LoadBalancer',
              selector: { app: 'web' },
              ipFamilies: ['IPv4', 'IPv6'],
              externalTrafficPolicy: 'Local',
              ports: [
                { name: 'http', port: 80, targetPort: 8080 },
                { name: 'https', port: 443, targetPort: 8443 },
              ],
            },
          }),
        ],
      ],
      [
        'a headless Service keeps clusterIP None',
        SERVICES,
        {
          metadata: upstreamMeta('db', NS),
          spec: { clusterIP: 'None', clusterIPs: ['None'], selector: { app: 'db' }, ports: [{ port: 5432 }] },
        },
        [
          step(SERVICES, NS, 'db', {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: keptMeta('db', NS),
            spec: { clusterIP: 'None', clusterIPs: ['None'], selector: { app: 'db' }, ports: [{ port: 5432 }] },
          }),
        ],
      ],
      [
        'a bare Pod: nodeName dropped (a node of the old cluster), the rest of the spec kept',
        PODS,
        {
          metadata: upstreamMeta('debug', NS),
          spec: { nodeName: 'old-node-3', containers: [{ name: 'c', image: 'busybox' }] },
          status: { phase: 'Running', podIP: '10.1.2.3' },
        },
        [
          step(PODS, NS, 'debug', {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: keptMeta('debug', NS),
            spec: { containers: [{ name: 'c', image: 'busybox' }] },
          }),
        ],
      ],
      [
        'a PersistentVolumeClaim: its volume and binding annotations dropped, other annotations kept',
        PVCS,
        {
          metadata: upstreamMeta('data', NS, {
            annotations: {
              'example.com/note': 'kept',
              'pv.kubernetes.io/bind-completed': 'yes',
              'pv.kubernetes.io/bound-by-controller': 'yes',
              'volume.kubernetes.io/selected-node': 'old-node-3',
            },
          }),
          spec: {
            accessModes: ['ReadWriteOnce'],
            resources: { requests: { storage: '1Gi' } },
            storageClassName: 'standard',
            volumeName: 'pvc-0f3e',
          },
          status: { phase: 'Bound', capacity: { storage: '1Gi' } },
        },
        [
          step(PVCS, NS, 'data', {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: keptMeta('data', NS),
            spec: {
              accessModes: ['ReadWriteOnce'],
              resources: { requests: { storage: '1Gi' } },
              storageClassName: 'standard',
            },
          }),
        ],
      ],
      [
        'a custom object of a tenant CRD: its status dropped, spec kept',
        CRONTABS,
        {
          apiVersion: 'abc123-stable.example.com/v1',
          kind: 'CronTab',
          metadata: upstreamMeta('nightly', NS),
          spec: { cronSpec: '0 3 * * *' },
          status: { lastRun: 'yesterday' },
        },
        [
          step(CRONTABS, NS, 'nightly', {
            apiVersion: 'abc123-stable.example.com/v1',
            kind: 'CronTab',
            metadata: keptMeta('nightly', NS),
            spec: { cronSpec: '0 3 * * *' },
          }),
        ],
      ],
      [
        'a Namespace: status dropped, its name and labels kept',
        NAMESPACES,
        { metadata: upstreamMeta(NS), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
        [
          step(NAMESPACES, '', NS, {
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: keptMeta(NS),
            spec: { finalizers: ['kubernetes'] },
          }),
        ],
      ],
      [
        'apiVersion and kind filled from a core resource when absent (the cache leaves them out)',
        CONFIGMAPS,
        { metadata: upstreamMeta('bare', NS) },
        [step(CONFIGMAPS, NS, 'bare', { apiVersion: 'v1', kind: 'ConfigMap', metadata: keptMeta('bare', NS) })],
      ],
      [
        'apiVersion and kind filled as group/version for a named group',
        CLUSTERROLES,
        { metadata: upstreamMeta('abc123-reader'), rules: [] },
        [
          step(CLUSTERROLES, '', 'abc123-reader', {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRole',
            metadata: keptMeta('abc123-reader'),
            rules: [],
          }),
        ],
      ],
      [
        'an apiVersion the object carries is kept',
        DEPLOYMENTS,
        { apiVersion: 'apps/v1beta2', kind: 'Deployment', metadata: upstreamMeta('old', NS), spec: {} },
        [
          step(DEPLOYMENTS, NS, 'old', {
            apiVersion: 'apps/v1beta2',
            kind: 'Deployment',
            metadata: keptMeta('old', NS),
            spec: {},
          }),
        ],
      ],
    ];
    for (const [title, resource, input, expected] of cases)
      it(title, () => expect(plan({ resource, objects: [input] })).to.deep.equal(expected));
  });

  describe('whose objects', () => {
    const crd = (group: string) => ({
      metadata: upstreamMeta(`crontabs.${group}`),
      spec: { group, names: { plural: 'crontabs', kind: 'CronTab' }, scope: 'Namespaced', versions: [] },
    });
    const sources: ReplaySource[] = [
      {
        resource: CONFIGMAPS,
        objects: [
          { metadata: upstreamMeta('mine', NS) },
          { metadata: upstreamMeta('theirs', 'abc124-shop') },
          { metadata: upstreamMeta('lookalike', 'abc123x-shop') },
          { metadata: upstreamMeta('system', 'kube-system') },
        ],
      },
      {
        resource: NAMESPACES,
        objects: [
          { metadata: upstreamMeta(NS) },
          { metadata: upstreamMeta('abc124-shop') },
          { metadata: upstreamMeta('abc123x-shop') },
          { metadata: upstreamMeta('default') },
        ],
      },
      {
        resource: CRDS,
        objects: [
          crd('abc123-stable.example.com'),
          crd('abc124-stable.example.com'),
          crd('abc123x-stable.example.com'),
          crd('stable.example.com'),
          // Named as the tenant's but of another group: the group decides.
          { metadata: upstreamMeta('crontabs.abc123-fake.example.com'), spec: { group: 'fake.example.com' } },
        ],
      },
      {
        resource: PERSISTENT_VOLUMES,
        objects: [
          { metadata: upstreamMeta('abc123-pv'), spec: {} },
          { metadata: upstreamMeta('abc124-pv'), spec: {} },
          { metadata: upstreamMeta('pvc-0f3e'), spec: {} },
        ],
      },
    ];

    it("tenantObjects keeps the tenant's prefix, dash included, and nothing of another tenant", () => {
      const names = sources.map((source) => tenantObjects(TENANT, source).map((object) => object.metadata.name));
      expect(names).to.deep.equal([['mine'], [NS], ['crontabs.abc123-stable.example.com'], ['abc123-pv']]);
    });

    it('the plan has the same objects, and the other tenant gets its own', () => {
      const keys = (tenantId: string) =>
        replayPlan(tenantId, sources).map(({ namespace, name }) => (namespace ? `${namespace}/${name}` : name));
      expect(keys(TENANT)).to.deep.equal(['crontabs.abc123-stable.example.com', NS, `${NS}/mine`, 'abc123-pv']);
      expect(keys('abc124')).to.deep.equal([
        'crontabs.abc124-stable.example.com',
        'abc124-shop',
        'abc124-shop/theirs',
        'abc124-pv',
      ]);
    });

    it('values that are not objects with metadata belong to no tenant', () => {
      const objects = [null, 'abc123-x', [{ metadata: { name: 'abc123-x' } }], { name: 'abc123-x' }];
      expect(tenantObjects(TENANT, { resource: PERSISTENT_VOLUMES, objects })).to.deep.equal([]);
    });
  });

  describe('order', () => {
    const meta = (name: string, namespace?: string) => ({ metadata: { name, ...(namespace ? { namespace } : {}) } });
    it('CRDs, then namespaces, then ServiceAccounts, then the rest by resource as given and each by key', () => {
      const steps = plan(
        { resource: PODS, objects: [meta('b', 'abc123-b'), meta('a', 'abc123-b'), meta('z', 'abc123-a')] },
        { resource: SERVICEACCOUNTS, objects: [meta('robot', 'abc123-b')] },
        { resource: CRONTABS, objects: [meta('nightly', 'abc123-a')] },
        { resource: NAMESPACES, objects: [meta('abc123-b'), meta('abc123-a')] },
        { resource: CLUSTERROLES, objects: [meta('abc123-writer'), meta('abc123-reader')] },
        {
          resource: CRDS,
          objects: [
            { ...meta('widgets.abc123-b.example.com'), spec: { group: 'abc123-b.example.com' } },
            { ...meta('crontabs.abc123-stable.example.com'), spec: { group: 'abc123-stable.example.com' } },
          ],
        },
        { resource: CONFIGMAPS, objects: [meta('settings', 'abc123-a')] },
      );
      expect(steps.map(({ resource, namespace, name }) => [resource.resource, namespace, name])).to.deep.equal([
        ['customresourcedefinitions', '', 'crontabs.abc123-stable.example.com'],
        ['customresourcedefinitions', '', 'widgets.abc123-b.example.com'],
        ['namespaces', '', 'abc123-a'],
        ['namespaces', '', 'abc123-b'],
        ['serviceaccounts', 'abc123-b', 'robot'],
        ['pods', 'abc123-a', 'z'],
        ['pods', 'abc123-b', 'a'],
        ['pods', 'abc123-b', 'b'],
        ['crontabs', 'abc123-a', 'nightly'],
        ['clusterroles', '', 'abc123-reader'],
        ['clusterroles', '', 'abc123-writer'],
        ['configmaps', 'abc123-a', 'settings'],
      ]);
    });

    it('by the key string `namespace/name`, as the cache orders its keys', () => {
      // By namespace, then name, `abc123-a` (a prefix of `abc123-a-x`) would come first; as keys '-' < '/'.
      const steps = plan({ resource: CONFIGMAPS, objects: [meta('a', 'abc123-a-x'), meta('z', 'abc123-a')] });
      expect(steps.map(({ namespace, name }) => `${namespace}/${name}`)).to.deep.equal(['abc123-a-x/a', 'abc123-a/z']);
    });
  });

  describe('the inputs', () => {
    it('are not changed, and the bodies share nothing with them', () => {
      const service = {
        metadata: upstreamMeta('web', NS, { ownerReferences: [{ kind: 'X', name: 'x', uid: 'u' }] }),
        spec: { clusterIP: '10.96.0.17', clusterIPs: ['10.96.0.17'], ports: [{ port: 80, nodePort: 30080 }] },
        status: { loadBalancer: {} },
      };
      const pvc = {
        metadata: upstreamMeta('data', NS, { annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } }),
        spec: { volumeName: 'pvc-0f3e' },
      };
      const pod = { metadata: upstreamMeta('debug', NS), spec: { nodeName: 'old-node-3' } };
      const inputs = [service, pvc, pod];
      const before = structuredClone(inputs);
      const steps = replayPlan(TENANT, [
        { resource: SERVICES, objects: [service] },
        { resource: PVCS, objects: [pvc] },
        { resource: PODS, objects: [pod] },
      ]);
      expect(steps).to.have.length(3);
      expect(inputs).to.deep.equal(before);
      for (const { body } of steps) {
        body.metadata.labels.app = 'changed';
        body.spec.changed = true;
      }
      expect(inputs).to.deep.equal(before);
    });
  });
});
