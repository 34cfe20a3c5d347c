/**
 * The multi-cluster cache against the cases of Karmada's multi_cluster_cache_test.go
 * (pkg/search/proxy/store), replayed with the same objects and expectations. Where Karmada's test
 * reads a member cluster through a fake client, the cluster's store is fed directly; where Karmada
 * fills a missing cluster's resourceVersion with a live `limit=1` list, Paddock takes the store's
 * own version, which is what the page was served from.
 */
import { expect } from 'chai';
import type { ApiError } from '../../apiserver/status.js';
import { CACHE_SOURCE_ANNOTATION } from '../../search/cached-object-text.js';
import type { CachedObject } from '../../search/cached-object.js';
import { parseCacheReadOptions } from '../../search/cache-read-options.js';
import type { CacheResource, CachedNamespaces } from '../../search/cluster-resource-store.js';
import { formatMultiClusterContinue } from '../../search/multi-cluster-continue.js';
import {
  listItemTexts,
  MultiClusterCache,
  type CacheAnswer,
  type CachedResourceSpec,
} from '../../search/multi-cluster-cache.js';
import { MultiClusterResourceVersion } from '../../search/multi-cluster-resource-version.js';
import type { WatchEventType } from '../../search/multi-cluster-watch.js';
import { NODES, PODS, SECRETS, node, pod, rawPod } from '../support/cached-objects.js';

type Layout = Record<string, [CacheResource, CachedNamespaces?][]>;

function layout(spec: Layout): Map<string, CachedResourceSpec[]> {
  return new Map(
    Object.entries(spec).map(([cluster, resources]) => [
      cluster,
      resources.map(([resource, namespaces]) => ({ resource, namespaces: namespaces ?? 'all' })),
    ]),
  );
}

function cacheOf(spec: Layout, registered = [PODS, NODES], freshnessTimeoutMs = 60_000): MultiClusterCache {
  const cache = new MultiClusterCache({ freshnessTimeoutMs });
  cache.updateCache(layout(spec), registered);
  return cache;
}

function feed(cache: MultiClusterCache, cluster: string, resource: CacheResource, objects: CachedObject[], rv: string) {
  cache.storeOf(cluster, resource)!.replace(objects, rv);
}

const options = (query: Record<string, string> = {}, resource = PODS) =>
  parseCacheReadOptions(new URLSearchParams(query), resource);

function fresh<T>(answer: CacheAnswer<T>): T {
  if (!answer.fresh) throw new Error(`stale: ${answer.reason}`);
  return answer.value;
}

async function failure(promise: Promise<unknown>): Promise<ApiError['status']> {
  try {
    await promise;
  } catch (err) {
    return (err as ApiError).status;
  }
  throw new Error('expected an error');
}

const mcrv = (...pairs: string[]) => {
  const version = MultiClusterResourceVersion.parse('');
  for (let i = 0; i + 1 < pairs.length; i += 2) version.set(pairs[i], pairs[i + 1]);
  return version.toString();
};

async function listNames(cache: MultiClusterCache, namespace: string, query: Record<string, string> = {}) {
  const list = fresh(await cache.list({ resource: PODS, namespace, options: options(query) }));
  return [...listItemTexts(list)].map((item) => JSON.parse(item).metadata.name as string);
}

interface Received {
  events: { type: WatchEventType; object: any }[];
  ended: boolean;
}

async function watchOf(cache: MultiClusterCache, namespace: string, query: Record<string, string>) {
  const received: Received = { events: [], ended: false };
  const answer = await cache.watch(
    { resource: PODS, namespace, options: options(query) },
    {
      event: (type, text) => received.events.push({ type, object: JSON.parse(text) }),
      end: () => (received.ended = true),
    },
  );
  return { received, watch: fresh(answer) };
}

