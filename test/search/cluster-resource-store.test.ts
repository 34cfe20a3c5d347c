/**
 * One cluster × one resource of the multi-cluster cache: what it keeps (namespaces, versions),
 * what watchers get (in order, relist diffs, replays from a version, 410 beyond the window), how
 * it waits to be fresh, and the cached text an answer is made from.
 */
import { expect } from 'chai';
import { answerText, CACHE_SOURCE_ANNOTATION, objectText } from '../../search/cached-object-text.js';
import { ClusterResourceStore, type StoreEvent, type StoreWatcher } from '../../search/cluster-resource-store.js';
import { selectableFieldsOf, toCachedObject } from '../../search/to-cached-object.js';
import { NODES, PODS, node, pod, rawPod } from '../support/cached-objects.js';

const POD_TYPE = { kind: 'Pod', apiVersion: 'v1' };

interface Seen {
  events: StoreEvent[];
  bookmarks: string[];
  stopped: number;
  watcher: StoreWatcher;
}

function recorder(): Seen {
  const seen: Seen = {
    events: [],
    bookmarks: [],
    stopped: 0,
    watcher: {
      event: (event) => seen.events.push(event),
      bookmark: (resourceVersion) => seen.bookmarks.push(resourceVersion),
      stopped: () => seen.stopped++,
    },
  };
  return seen;
}

const summary = (events: StoreEvent[]) =>
  events.map((e) => `${e.type} ${e.object.metadata.name} @${e.resourceVersion}`);

