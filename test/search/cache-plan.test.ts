/**
 * The cache plan against Karmada's proxy controller cases (pkg/search/proxy/controller_test.go
 * TestController_reconcile) and the facts of its reconcile and UpdateCache: readiness, API
 * enablement, namespaces, cluster-scoped kinds, registered resources, and plan changes.
 */
import { expect } from 'chai';
import { ResourceCatalog } from '../../apiserver/catalog.js';
import { BUILTIN_RESOURCES } from '../../apiserver/resources/builtin.js';
import {
  computeCachePlan,
  resourceKey,
  type PlannedNamespaces,
  type CachePlan,
  type PlanCluster,
  type ScopeLookup,
} from '../../search/cache-plan.js';
import type { ResourceRegistry, ResourceSelector } from '../../search/resource-registry.js';
import type { ClusterAffinity } from '../../clusters/cluster-affinity.js';

const builtins = new ResourceCatalog(BUILTIN_RESOURCES);
const builtinScope: ScopeLookup = (group, version, resource) => builtins.lookup(group, version, resource)?.namespaced;

const CORE_APIS = {
  groupVersion: 'v1',
  resources: [
    { name: 'nodes', kind: 'Node' },
    { name: 'pods', kind: 'Pod' },
    { name: 'pods/status', kind: 'Pod' },
    { name: 'secrets', kind: 'Secret' },
  ],
};
const APPS_APIS = { groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }] };

/** Karmada's newCluster: Ready, with pods and nodes enabled. */
function cluster(
  name: string,
  options: {
    ready?: string | null;
    apis?: NonNullable<PlanCluster['status']>['apiEnablements'];
    complete?: boolean;
    labels?: Record<string, string>;
    spec?: PlanCluster['spec'];
  } = {},
): PlanCluster {
  const conditions = [];
  if (options.ready !== null) conditions.push({ type: 'Ready', status: options.ready ?? 'True' });
  if (options.complete !== undefined)
    conditions.push({ type: 'CompleteAPIEnablements', status: options.complete ? 'True' : 'False' });
  return {
    metadata: { name, labels: options.labels },
    spec: options.spec,
    status: { conditions, apiEnablements: options.apis ?? [CORE_APIS] },
  };
}

function registry(
  name: string,
  targetCluster: ClusterAffinity,
  ...resourceSelectors: ResourceSelector[]
): ResourceRegistry {
  return { metadata: { name }, spec: { targetCluster, resourceSelectors } };
}

const POD: ResourceSelector = { apiVersion: 'v1', kind: 'Pod' };
const NODE: ResourceSelector = { apiVersion: 'v1', kind: 'Node' };
const POD_NS1: ResourceSelector = { apiVersion: 'v1', kind: 'Pod', namespace: 'ns1' };
const POD_NS2: ResourceSelector = { apiVersion: 'v1', kind: 'Pod', namespace: 'ns2' };

/** The plan as cluster → resource → namespaces, the shape Karmada's test compares. */
function summary(plan: CachePlan): Record<string, Record<string, PlannedNamespaces>> {
  const out: Record<string, Record<string, PlannedNamespaces>> = {};
  for (const [name, stores] of plan.clusters) {
    out[name] = {};
    for (const store of stores.values()) out[name][store.resource.resource] = store.namespaces;
  }
  return out;
}

function plan(clusters: PlanCluster[], registries: ResourceRegistry[], scopeOf = builtinScope): CachePlan {
  return computeCachePlan(clusters, registries, scopeOf);
}

