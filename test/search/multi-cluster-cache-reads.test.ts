/**
 * What the multi-cluster cache does beyond karmada-search: pages cut from memory that reassemble
 * exactly the full list, selectors that agree with the apiserver's own filter, bad selectors
 * refused as kube refuses them, and consistent reads that wait for the cache to catch up with the
 * cluster (one probe shared by the reads that arrive together) or come back stale.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { parseListOptions } from '../../apiserver/handlers/list-options.js';
import type { Json } from '../../apiserver/json.js';
import { ObjectFilter } from '../../apiserver/registry/object-filter.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { BUILTIN_RESOURCES } from '../../apiserver/resources/builtin.js';
import { parseFieldSelector } from '../../apiserver/selectors/field-selector.js';
import { parseLabelSelector } from '../../apiserver/selectors/label-selector.js';
import { ApiError } from '../../apiserver/status.js';
import { parseCacheReadOptions } from '../../search/cache-read-options.js';
import { listItemTexts, MultiClusterCache, type CachedList } from '../../search/multi-cluster-cache.js';
import { selectableFieldsOf, toCachedObject } from '../../search/to-cached-object.js';
import { PODS, pod, rawPod } from '../support/cached-objects.js';
import { testSeed } from '../support/seed.js';

const CLUSTERS = ['c1', 'c2', 'c3'];
const podFields = selectableFieldsOf('', 'pods', true);

function threeClusters(pods: Json[][], options: ConstructorParameters<typeof MultiClusterCache>[0] = {}) {
  const cache = new MultiClusterCache(options);
  cache.updateCache(new Map(CLUSTERS.map((cluster) => [cluster, [{ resource: PODS, namespaces: 'all' as const }]])), [
    PODS,
  ]);
  CLUSTERS.forEach((cluster, i) =>
    cache.storeOf(cluster, PODS)!.replace(
      (pods[i] ?? []).map((raw) => toCachedObject(raw, podFields)),
      String(100 + i),
    ),
  );
  return cache;
}

/** A list from the cache with its items' answer texts. */
async function list(
  cache: MultiClusterCache,
  namespace: string,
  query: Record<string, string>,
): Promise<Omit<CachedList, 'items'> & { items: string[] }> {
  const answer = await cache.list({
    resource: PODS,
    namespace,
    options: parseCacheReadOptions(new URLSearchParams(query), PODS),
  });
  if (!answer.fresh) throw new Error(answer.reason);
  return { ...answer.value, items: [...listItemTexts(answer.value)] };
}

const podArbitrary = fc.record({
  namespace: fc.constantFrom('a', 'b', 'c'),
  name: fc.stringMatching(/^[a-z][a-z0-9-]{0,6}$/),
  app: fc.constantFrom(undefined, 'x', 'y'),
  tier: fc.constantFrom(undefined, 'web', 'db'),
  nodeName: fc.constantFrom(undefined, 'n1', 'n2'),
  phase: fc.constantFrom(undefined, 'Running', 'Pending'),
});

type PodSpec = typeof podArbitrary extends fc.Arbitrary<infer T> ? T : never;

function rawFrom(spec: PodSpec): Json {
  const labels: Record<string, string> = {};
  if (spec.app) labels.app = spec.app;
  if (spec.tier) labels.tier = spec.tier;
  return rawPod(spec.name, {
    namespace: spec.namespace,
    resourceVersion: '7',
    labels: Object.keys(labels).length ? labels : undefined,
    nodeName: spec.nodeName,
    phase: spec.phase,
  });
}

const clusterPods = fc.array(fc.array(podArbitrary, { maxLength: 12 }), { minLength: 3, maxLength: 3 });