describe('cache: ClusterResourceStore', () => {
  it('keeps the objects of its namespaces, the version reached and whether it has listed', () => {
    const store = new ClusterResourceStore('c1', PODS, new Set(['ns1']));
    expect(store.hasSynced).to.equal(false);
    store.replace([pod('a', { namespace: 'ns1', resourceVersion: '3' }), pod('b', { namespace: 'ns2' })], '5');
    expect(store.hasSynced).to.equal(true);
    expect(store.resourceVersion).to.equal('5');
    expect(store.get('ns1', 'a')?.metadata.name).to.equal('a');
    expect(store.get('ns2', 'b')).to.equal(undefined);
    store.add(pod('c', { namespace: 'ns2', resourceVersion: '6' }), '6');
    expect(store.resourceVersion, 'an object of another namespace still moves the version').to.equal('6');
    expect(store.size).to.equal(1);
    store.bookmark('9');
    expect(store.resourceVersion).to.equal('9');
  });

  it('weighs its objects as their cached texts, through lists, writes and deletes', () => {
    const store = new ClusterResourceStore('c1', PODS);
    const weight = (...objects: { text: string }[]) => objects.reduce((sum, o) => sum + o.text.length, 0);
    const [a, b] = [pod('a', { resourceVersion: '1' }), pod('b', { resourceVersion: '2' })];
    store.replace([a, b], '2');
    expect(store.textBytes).to.equal(weight(a, b));
    const bigger = pod('a', { resourceVersion: '3', labels: { grown: 'x'.repeat(100) } });
    store.update(bigger, '3');
    expect(store.textBytes).to.equal(weight(bigger, b));
    store.delete(b, '4');
    expect(store.textBytes).to.equal(weight(bigger));
    store.replace([], '5');
    expect(store.textBytes).to.equal(0);
  });

  it('a cluster-scoped store keys objects by name and caches every "namespace"', () => {
    const store = new ClusterResourceStore('c1', NODES, new Set(['ignored']));
    store.replace([node('n1', '1')], '1');
    expect(store.get('', 'n1')?.metadata.name).to.equal('n1');
    expect([...store.inKeyOrder('')].map(([key]) => key)).to.deep.equal(['n1']);
  });

  it('visits objects in key order, one namespace as a run of keys, from after a key', () => {
    const store = new ClusterResourceStore('c1', PODS);
    const names = [
      ['b', 'x'],
      ['a', 'z'],
      ['a', 'y'],
      ['a-b', 'w'],
      ['a0', 'v'],
    ];
    store.replace(
      names.map(([namespace, name]) => pod(name, { namespace })),
      '1',
    );
    const keys = (namespace: string, after?: string) => [...store.inKeyOrder(namespace, after)].map(([key]) => key);
    expect(keys('')).to.deep.equal(['a-b/w', 'a/y', 'a/z', 'a0/v', 'b/x']);
    expect(keys('a')).to.deep.equal(['a/y', 'a/z']);
    expect(keys('a', 'a/y')).to.deep.equal(['a/z']);
    expect(keys('', 'a/y')).to.deep.equal(['a/z', 'a0/v', 'b/x']);
    expect(keys('', 'a/yy')).to.deep.equal(['a/z', 'a0/v', 'b/x']);
    store.delete(pod('z', { namespace: 'a' }), '2');
    store.add(pod('a', { namespace: 'a' }), '3');
    expect(keys('a'), 'a key that comes or goes changes the order').to.deep.equal(['a/a', 'a/y']);
  });

  it('watchers get every change in order; a relist reaches them as the events between the two states', () => {
    const store = new ClusterResourceStore('c1', PODS);
    store.replace([pod('a', { resourceVersion: '1' }), pod('b', { resourceVersion: '2' })], '2');
    const seen = recorder();
    store.watch('2', seen.watcher);
    store.add(pod('c', { resourceVersion: '3' }), '3');
    store.update(pod('a', { resourceVersion: '4' }), '4');
    store.delete(pod('c', { resourceVersion: '4' }), '5');
    expect(summary(seen.events)).to.deep.equal(['ADDED c @3', 'MODIFIED a @4', 'DELETED c @5']);
    expect(seen.events[1].previous?.metadata.resourceVersion).to.equal('1');

    seen.events.length = 0;
    // The relist: b is gone, a changed, d is new, and nothing else moved.
    store.replace([pod('a', { resourceVersion: '8' }), pod('d', { resourceVersion: '7' })], '9');
    expect(summary(seen.events)).to.deep.equal(['DELETED b @9', 'MODIFIED a @9', 'ADDED d @9']);
    expect(
      seen.events.map((event) => event.resumeFrom),
      'inside the burst a watcher resumes from before it, after it from the relist',
    ).to.deep.equal(['5', '5', '9']);
    const again = recorder();
    store.watch('5', again.watcher);
    expect(summary(again.events), 'resuming from before the burst replays all of it').to.deep.equal(
      summary(seen.events),
    );
  });

  it('a relist of what is cached sends nothing', () => {
    const store = new ClusterResourceStore('c1', PODS);
    store.replace([pod('a', { resourceVersion: '1' })], '1');
    const seen = recorder();
    store.watch('1', seen.watcher);
    store.replace([pod('a', { resourceVersion: '1' })], '4');
    expect(seen.events).to.deep.equal([]);
    expect(store.resourceVersion).to.equal('4');
  });

  it('a watch from "" or "0" starts with every object as ADDED, then the changes', () => {
    for (const from of ['', '0']) {
      const store = new ClusterResourceStore('c1', PODS);
      store.replace([pod('b', { resourceVersion: '2' }), pod('a', { resourceVersion: '1' })], '2');
      const seen = recorder();
      const subscription = store.watch(from, seen.watcher);
      store.add(pod(`c${from}`, { resourceVersion: '3' }), '3');
      expect(summary(seen.events)).to.deep.equal(['ADDED a @1', 'ADDED b @2', `ADDED c${from} @3`]);
      expect('close' in subscription && subscription.close()).to.equal(true);
      store.add(pod(`d${from}`, { resourceVersion: '4' }), '4');
      expect(seen.events, 'a closed subscription gets nothing').to.have.length(3);
    }
  });

  it('answers 410 when a watch resumes from before its window, and replays from within it', () => {
    const store = new ClusterResourceStore('c1', PODS, 'all', 3);
    store.replace([], '10');
    expect(store.watch('9', recorder().watcher), 'older than the list').to.deep.equal({ requested: '9', oldest: '10' });
    for (let rv = 11; rv <= 15; rv++) store.add(pod(`p${rv}`, { resourceVersion: String(rv) }), String(rv));
    // The window holds 13, 14, 15: a watch from 12 or later resumes, one from 11 has lost 12.
    expect(store.resumable('11')).to.deep.equal({ requested: '11', oldest: '12' });
    expect(store.watch('11', recorder().watcher)).to.deep.equal({ requested: '11', oldest: '12' });
    const seen = recorder();
    store.watch('12', seen.watcher);
    expect(summary(seen.events)).to.deep.equal(['ADDED p13 @13', 'ADDED p14 @14', 'ADDED p15 @15']);
    const ahead = recorder();
    store.watch('20', ahead.watcher);
    store.add(pod('p21', { resourceVersion: '21' }), '21');
    expect(summary(ahead.events), 'a watch from the future gets what comes after it').to.deep.equal(['ADDED p21 @21']);
  });

  it('bookmarks reach watchers; a stopped store ends its watchers and refuses none', () => {
    const store = new ClusterResourceStore('c1', PODS);
    store.replace([], '1');
    const seen = recorder();
    store.watch('1', seen.watcher);
    store.bookmark('7');
    expect(seen.bookmarks).to.deep.equal(['7']);
    store.stop();
    expect(seen.stopped).to.equal(1);
    const late = recorder();
    store.watch('7', late.watcher);
    expect(late.stopped, 'a watch of a stopped store ends at once').to.equal(1);
  });

  it('waits until fresh: by an event or a bookmark, or gives up after the timeout', async () => {
    const store = new ClusterResourceStore('c1', PODS);
    const listed = store.waitUntilFresh('', 60_000);
    store.replace([], '5');
    expect(await listed).to.equal(true);
    const byEvent = store.waitUntilFresh('6', 60_000);
    const byBookmark = store.waitUntilFresh('8', 60_000);
    store.add(pod('a', { resourceVersion: '6' }), '6');
    expect(await byEvent).to.equal(true);
    store.bookmark('8');
    expect(await byBookmark).to.equal(true);
    expect(await store.waitUntilFresh('9', 1)).to.equal(false);
  });

  describe('cached text', () => {
    it('keeps managedFields, leaves the kind out, and answers with the resourceVersion and cluster annotation set', () => {
      const cached = pod('a', { resourceVersion: '12', labels: { app: 'x' } });
      expect(cached.text).to.contain('managedFields');
      expect(JSON.parse(cached.text)).not.to.have.any.keys('kind', 'apiVersion');
      const answered = JSON.parse(answerText(cached, POD_TYPE, 'member1', 'MCRV'));
      const expected = rawPod('a', { resourceVersion: '12', labels: { app: 'x' } });
      expected.metadata.resourceVersion = 'MCRV';
      expected.metadata.annotations = { [CACHE_SOURCE_ANNOTATION]: 'member1' };
      expect(answered).to.deep.equal(expected);
    });

    it("keeps the object's annotations and replaces a copy of the cluster annotation", () => {
      const raw = rawPod('a', { resourceVersion: '1' });
      raw.metadata.annotations = { note: 'kept', [CACHE_SOURCE_ANNOTATION]: 'forged' };
      const answered = JSON.parse(
        answerText(toCachedObject(raw, selectableFieldsOf('', 'pods', true)), POD_TYPE, 'real', '1'),
      );
      expect(answered.metadata.annotations).to.deep.equal({ [CACHE_SOURCE_ANNOTATION]: 'real', note: 'kept' });
    });

    it('gives back the object the cluster sent, kind first, without adding empty annotations', () => {
      const raw = rawPod('a', { resourceVersion: '4', labels: { app: 'x' } });
      const cached = toCachedObject(structuredClone(raw), selectableFieldsOf('', 'pods', true));
      const text = objectText(cached, POD_TYPE);
      expect(JSON.parse(text)).to.deep.equal(raw);
      expect(text.startsWith('{"kind":"Pod","apiVersion":"v1",')).to.equal(true);
    });

    it('text in another layout is parsed and written again, with the same result', () => {
      const cached = pod('a', { resourceVersion: '3' });
      const reordered = { ...cached, text: JSON.stringify({ kind: 'Pod', ...JSON.parse(cached.text) }) };
      expect(JSON.parse(answerText(reordered, POD_TYPE, 'c', '9'))).to.deep.equal(
        JSON.parse(answerText(cached, POD_TYPE, 'c', '9')),
      );
    });
  });
});