describe('cache: the cache plan (Karmada proxy controller reconcile)', () => {
  describe("Karmada's TestController_reconcile cases", () => {
    const cases: [string, PlanCluster[], ResourceRegistry[], Record<string, Record<string, PlannedNamespaces>>][] = [
      ['all empty', [], [], {}],
      [
        'resource registered, while cluster not registered',
        [],
        [registry('rr1', { clusterNames: ['cluster1'] }, POD)],
        {},
      ],
      [
        'pod and node are registered',
        [cluster('cluster1'), cluster('cluster2')],
        [registry('rr1', { clusterNames: ['cluster1', 'cluster2'] }, POD, NODE)],
        { cluster1: { pods: 'all', nodes: 'all' }, cluster2: { pods: 'all', nodes: 'all' } },
      ],
      [
        'register pod in cluster1, register node in cluster2',
        [cluster('cluster1'), cluster('cluster2')],
        [registry('rr1', { clusterNames: ['cluster1'] }, POD), registry('rr2', { clusterNames: ['cluster2'] }, NODE)],
        { cluster1: { pods: 'all' }, cluster2: { nodes: 'all' } },
      ],
      [
        'register pod,node in cluster1, register node in cluster2',
        [cluster('cluster1'), cluster('cluster2')],
        [
          registry('rr1', { clusterNames: ['cluster1'] }, POD, NODE),
          registry('rr2', { clusterNames: ['cluster2'] }, NODE),
        ],
        { cluster1: { pods: 'all', nodes: 'all' }, cluster2: { nodes: 'all' } },
      ],
      [
        'register pod twice in one ResourceRegistry',
        [cluster('cluster1'), cluster('cluster2')],
        [registry('rr1', { clusterNames: ['cluster1'] }, POD, POD)],
        { cluster1: { pods: 'all' } },
      ],
      [
        'register pod twice in two ResourceRegistries',
        [cluster('cluster1'), cluster('cluster2')],
        [registry('rr1', { clusterNames: ['cluster1'] }, POD), registry('rr2', { clusterNames: ['cluster1'] }, POD)],
        { cluster1: { pods: 'all' } },
      ],
      [
        'GetGroupVersionResource error shall be ignored',
        [cluster('cluster1')],
        [registry('rr1', { clusterNames: ['cluster1'] }, { apiVersion: 'test.nonexist.group', kind: 'nonexist' })],
        {},
      ],
      [
        'register pod twice in two ResourceRegistries with different namespace',
        [cluster('cluster1'), cluster('cluster2')],
        [
          registry('rr1', { clusterNames: ['cluster1'] }, POD_NS1),
          registry('rr2', { clusterNames: ['cluster1'] }, POD_NS2),
        ],
        { cluster1: { pods: ['ns1', 'ns2'] } },
      ],
    ];
    for (const [title, clusters, registries, want] of cases) {
      it(title, () => expect(summary(plan(clusters, registries))).to.deep.equal(want));
    }
  });

  describe('which clusters', () => {
    it('only those the targetCluster matches: labels, fields and exclusion', () => {
      const clusters = [
        cluster('eu1', { labels: { env: 'prod' }, spec: { region: 'eu', zones: ['eu-a'] } }),
        cluster('eu2', { labels: { env: 'dev' }, spec: { region: 'eu' } }),
        cluster('us1', { labels: { env: 'prod' }, spec: { region: 'us' } }),
      ];
      const target: ClusterAffinity = {
        labelSelector: { matchLabels: { env: 'prod' } },
        fieldSelector: { matchExpressions: [{ key: 'region', operator: 'In', values: ['eu', 'us'] }] },
        exclude: ['us1'],
      };
      expect(summary(plan(clusters, [registry('rr', target, POD)]))).to.deep.equal({ eu1: { pods: 'all' } });
    });

    it('only Ready ones: Ready False, Unknown or absent leaves a cluster out', () => {
      const clusters = [
        cluster('ready'),
        cluster('not-ready', { ready: 'False' }),
        cluster('unknown', { ready: 'Unknown' }),
        cluster('never', { ready: null }),
      ];
      expect(summary(plan(clusters, [registry('rr', {}, POD)]))).to.deep.equal({ ready: { pods: 'all' } });
    });

    it('not where the API is disabled (complete enablements without it), but where it is unknown (partial ones)', () => {
      const apps = [CORE_APIS, APPS_APIS];
      const clusters = [
        cluster('has-apps', { apis: apps, complete: true }),
        cluster('no-apps', { complete: true }),
        cluster('partial', { complete: false }),
        cluster('unreported'),
      ];
      const deployments = { apiVersion: 'apps/v1', kind: 'Deployment' };
      expect(summary(plan(clusters, [registry('rr', {}, deployments, POD)]))).to.deep.equal({
        'has-apps': { deployments: 'all', pods: 'all' },
        'no-apps': { pods: 'all' },
        partial: { deployments: 'all', pods: 'all' },
        unreported: { deployments: 'all', pods: 'all' },
      });
    });

    it('a matched Ready cluster without any of the APIs is kept with no stores, as Karmada keeps its cluster cache', () => {
      const clusters = [cluster('bare', { apis: [], complete: true }), cluster('full', { apis: [APPS_APIS] })];
      const result = plan(clusters, [registry('rr', {}, { apiVersion: 'apps/v1', kind: 'Deployment' })]);
      expect(summary(result)).to.deep.equal({ bare: {}, full: { deployments: 'all' } });
    });
  });

  describe('which resources and namespaces', () => {
    it('a selector without a namespace means all, whatever others name; one with names merges them sorted', () => {
      const clusters = [cluster('c1'), cluster('c2')];
      const registries = [
        registry('rr1', {}, { ...POD, namespace: 'zeta' }, POD_NS1),
        registry('rr2', { clusterNames: ['c2'] }, POD),
      ];
      expect(summary(plan(clusters, registries))).to.deep.equal({ c1: { pods: ['ns1', 'zeta'] }, c2: { pods: 'all' } });
    });

    it('a cluster-scoped kind is cached in all namespaces even when its selector names one', () => {
      const result = plan([cluster('c1')], [registry('rr', {}, { ...NODE, namespace: 'ns1' })]);
      expect(summary(result)).to.deep.equal({ c1: { nodes: 'all' } });
      expect(result.clusters.get('c1')!.get('/v1/nodes')!.resource).to.deep.equal({
        group: '',
        version: 'v1',
        resource: 'nodes',
        kind: 'Node',
        namespaced: false,
      });
    });

    it('resolves a kind through the apiEnablements of any cluster, skipping subresources; the scope comes from the lookup', () => {
      const crd = { groupVersion: 'example.com/v1', resources: [{ name: 'widgets', kind: 'Widget' }] };
      const scope: ScopeLookup = (group, version, resource) =>
        group === 'example.com' ? resource === 'widgets' : builtinScope(group, version, resource);
      const result = plan(
        [cluster('with-crd', { apis: [CORE_APIS, crd], complete: true }), cluster('without', { complete: true })],
        [registry('rr', {}, { apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'ns1' })],
        scope,
      );
      expect(summary(result)).to.deep.equal({ 'with-crd': { widgets: ['ns1'] }, without: {} });
      expect([...result.registeredResources.keys()]).to.deep.equal(['example.com/v1/widgets']);
    });

    it('an apiVersion that does not parse, a kind no cluster lists, or a resource of unknown scope is skipped', () => {
      const result = plan(
        [cluster('c1')],
        [
          registry(
            'rr',
            {},
            { apiVersion: 'v1/x/y', kind: 'Pod' },
            { apiVersion: 'v1', kind: 'Widget' },
            { apiVersion: 'v1', kind: 'Secret' },
          ),
        ],
        (group, version, resource) => (resource === 'secrets' ? undefined : builtinScope(group, version, resource)),
      );
      expect(summary(result)).to.deep.equal({});
      expect(result.registeredResources.size).to.equal(0);
    });

    it('a selector stored without apiVersion or kind (validation does not demand them) resolves to nothing', () => {
      const partial = {
        metadata: { name: 'rr' },
        spec: { targetCluster: {}, resourceSelectors: [{ kind: 'Pod' }, { apiVersion: 'v1' }] },
      };
      const result = plan([cluster('c1')], [partial as unknown as ResourceRegistry]);
      expect([summary(result), result.registeredResources.size]).to.deep.equal([{}, 0]);
    });
  });

  describe('registeredResources (HasResource)', () => {
    it("every resolved resource, even one no cluster caches: pods and nodes yes, secrets no (Karmada's multi_cluster_cache_test)", () => {
      const result = plan(
        [cluster('cluster1'), cluster('cluster2', { ready: 'False' })],
        [registry('rr1', { clusterNames: ['cluster1'] }, POD), registry('rr2', { clusterNames: ['cluster2'] }, NODE)],
      );
      expect(summary(result)).to.deep.equal({ cluster1: { pods: 'all' } });
      const has = (resource: string) =>
        result.registeredResources.has(resourceKey({ group: '', version: 'v1', resource }));
      expect([has('pods'), has('nodes'), has('secrets')]).to.deep.equal([true, true, false]);
    });
  });
});