describe('cache: MultiClusterCache (Karmada multi_cluster_cache_test.go)', () => {
  it('UpdateCache: stores are made for new clusters and resources, and stopped when they go', () => {
    const cache = new MultiClusterCache();
    const first = cache.updateCache(layout({ cluster1: [[PODS], [NODES]], cluster2: [[PODS]] }), [PODS, NODES]);
    expect(first.added.map((s) => `${s.cluster} ${s.resource.resource}`).sort()).to.deep.equal([
      'cluster1 nodes',
      'cluster1 pods',
      'cluster2 pods',
    ]);
    const kept = cache.storeOf('cluster1', PODS);
    const second = cache.updateCache(layout({ cluster1: [[PODS]] }), [PODS, NODES]);
    expect(second.added).to.deep.equal([]);
    expect(second.removed.map((s) => `${s.cluster} ${s.resource.resource}`).sort()).to.deep.equal([
      'cluster1 nodes',
      'cluster2 pods',
    ]);
    expect(second.removed.every((store) => store.stopped)).to.equal(true);
    expect(cache.storeOf('cluster1', PODS)).to.equal(kept);
    const third = cache.updateCache(layout({ cluster1: [[PODS, new Set(['ns1'])]] }), [PODS]);
    expect(third.removed, 'a store whose namespaces change is made anew').to.deep.equal([kept]);
    expect(third.added[0].namespaces).to.deep.equal(new Set(['ns1']));
  });

  it('HasResource: what is registered, cached by a cluster or not', () => {
    const cache = cacheOf({ cluster1: [[PODS], [NODES]], cluster2: [[PODS]] });
    expect(cache.hasResource(PODS)).to.equal(true);
    expect(cache.hasResource(NODES)).to.equal(true);
    expect(cache.hasResource(SECRETS)).to.equal(false);
    expect(cache.registeredResource({ group: '', version: 'v1', resource: 'nodes' })).to.deep.equal(NODES);
    expect(cache.registeredResource(SECRETS)).to.equal(undefined);
  });

  describe('GetResourceFromCache', () => {
    const cache = cacheOf({ cluster1: [[PODS]], cluster2: [[PODS]] });
    feed(cache, 'cluster1', PODS, [pod('pod11'), pod('pod_conflict')], '1');
    feed(cache, 'cluster2', PODS, [pod('pod21'), pod('pod_conflict')], '1');
    it('get pod from cluster1', () => expect(cache.locate(PODS, 'default', 'pod11').cluster).to.equal('cluster1'));
    it('get pod from cluster2', () => expect(cache.locate(PODS, 'default', 'pod21').cluster).to.equal('cluster2'));
    it('pod not found', () => expect(() => cache.locate(PODS, 'default', 'podz')).to.throw('pods "podz" not found'));
    it('get resource conflict, the clusters sorted', () =>
      expect(() => cache.locate(PODS, 'default', 'pod_conflict')).to.throw(
        'Operation cannot be fulfilled on pods "pod_conflict": ambiguous objects in clusters [cluster1, cluster2]',
      ));
  });

  describe('Get', () => {
    const cache = cacheOf({ cluster1: [[PODS], [NODES]], cluster2: [[PODS]] }, [PODS, NODES], 50);
    feed(
      cache,
      'cluster1',
      PODS,
      [pod('pod11', { resourceVersion: '1000' }), pod('pod-conflict', { resourceVersion: '1000' })],
      '1000',
    );
    feed(cache, 'cluster1', NODES, [node('node11', '1000')], '1000');
    feed(
      cache,
      'cluster2',
      PODS,
      [pod('pod21', { resourceVersion: '2000' }), pod('pod-conflict', { resourceVersion: '2000' })],
      '2000',
    );
    const get = (resource: CacheResource, namespace: string, name: string, query: Record<string, string> = {}) =>
      cache.get({ resource, namespace, name, options: options(query, resource) });
    const expected = (raw: any, cluster: string, rv: string) => {
      raw.metadata.resourceVersion = mcrv(cluster, rv);
      raw.metadata.annotations = { [CACHE_SOURCE_ANNOTATION]: cluster };
      return raw;
    };

    it('get pod11 from cluster1', async () => {
      const got = JSON.parse(fresh(await get(PODS, 'default', 'pod11')));
      expect(got).to.deep.equal(expected(rawPod('pod11', { resourceVersion: '1000' }), 'cluster1', '1000'));
    });
    it('get pod21 from cluster2', async () => {
      const got = JSON.parse(fresh(await get(PODS, 'default', 'pod21')));
      expect(got).to.deep.equal(expected(rawPod('pod21', { resourceVersion: '2000' }), 'cluster2', '2000'));
    });
    it('get pod not found', async () =>
      expect(await failure(get(PODS, 'default', 'podz'))).to.include({
        code: 404,
        reason: 'NotFound',
        message: 'pods "podz" not found',
      }));
    it("get pod with large resource version: kube's watch cache Timeout", async () => {
      const status = await failure(get(PODS, 'default', 'pod11', { resourceVersion: '9999' }));
      expect(status).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Timeout: Too large resource version: 9999, current: 1000',
        reason: 'Timeout',
        details: {
          causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version', field: '' }],
          retryAfterSeconds: 1,
        },
        code: 504,
      });
    });
    it('get with a resourceVersion reached, plain or multi-cluster, answers at once', async () => {
      expect(fresh(await get(PODS, 'default', 'pod11', { resourceVersion: '1000' }))).to.contain('pod11');
      expect(fresh(await get(PODS, 'default', 'pod21', { resourceVersion: mcrv('cluster2', '1500') }))).to.contain(
        'pod21',
      );
    });
    it('get node from cluster1', async () => {
      const got = JSON.parse(fresh(await get(NODES, '', 'node11')));
      expect(got).to.deep.equal({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name: 'node11',
          resourceVersion: mcrv('cluster1', '1000'),
          annotations: { [CACHE_SOURCE_ANNOTATION]: 'cluster1' },
        },
      });
    });
    it('get pod conflict', async () =>
      expect(await failure(get(PODS, 'default', 'pod-conflict'))).to.deep.include({
        code: 409,
        reason: 'Conflict',
        message:
          'Operation cannot be fulfilled on pods "pod-conflict": ambiguous objects in clusters [cluster1, cluster2]',
        details: { name: 'pod-conflict', kind: 'pods' },
      }));
  });

  describe('Get, namespaced (cluster1 caches ns1; cluster2 ns1 and ns2)', () => {
    const cache = cacheOf({ cluster1: [[PODS, new Set(['ns1'])]], cluster2: [[PODS, new Set(['ns1', 'ns2'])]] });
    feed(
      cache,
      'cluster1',
      PODS,
      [
        pod('pod11', { namespace: 'ns1', resourceVersion: '1000' }),
        pod('pod12', { namespace: 'ns2', resourceVersion: '1000' }),
      ],
      '1000',
    );
    feed(
      cache,
      'cluster2',
      PODS,
      ['ns1', 'ns2', 'ns3'].map((ns, i) => pod(`pod2${i + 1}`, { namespace: ns, resourceVersion: '2000' })),
      '2000',
    );
    const cases: [string, string, string, string | undefined][] = [
      ['pod is cached in single ns cache', 'ns1', 'pod11', 'cluster1'],
      ['pod is not cached in single ns cache', 'ns1', 'pod12', undefined],
      ['pod is cached in multi ns cache', 'ns1', 'pod21', 'cluster2'],
      ['pod not found in cache', 'ns1', 'non-exist', undefined],
      ['ns is not cached', 'ns3', 'pod23', undefined],
    ];
    for (const [title, namespace, name, cluster] of cases) {
      it(title, async () => {
        const answer = cache.get({ resource: PODS, namespace, name, options: options() });
        if (cluster === undefined) return expect((await failure(answer)).code).to.equal(404);
        const got = JSON.parse(fresh(await answer));
        expect(got.metadata.annotations[CACHE_SOURCE_ANNOTATION]).to.equal(cluster);
        expect(got.metadata.resourceVersion).to.equal(mcrv(cluster, cluster === 'cluster1' ? '1000' : '2000'));
      });
    }
  });

  describe('List', () => {
    const objects = (cluster: number) =>
      [1, 2, 3, 4, 5].map((i) =>
        pod(`pod${cluster}${i}`, {
          resourceVersion: `${cluster}00${i}`,
          labels: i % 2 === 1 && i < 4 ? { app: 'foo' } : undefined,
        }),
      );
    const twoClusters = () => {
      const cache = cacheOf({ cluster1: [[PODS]], cluster2: [[PODS]] });
      feed(cache, 'cluster1', PODS, objects(1), '6');
      feed(cache, 'cluster2', PODS, objects(2), '6');
      return cache;
    };

    it('no cluster caches the resource: an empty v1 List, resourceVersion ""', async () => {
      const list = fresh(
        await cacheOf({}).list({
          resource: PODS,
          namespace: 'default',
          options: options({ labelSelector: 'app=foo' }),
        }),
      );
      expect(list).to.deep.equal({
        kind: 'List',
        apiVersion: 'v1',
        resourceVersion: '',
        continue: '',
        items: [],
        count: 0,
      });
    });
    it('list gets: the multi-cluster resourceVersion and all 10 items', async () => {
      const list = fresh(await twoClusters().list({ resource: PODS, namespace: 'default', options: options() }));
      expect(list.resourceVersion).to.equal(mcrv('cluster1', '6', 'cluster2', '6'));
      expect(list.kind).to.equal('PodList');
      expect(list.apiVersion).to.equal('v1');
      expect([...listItemTexts(list)].map((item) => JSON.parse(item).metadata.name)).to.deep.equal([
        'pod11',
        'pod12',
        'pod13',
        'pod14',
        'pod15',
        'pod21',
        'pod22',
        'pod23',
        'pod24',
        'pod25',
      ]);
    });
    it('list gets with labelSelector', async () =>
      expect(await listNames(twoClusters(), 'default', { labelSelector: 'app=foo' })).to.deep.equal([
        'pod11',
        'pod13',
        'pod21',
        'pod23',
      ]));
    it('items come cluster1 first, each annotated with its cluster and keeping its own resourceVersion', async () => {
      const list = fresh(await twoClusters().list({ resource: PODS, namespace: '', options: options() }));
      const items = [...listItemTexts(list)].map((item) => JSON.parse(item));
      expect(
        items.map((item) => [item.metadata.annotations[CACHE_SOURCE_ANNOTATION], item.metadata.resourceVersion]),
      ).to.deep.equal([
        ['cluster1', '1001'],
        ['cluster1', '1002'],
        ['cluster1', '1003'],
        ['cluster1', '1004'],
        ['cluster1', '1005'],
        ['cluster2', '2001'],
        ['cluster2', '2002'],
        ['cluster2', '2003'],
        ['cluster2', '2004'],
        ['cluster2', '2005'],
      ]);
    });
  });

  describe('List and Watch, namespaced (cluster1 caches ns1; cluster2 ns1, ns2 and ns3)', () => {
    const cache = cacheOf({ cluster1: [[PODS, new Set(['ns1'])]], cluster2: [[PODS, new Set(['ns1', 'ns2', 'ns3'])]] });
    feed(
      cache,
      'cluster1',
      PODS,
      [
        pod('pod11', { namespace: 'ns1', resourceVersion: '1000' }),
        pod('pod12', { namespace: 'ns2', resourceVersion: '1000' }),
      ],
      '1000',
    );
    feed(
      cache,
      'cluster2',
      PODS,
      [
        pod('pod21', { namespace: 'ns1', resourceVersion: '2000' }),
        pod('pod22', { namespace: 'ns2', resourceVersion: '2000' }),
      ],
      '2000',
    );
    const cases: [string, string[]][] = [
      ['', ['pod11', 'pod21', 'pod22']],
      ['ns1', ['pod11', 'pod21']],
      ['ns2', ['pod22']],
      ['ns3', []],
      ['ns4', []],
    ];
    for (const [namespace, names] of cases) {
      it(`list ${namespace || 'all namespaces'}`, async () =>
        expect(await listNames(cache, namespace)).to.deep.equal(names));
      it(`watch ${namespace || 'all namespaces'} from "0"`, async () => {
        const { received, watch } = await watchOf(cache, namespace, { resourceVersion: '0' });
        watch.stop();
        expect(received.events.map((event) => event.object.metadata.name)).to.deep.equal(names);
      });
    }
  });

  describe('Watch', () => {
    const cache = cacheOf({ cluster1: [[PODS]], cluster2: [[PODS]] });
    feed(
      cache,
      'cluster1',
      PODS,
      [pod('pod11', { resourceVersion: '1001' }), pod('pod12', { resourceVersion: '1002' })],
      '1002',
    );
    feed(
      cache,
      'cluster2',
      PODS,
      [pod('pod21', { resourceVersion: '2001' }), pod('pod22', { resourceVersion: '2002' })],
      '2002',
    );
    cache.storeOf('cluster1', PODS)!.add(pod('pod13', { resourceVersion: '1003' }), '1003');
    cache.storeOf('cluster2', PODS)!.add(pod('pod23', { resourceVersion: '2003' }), '2003');
    const cases: [string, string, string[]][] = [
      ['resource version is zero', '0', ['pod11', 'pod12', 'pod13', 'pod21', 'pod22', 'pod23']],
      [
        'resource version of cluster2 is zero',
        mcrv('cluster1', '1002', 'cluster2', '0'),
        ['pod13', 'pod21', 'pod22', 'pod23'],
      ],
      ['resource versions are not zero', mcrv('cluster1', '1002', 'cluster2', '2002'), ['pod13', 'pod23']],
    ];
    for (const [title, resourceVersion, names] of cases) {
      it(title, async () => {
        const { received, watch } = await watchOf(cache, 'default', { resourceVersion });
        watch.stop();
        expect(received.events.map((event) => event.object.metadata.name)).to.deep.equal(names);
        expect(received.ended).to.equal(true);
      });
    }
    it('each event carries the cumulative multi-cluster resourceVersion and its cluster', async () => {
      const { received, watch } = await watchOf(cache, 'default', {
        resourceVersion: mcrv('cluster1', '1002', 'cluster2', '2002'),
      });
      watch.stop();
      expect(
        received.events.map((event) => [
          event.object.metadata.resourceVersion,
          event.object.metadata.annotations[CACHE_SOURCE_ANNOTATION],
        ]),
      ).to.deep.equal([
        [mcrv('cluster1', '1003', 'cluster2', '2002'), 'cluster1'],
        [mcrv('cluster1', '1003', 'cluster2', '2003'), 'cluster2'],
      ]);
    });
  });

  describe("prepareBeforeList: where a list starts (Karmada's cases, on pages served from memory)", () => {
    const cache = cacheOf({ c1: [[PODS]], c2: [[PODS]] });
    feed(cache, 'c1', PODS, [pod('a'), pod('b')], '1234');
    feed(cache, 'c2', PODS, [pod('c'), pod('d'), pod('e')], '5678');
    const rv = mcrv('c1', '1234', 'c2', '5678');
    it('Continue is empty: resourceVersion "0" lists every cluster', async () =>
      expect(await listNames(cache, '', { resourceVersion: '0' })).to.deep.equal(['a', 'b', 'c', 'd', 'e']));
    it('Continue names c2 and no key of its own: c2 from its start', async () =>
      expect(
        await listNames(cache, '', { continue: formatMultiClusterContinue({ rv, cluster: 'c2', continue: '' }) }),
      ).to.deep.equal(['c', 'd', 'e']));
    it('Continue names c2 and a key: c2 from after that key', async () =>
      expect(
        await listNames(cache, '', {
          continue: formatMultiClusterContinue({ rv, cluster: 'c2', continue: 'default/c' }),
        }),
      ).to.deep.equal(['d', 'e']));
    it('an invalid continue is ignored: the list starts over', async () =>
      expect(await listNames(cache, '', { continue: 'not a token' })).to.deep.equal(['a', 'b', 'c', 'd', 'e']));
    it('a token naming a cluster since removed goes on with the next cluster in order', async () =>
      expect(
        await listNames(cache, '', {
          continue: formatMultiClusterContinue({ rv, cluster: 'c1b', continue: 'default/x' }),
        }),
      ).to.deep.equal(['c', 'd', 'e']));
  });

  describe("fillMissingClusterResourceVersion: the answer's resourceVersion", () => {
    const cache = cacheOf({ cluster1: [[PODS]], cluster2: [[PODS]] });
    feed(cache, 'cluster1', PODS, [pod('a')], '1000');
    feed(cache, 'cluster2', PODS, [pod('b')], '2000');
    const listVersion = async (query: Record<string, string>) =>
      fresh(await cache.list({ resource: PODS, namespace: '', options: options(query) })).resourceVersion;
    it("keeps a cluster's version from the token when the page does not read that cluster", async () => {
      const token = formatMultiClusterContinue({ rv: mcrv('cluster1', '1234'), cluster: 'cluster2', continue: '' });
      expect(await listVersion({ continue: token })).to.equal(mcrv('cluster1', '1234', 'cluster2', '2000'));
    });
    it("fills in the clusters missing, with their stores' versions", async () =>
      expect(await listVersion({ limit: '1' })).to.equal(mcrv('cluster1', '1000', 'cluster2', '2000')));
    it('keeps a cluster it does not know', async () => {
      const token = formatMultiClusterContinue({ rv: mcrv('non-exist', '1'), cluster: 'cluster1', continue: '' });
      expect(await listVersion({ continue: token })).to.equal(
        mcrv('cluster1', '1000', 'cluster2', '2000', 'non-exist', '1'),
      );
    });
  });
});