describe('cache: MultiClusterCache reads from memory', () => {
  it('pages of any limits over 3 clusters reassemble exactly the full list, with no empty page', async () => {
    const { seed } = testSeed(import.meta.url);
    await fc.assert(
      fc.asyncProperty(
        clusterPods,
        fc.constantFrom('', 'a', 'b'),
        fc.constantFrom('', 'app=x', 'app!=x,tier', '!tier'),
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 40 }),
        async (pods, namespace, labelSelector, limits) => {
          const cache = threeClusters(pods.map((specs) => specs.map(rawFrom)));
          const whole = await list(cache, namespace, { labelSelector });
          const paged: string[] = [];
          let next = '';
          for (let page = 0; ; page++) {
            const limit = limits[page % limits.length];
            const got = await list(cache, namespace, {
              labelSelector,
              limit: String(limit),
              ...(next ? { continue: next } : {}),
            });
            expect(got.items.length).to.be.at.most(limit);
            if (whole.items.length > 0) expect(got.items, 'no empty page').not.to.be.empty;
            expect(got.resourceVersion).to.equal(whole.resourceVersion);
            paged.push(...got.items);
            next = got.continue;
            if (next === '') break;
          }
          expect(paged).to.deep.equal(whole.items);
        },
      ),
      { seed, numRuns: 150 },
    );
  });

  it("selectors select what the apiserver's own filter selects from the same objects", async () => {
    const { seed } = testSeed(import.meta.url);
    const pods = BUILTIN_RESOURCES.find((info) => info.group === '' && info.resource === 'pods')!;
    await fc.assert(
      fc.asyncProperty(
        clusterPods,
        fc.constantFrom('', 'app=x', 'app in (x,y)', 'app notin (x)', 'tier', '!app', 'app=x,tier=db'),
        fc.constantFrom(
          '',
          'spec.nodeName=n1',
          'spec.host=n2',
          'status.phase!=Running',
          'status.phase=',
          'metadata.namespace=b',
          'metadata.name!=p',
          'spec.nodeName=n1,metadata.namespace!=a',
          'status.podIPs=',
        ),
        async (specs, labelSelector, fieldSelector) => {
          const raws = specs.map((forCluster) => forCluster.map(rawFrom));
          const cache = threeClusters(raws);
          const got = await list(cache, '', { labelSelector, fieldSelector });
          const filter = new ObjectFilter(pods, parseLabelSelector(labelSelector), parseFieldSelector(fieldSelector));
          const expected = raws.flatMap((forCluster) => {
            const unique = new Map(forCluster.map((raw) => [`${raw.metadata.namespace}/${raw.metadata.name}`, raw]));
            return [...unique.keys()].sort().filter((key) => filter.matches(unique.get(key) as ApiObject));
          });
          expect(
            got.items.map((item) => `${JSON.parse(item).metadata.namespace}/${JSON.parse(item).metadata.name}`),
          ).to.deep.equal(expected);
        },
      ),
      { seed, numRuns: 150 },
    );
  });

  describe('bad input is a 400 BadRequest worded as the apiserver words it', () => {
    const cases: Record<string, string>[] = [
      { labelSelector: 'app in x' },
      { labelSelector: '!!' },
      { fieldSelector: 'spec.foo=x' },
      { fieldSelector: 'metadata.name' },
      { limit: '-1' },
      { timeoutSeconds: 'soon' },
    ];
    for (const query of cases) {
      it(JSON.stringify(query), () => {
        const params = new URLSearchParams(query);
        const expected = (() => {
          try {
            parseListOptions(params, false);
            const { fieldSelector } = parseListOptions(params, false);
            new ObjectFilter(
              BUILTIN_RESOURCES.find((info) => info.group === '' && info.resource === 'pods')!,
              parseLabelSelector(''),
              fieldSelector,
            );
          } catch (err) {
            return (err as ApiError).status;
          }
          throw new Error('the apiserver accepts it');
        })();
        expect(expected.code).to.equal(400);
        expect(() => parseCacheReadOptions(params, PODS))
          .to.throw(ApiError)
          .with.property('status')
          .that.deep.equals(expected);
      });
    }
  });

  describe('consistent reads (resourceVersion "")', () => {
    interface Probe {
      calls: string[];
      answer: (revision: string) => void;
      fail: (message: string) => void;
    }
    function controlledProbe(): Probe & { currentRevision: (cluster: string) => Promise<string> } {
      const pending: { resolve: (revision: string) => void; reject: (err: Error) => void }[] = [];
      return {
        calls: [],
        answer: (revision) => pending.shift()!.resolve(revision),
        fail: (message) => pending.shift()!.reject(new Error(message)),
        currentRevision(cluster: string) {
          this.calls.push(cluster);
          return new Promise<string>((resolve, reject) => pending.push({ resolve, reject }));
        },
      };
    }
    const settle = () => new Promise((resolve) => setImmediate(resolve));

    it("wait until the store reaches the cluster's revision; reads that arrive during a probe share the next one", async () => {
      const probe = controlledProbe();
      const cache = new MultiClusterCache({ currentRevision: (cluster) => probe.currentRevision(cluster) });
      cache.updateCache(new Map([['c1', [{ resource: PODS, namespaces: 'all' as const }]]]), [PODS]);
      const store = cache.storeOf('c1', PODS)!;
      store.replace([pod('old', { resourceVersion: '5' })], '5');
      const first = list(cache, '', {});
      await settle();
      const second = list(cache, '', {});
      const third = list(cache, '', {});
      await settle();
      expect(probe.calls, 'one probe in flight; the later reads wait for the next').to.deep.equal(['c1']);
      probe.answer('5');
      expect((await first).items).to.have.length(1);
      await settle();
      expect(probe.calls, 'one more probe for both reads that arrived during the first').to.deep.equal(['c1', 'c1']);
      probe.answer('8');
      await settle();
      store.add(pod('new', { resourceVersion: '8' }), '8');
      const [secondList, thirdList] = await Promise.all([second, third]);
      expect(secondList.items.map((item) => JSON.parse(item).metadata.name)).to.deep.equal(['new', 'old']);
      expect(thirdList.items).to.deep.equal(secondList.items);
    });

    it('a store that does not catch up in time, or a failed probe, makes the read stale for the caller to fall back', async () => {
      const probe = controlledProbe();
      const cache = new MultiClusterCache({
        currentRevision: (cluster) => probe.currentRevision(cluster),
        freshnessTimeoutMs: 20,
      });
      cache.updateCache(
        new Map([
          ['c1', [{ resource: PODS, namespaces: 'all' as const }]],
          ['c2', [{ resource: PODS, namespaces: 'all' as const }]],
        ]),
        [PODS],
      );
      cache.storeOf('c1', PODS)!.replace([], '5');
      cache.storeOf('c2', PODS)!.replace([], '5');
      const options = parseCacheReadOptions(new URLSearchParams(), PODS);
      const behind = cache.list({ resource: PODS, namespace: '', options });
      await settle();
      probe.answer('5');
      probe.answer('9');
      const answer = await behind;
      expect(answer).to.deep.include({ fresh: false, cluster: 'c2' });
      const failing = cache.get({ resource: PODS, namespace: 'default', name: 'x', options });
      await settle();
      probe.fail('connection refused');
      probe.answer('5');
      const failed = await failing;
      expect(failed.fresh).to.equal(false);
      expect(!failed.fresh && failed.reason).to.contain('connection refused');
      const zero = await cache.list({
        resource: PODS,
        namespace: '',
        options: parseCacheReadOptions(new URLSearchParams({ resourceVersion: '0' }), PODS),
      });
      expect(zero.fresh, 'resourceVersion "0" is served at once').to.equal(true);
    });

    it("a store its watch did not bring to the cluster's revision in the short wait is refreshed, and the read answered from it", async () => {
      const probe = controlledProbe();
      const refreshed: string[] = [];
      let refreshWorks = true;
      const cache = new MultiClusterCache({
        currentRevision: (cluster) => probe.currentRevision(cluster),
        freshnessTimeoutMs: 60_000,
        consistentWaitMs: 20,
        refresh: async (store) => {
          refreshed.push(store.cluster);
          if (!refreshWorks) return false;
          store.replace([pod('listed-again', { resourceVersion: '9' })], '9');
          return true;
        },
      });
      cache.updateCache(
        new Map([
          ['c1', [{ resource: PODS, namespaces: 'all' as const }]],
          ['c2', [{ resource: PODS, namespaces: 'all' as const }]],
        ]),
        [PODS],
      );
      cache.storeOf('c1', PODS)!.replace([pod('one', { resourceVersion: '5' })], '5');
      cache.storeOf('c2', PODS)!.replace([pod('old', { resourceVersion: '5' })], '5');
      const options = parseCacheReadOptions(new URLSearchParams(), PODS);
      const read = cache.list({ resource: PODS, namespace: '', options });
      await settle();
      probe.answer('5');
      probe.answer('9');
      const answer = await read;
      expect(refreshed, 'only the store behind its cluster lists again').to.deep.equal(['c2']);
      expect(
        answer.fresh && [...listItemTexts(answer.value)].map((item) => JSON.parse(item).metadata.name),
      ).to.deep.equal(['one', 'listed-again']);
      refreshWorks = false;
      const failing = cache.list({ resource: PODS, namespace: '', options });
      await settle();
      probe.answer('5');
      probe.answer('12');
      expect(await failing, 'a refresh that fails leaves the read stale').to.deep.include({
        fresh: false,
        cluster: 'c2',
      });
    });

    it('a store that has not listed yet makes any read stale', async () => {
      const cache = new MultiClusterCache({ freshnessTimeoutMs: 1 });
      cache.updateCache(new Map([['c1', [{ resource: PODS, namespaces: 'all' as const }]]]), [PODS]);
      const answer = await cache.list({
        resource: PODS,
        namespace: '',
        options: parseCacheReadOptions(new URLSearchParams({ resourceVersion: '0' }), PODS),
      });
      expect(answer).to.deep.include({ fresh: false, cluster: 'c1' });
    });
  });
});
