/**
 * The multi-cluster watch beyond Karmada's test cases: it ends when a store of its resource is
 * removed or added (karmada-io/karmada#6963), a relist reaches it as events, a version the window
 * no longer reaches is a 410 ERROR event, selectors apply to transitions, and BOOKMARKs are
 * rewritten like events.
 */
import { expect } from 'chai';
import { CACHE_SOURCE_ANNOTATION } from '../../search/cached-object-text.js';
import { parseCacheReadOptions } from '../../search/cache-read-options.js';
import type { CacheResource } from '../../search/cluster-resource-store.js';
import { MultiClusterCache, type CachedResourceSpec } from '../../search/multi-cluster-cache.js';
import { MultiClusterResourceVersion } from '../../search/multi-cluster-resource-version.js';
import type { WatchEventType } from '../../search/multi-cluster-watch.js';
import { NODES, PODS, node, pod } from '../support/cached-objects.js';

const specs = (...resources: CacheResource[]): CachedResourceSpec[] =>
  resources.map((resource) => ({ resource, namespaces: 'all' }));

const mcrv = (...pairs: string[]) => {
  const version = MultiClusterResourceVersion.parse('');
  for (let i = 0; i + 1 < pairs.length; i += 2) version.set(pairs[i], pairs[i + 1]);
  return version.toString();
};

function twoClusters(eventWindow?: number) {
  const cache = new MultiClusterCache({ eventWindow });
  cache.updateCache(
    new Map([
      ['c1', specs(PODS, NODES)],
      ['c2', specs(PODS)],
    ]),
    [PODS, NODES],
  );
  cache.storeOf('c1', PODS)!.replace([pod('a', { resourceVersion: '10' })], '10');
  cache.storeOf('c2', PODS)!.replace([pod('b', { resourceVersion: '20' })], '20');
  cache.storeOf('c1', NODES)!.replace([node('n', '10')], '10');
  return cache;
}

async function watchOf(cache: MultiClusterCache, resource: CacheResource, query: Record<string, string>) {
  const received = { events: [] as { type: WatchEventType; object: any }[], ended: false };
  const answer = await cache.watch(
    { resource, namespace: '', options: parseCacheReadOptions(new URLSearchParams(query), resource) },
    {
      event: (type, text) => received.events.push({ type, object: JSON.parse(text) }),
      end: () => (received.ended = true),
    },
  );
  if (!answer.fresh) throw new Error(answer.reason);
  return { received, watch: answer.value };
}

const brief = (events: { type: WatchEventType; object: any }[]) =>
  events.map(({ type, object }) => `${type} ${object.metadata.name ?? ''} ${object.metadata.resourceVersion}`);

describe('cache: the multi-cluster watch', () => {
  it("ends when a cluster's store of its resource is removed, with no event", async () => {
    const cache = twoClusters();
    const { received } = await watchOf(cache, PODS, { resourceVersion: mcrv('c1', '10', 'c2', '20') });
    cache.updateCache(new Map([['c1', specs(PODS, NODES)]]), [PODS, NODES]);
    expect(received).to.deep.equal({ events: [], ended: true });
  });

  it('ends when a cluster joins with a store of its resource; watches of other resources go on', async () => {
    const cache = twoClusters();
    const pods = await watchOf(cache, PODS, { resourceVersion: mcrv('c1', '10', 'c2', '20') });
    const nodes = await watchOf(cache, NODES, { resourceVersion: mcrv('c1', '10') });
    cache.updateCache(
      new Map([
        ['c1', specs(PODS, NODES)],
        ['c2', specs(PODS)],
        ['c3', specs(PODS)],
      ]),
      [PODS, NODES],
    );
    expect(pods.received.ended).to.equal(true);
    expect(nodes.received.ended).to.equal(false);
    cache.storeOf('c1', NODES)!.add(node('m', '11'), '11');
    expect(brief(nodes.received.events)).to.deep.equal([`ADDED m ${mcrv('c1', '11')}`]);
  });

  it("a relist reaches it as the events between the two states, with each cluster's version", async () => {
    const cache = twoClusters();
    const { received } = await watchOf(cache, PODS, { resourceVersion: mcrv('c1', '10', 'c2', '20') });
    cache.storeOf('c1', PODS)!.replace([pod('c', { resourceVersion: '14' })], '15');
    expect(brief(received.events)).to.deep.equal([
      `DELETED a ${mcrv('c1', '10', 'c2', '20')}`,
      `ADDED c ${mcrv('c1', '15', 'c2', '20')}`,
    ]);
    expect(received.events.map((event) => event.object.metadata.annotations[CACHE_SOURCE_ANNOTATION])).to.deep.equal([
      'c1',
      'c1',
    ]);
  });

  it('a version older than the window is one ERROR event, 410 Expired as kube words it, and the end', async () => {
    const cache = twoClusters(2);
    const store = cache.storeOf('c2', PODS)!;
    for (let rv = 21; rv <= 24; rv++) store.add(pod(`p${rv}`, { resourceVersion: String(rv) }), String(rv));
    const { received } = await watchOf(cache, PODS, { resourceVersion: mcrv('c1', '10', 'c2', '21') });
    expect(received.ended).to.equal(true);
    expect(received.events).to.deep.equal([
      {
        type: 'ERROR',
        object: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'too old resource version: 21 (22)',
          reason: 'Expired',
          code: 410,
        },
      },
    ]);
  });

  it('selectors apply to transitions: leaving is DELETED with the previous content, entering is ADDED', async () => {
    const cache = twoClusters();
    const { received } = await watchOf(cache, PODS, {
      resourceVersion: mcrv('c1', '10', 'c2', '20'),
      labelSelector: 'app=x',
    });
    const store = cache.storeOf('c1', PODS)!;
    store.update(pod('a', { resourceVersion: '11', labels: { app: 'x' } }), '11');
    store.update(pod('a', { resourceVersion: '12', labels: { app: 'x', more: 'y' } }), '12');
    store.update(pod('a', { resourceVersion: '13' }), '13');
    store.update(pod('a', { resourceVersion: '14' }), '14');
    expect(
      received.events.map(({ type, object }) => `${type} ${JSON.stringify(object.metadata.labels)}`),
    ).to.deep.equal(['ADDED {"app":"x"}', 'MODIFIED {"app":"x","more":"y"}', 'DELETED {"app":"x","more":"y"}']);
    expect(received.events[2].object.metadata.resourceVersion).to.equal(mcrv('c1', '13', 'c2', '20'));
  });

  it('BOOKMARKs carry the cumulative version and the cluster when asked for, and nothing otherwise', async () => {
    const cache = twoClusters();
    const asked = await watchOf(cache, PODS, { resourceVersion: '0', allowWatchBookmarks: 'true' });
    const unasked = await watchOf(cache, PODS, { resourceVersion: '0' });
    cache.storeOf('c2', PODS)!.bookmark('25');
    expect(asked.received.events.at(-1)).to.deep.equal({
      type: 'BOOKMARK',
      object: {
        kind: 'Pod',
        apiVersion: 'v1',
        metadata: { resourceVersion: mcrv('c1', '10', 'c2', '25'), annotations: { [CACHE_SOURCE_ANNOTATION]: 'c2' } },
      },
    });
    expect(brief(unasked.received.events)).to.deep.equal([
      `ADDED a ${mcrv('c1', '10')}`,
      `ADDED b ${mcrv('c1', '10', 'c2', '20')}`,
    ]);
  });

  it('a resource no cluster caches gives a watch that ends at once', async () => {
    const { received } = await watchOf(new MultiClusterCache(), PODS, {});
    expect(received).to.deep.equal({ events: [], ended: true });
  });
});
