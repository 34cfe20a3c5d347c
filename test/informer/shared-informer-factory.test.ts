/**
 * The shared informer factory over an in-memory cluster: one informer (one list, one watch) per
 * resource however many consumers ask; handlers, indexes and sinks added after the first list get
 * what is held already; sinks are passed every change in order with its resourceVersion; the last
 * consumer to go stops its informer, and `stop` stops them all.
 */
import { expect } from 'chai';
import type { Json } from '../../apiserver/json.js';
import type { ListerWatcher, ListPage, WatchEvent, WatchOptions, WatchStream } from '../../informer/list-watcher.js';
import type { ReflectorSink } from '../../informer/reflector-sink.js';
import { SharedInformerFactory, type InformerResource } from '../../informer/shared-informer-factory.js';
import { TENANT_INDEX, tenantIndexFunc } from '../../informer/tenant-index.js';
import { waitUntil } from '../support/eventually.js';

const CONFIGMAPS: InformerResource = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };
const ROLES: InformerResource = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'roles',
  namespaced: true,
};

/** One resource of a cluster in memory: its objects, its revision, its open watches; counts lists and watches. */
class MemoryResource implements ListerWatcher {
  lists = 0;
  watchesOpened = 0;
  private revision = 1;
  private readonly objects = new Map<string, Json>();
  private readonly open = new Set<{ push(event: WatchEvent): void; end(): void }>();

  get openWatches(): number {
    return this.open.size;
  }

  async list(): Promise<ListPage> {
    this.lists++;
    return {
      items: [...this.objects.values()].map((o) => structuredClone(o)),
      resourceVersion: `${this.revision}`,
      continue: '',
    };
  }

  async watch(options: WatchOptions): Promise<WatchStream> {
    this.watchesOpened++;
    const queue: WatchEvent[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    const feed = {
      push: (event: WatchEvent) => (queue.push(event), wake?.()),
      end: () => ((ended = true), wake?.()),
    };
    this.open.add(feed);
    options.signal?.addEventListener('abort', () => feed.end());
    const open = this.open;
    return {
      stop: () => feed.end(),
      async *[Symbol.asyncIterator]() {
        try {
          for (;;) {
            while (queue.length) yield queue.shift()!;
            if (ended) return;
            await new Promise<void>((resolve) => (wake = resolve));
          }
        } finally {
          open.delete(feed);
        }
      },
    };
  }

  put(namespace: string, name: string, labels: Record<string, string> = {}): void {
    const key = `${namespace}/${name}`;
    const type = this.objects.has(key) ? 'MODIFIED' : 'ADDED';
    const object = { metadata: { namespace, name, labels, resourceVersion: `${++this.revision}` } };
    this.objects.set(key, object);
    for (const feed of this.open) feed.push({ type, object: structuredClone(object) });
  }

  remove(namespace: string, name: string): void {
    const object = this.objects.get(`${namespace}/${name}`)!;
    this.objects.delete(`${namespace}/${name}`);
    object.metadata.resourceVersion = `${++this.revision}`;
    for (const feed of this.open) feed.push({ type: 'DELETED', object: structuredClone(object) });
  }

  bookmark(): void {
    const object = { metadata: { resourceVersion: `${++this.revision}` } };
    for (const feed of this.open) feed.push({ type: 'BOOKMARK', object });
  }
}

/** A sink that writes down what it is passed. */
function recordingSink(): ReflectorSink<Json> & { calls: string[] } {
  const calls: string[] = [];
  const name = (o: Json) => `${o.metadata.namespace}/${o.metadata.name}`;
  return {
    calls,
    replace: (items, rv) => calls.push(`replace ${items.map(name).sort().join(',')} @${rv}`),
    add: (o, rv) => calls.push(`add ${name(o)} @${rv}`),
    update: (o, rv) => calls.push(`update ${name(o)} @${rv}`),
    delete: (o, rv) => calls.push(`delete ${name(o)} @${rv}`),
    bookmark: (rv) => calls.push(`bookmark @${rv}`),
  };
}

describe('informer: the shared informer factory', () => {
  let resources: Map<string, MemoryResource>;
  let factory: SharedInformerFactory<Json>;
  let transformed: number;
  const cluster = (r: InformerResource) => resources.get(r.resource)!;

  beforeEach(() => {
    resources = new Map([
      ['configmaps', new MemoryResource()],
      ['roles', new MemoryResource()],
    ]);
    transformed = 0;
    factory = new SharedInformerFactory<Json>({
      cluster: 'member1',
      listerWatcher: cluster,
      transform: (resource, whole) => (obj) => {
        transformed++;
        return { ...obj, resource: resource.resource, ...(whole ? { whole: true } : {}) };
      },
      reflector: { backoff: () => 10 },
    });
  });

  afterEach(() => factory.stop());

  it("keys its informers' objects by the key function it is given, as cached objects carry their own", async () => {
    const keyed = new SharedInformerFactory<Json>({
      cluster: 'member1',
      listerWatcher: cluster,
      transform: () => (obj) => ({ ...obj, key: `own:${obj.metadata.name}` }),
      keyFunc: (obj) => obj.key,
    });
    try {
      cluster(CONFIGMAPS).put('a-x', 'one');
      const informer = keyed.informerFor(CONFIGMAPS);
      informer.addEventHandler({});
      await informer.firstSync;
      await waitUntil('watching', () => cluster(CONFIGMAPS).openWatches === 1);
      cluster(CONFIGMAPS).put('a-x', 'two');
      await waitUntil('the watch brought two', () => informer.indexer.listKeys().length === 2);
      expect(informer.indexer.listKeys().sort()).to.deep.equal(['own:one', 'own:two']);
    } finally {
      keyed.stop();
    }
  });

  it('makes one informer per resource, listed and watched once for every consumer', async () => {
    cluster(CONFIGMAPS).put('a-x', 'one');
    const first = factory.informerFor(CONFIGMAPS);
    const second = factory.informerFor({ ...CONFIGMAPS });
    expect(second).to.equal(first);
    const roles = factory.informerFor(ROLES);
    expect(roles).to.not.equal(first);
    const seen: string[][] = [[], []];
    first.addEventHandler({ onAdd: (o) => seen[0].push(o.metadata.name) });
    second.addEventHandler({ onAdd: (o) => seen[1].push(o.metadata.name) });
    roles.addEventHandler({});
    await waitUntil(
      'both informers watch',
      () => cluster(CONFIGMAPS).openWatches === 1 && cluster(ROLES).openWatches === 1,
    );
    cluster(CONFIGMAPS).put('a-x', 'two');
    await waitUntil('both consumers are told', () => seen.every((names) => names.length === 2));
    expect(seen).to.deep.equal([
      ['one', 'two'],
      ['one', 'two'],
    ]);
    expect(cluster(CONFIGMAPS).lists).to.equal(1);
    expect(cluster(CONFIGMAPS).watchesOpened).to.equal(1);
    expect(factory.resources().sort()).to.deep.equal(['/v1/configmaps', 'rbac.authorization.k8s.io/v1/roles']);
    // Each object is transformed once, in the creator's form, and every consumer reads that one.
    expect(transformed).to.equal(2);
    expect(first.indexer.getByKey('a-x/two')).to.include({ resource: 'configmaps' });
  });

  it('tells a handler added after the first list of the objects held, as in the initial list', async () => {
    cluster(CONFIGMAPS).put('a-x', 'one');
    const informer = factory.informerFor(CONFIGMAPS);
    informer.addEventHandler({});
    await informer.firstSync;
    const late: [string, boolean][] = [];
    informer.addEventHandler({ onAdd: (o, initial) => late.push([o.metadata.name, initial]) });
    expect(late).to.deep.equal([['one', true]]);
    await waitUntil('the watch is open', () => cluster(CONFIGMAPS).openWatches === 1);
    cluster(CONFIGMAPS).put('a-x', 'two');
    await waitUntil('the new object is told', () => late.length === 2);
    expect(late[1]).to.deep.equal(['two', false]);
  });

  it('fills an index added after the first list, keeps one another consumer adds with the same function, refuses another under its name', async () => {
    cluster(CONFIGMAPS).put('aaaaaa-x', 'one', { 'kubezoo.io/tenant': 'aaaaaa' });
    cluster(CONFIGMAPS).put('bbbbbb-x', 'two', { 'kubezoo.io/tenant': 'bbbbbb' });
    const informer = factory.informerFor(CONFIGMAPS);
    informer.addEventHandler({});
    await informer.firstSync;
    informer.addIndexers({ [TENANT_INDEX]: tenantIndexFunc });
    expect(informer.indexer.byIndex(TENANT_INDEX, 'aaaaaa').map((o) => o.metadata.name)).to.deep.equal(['one']);
    informer.addIndexers({ [TENANT_INDEX]: tenantIndexFunc });
    expect(() => informer.addIndexers({ [TENANT_INDEX]: () => [] })).to.throw(/indexer conflict/);
    await waitUntil('the watch is open', () => cluster(CONFIGMAPS).openWatches === 1);
    cluster(CONFIGMAPS).put('aaaaaa-y', 'three', { 'kubezoo.io/tenant': 'aaaaaa' });
    await waitUntil(
      'the index has the new object',
      () => informer.indexer.byIndex(TENANT_INDEX, 'aaaaaa').length === 2,
    );
  });

  it('passes a sink every change in order with its resourceVersion; one added late gets a replace of what is held first', async () => {
    cluster(CONFIGMAPS).put('a-x', 'one');
    const informer = factory.informerFor(CONFIGMAPS);
    const early = recordingSink();
    informer.addSink(early);
    await informer.firstSync;
    const late = recordingSink();
    informer.addSink(late);
    expect(late.calls).to.deep.equal(['replace a-x/one @2']);
    await waitUntil('the watch is open', () => cluster(CONFIGMAPS).openWatches === 1);
    cluster(CONFIGMAPS).put('a-x', 'two');
    cluster(CONFIGMAPS).put('a-x', 'two');
    cluster(CONFIGMAPS).remove('a-x', 'one');
    cluster(CONFIGMAPS).bookmark();
    const after = ['add a-x/two @3', 'update a-x/two @4', 'delete a-x/one @5', 'bookmark @6'];
    await waitUntil('the sinks have every change', () => late.calls.length === 5);
    expect(early.calls).to.deep.equal(['replace a-x/one @2', ...after]);
    expect(late.calls).to.deep.equal(['replace a-x/one @2', ...after]);
    // The sink is passed the informer's own objects, not copies.
    const held = informer.indexer.getByKey('a-x/two');
    const passed: Json[] = [];
    informer.addSink({ ...recordingSink(), replace: (items) => passed.push(...items) });
    expect(passed[0]).to.equal(held);
  });

  it('resyncs: a relist reaches the sinks as a replace at the newest version', async () => {
    const informer = factory.informerFor(CONFIGMAPS);
    const sink = recordingSink();
    informer.addSink(sink);
    await informer.firstSync;
    cluster(CONFIGMAPS).put('a-x', 'one');
    expect(await informer.resync()).to.equal(true);
    expect(sink.calls.at(-1)).to.equal('replace a-x/one @2');
    expect(cluster(CONFIGMAPS).lists).to.equal(2);
  });

  it('holds objects trimmed until a consumer asks for them whole, then lists again; a sink added meanwhile gets only whole ones', async () => {
    cluster(CONFIGMAPS).put('a-x', 'one');
    const informer = factory.informerFor(CONFIGMAPS);
    informer.addEventHandler({});
    await informer.firstSync;
    expect(informer.indexer.getByKey('a-x/one')).to.not.have.property('whole');
    expect(factory.informerFor(CONFIGMAPS, { whole: true })).to.equal(informer);
    const passed: Json[][] = [];
    informer.addSink({ ...recordingSink(), replace: (items) => passed.push([...items]) });
    await waitUntil('listed again', () => cluster(CONFIGMAPS).lists === 2 && passed.length === 1);
    expect(passed[0].map((o) => o.whole)).to.deep.equal([true]);
    expect(informer.indexer.getByKey('a-x/one')).to.include({ whole: true });
    await waitUntil('the watch is open again', () => cluster(CONFIGMAPS).openWatches === 1);
    cluster(CONFIGMAPS).put('a-x', 'two');
    await waitUntil('the new object is held', () => informer.indexer.getByKey('a-x/two') !== undefined);
    expect(informer.indexer.getByKey('a-x/two')).to.include({ whole: true });
    // Whole stays whole: a consumer asking as controllers do lists nothing again.
    factory.informerFor(CONFIGMAPS);
    factory.informerFor(CONFIGMAPS, { whole: true });
    expect(cluster(CONFIGMAPS).lists).to.equal(2);
    // An informer first asked for whole lists once, whole.
    cluster(ROLES).put('a-x', 'reader');
    const roles = factory.informerFor(ROLES, { whole: true });
    roles.addEventHandler({});
    await roles.firstSync;
    expect(roles.indexer.getByKey('a-x/reader')).to.include({ whole: true });
    expect(cluster(ROLES).lists).to.equal(1);
  });

  it('stops an informer when its last consumer goes, and all of them with the factory', async () => {
    const informer = factory.informerFor(CONFIGMAPS);
    const handler = informer.addEventHandler({});
    const sink = informer.addSink(recordingSink());
    factory.informerFor(ROLES).addEventHandler({});
    await waitUntil('both watch', () => cluster(CONFIGMAPS).openWatches === 1 && cluster(ROLES).openWatches === 1);
    handler.remove();
    expect(factory.resources()).to.include('/v1/configmaps');
    sink.remove();
    expect(factory.resources()).to.deep.equal(['rbac.authorization.k8s.io/v1/roles']);
    await waitUntil('its watch is closed', () => cluster(CONFIGMAPS).openWatches === 0);
    expect(await informer.firstSync).to.equal(true);
    // Asked again, the resource gets a new informer that lists anew.
    const again = factory.informerFor(CONFIGMAPS);
    expect(again).to.not.equal(informer);
    again.addEventHandler({});
    await again.firstSync;
    expect(cluster(CONFIGMAPS).lists).to.equal(2);
    factory.stop();
    expect(factory.resources()).to.deep.equal([]);
    await waitUntil(
      'every watch is closed',
      () => cluster(CONFIGMAPS).openWatches === 0 && cluster(ROLES).openWatches === 0,
    );
    // After the stop, an informer asked for is never run.
    const late = factory.informerFor(CONFIGMAPS);
    late.addEventHandler({});
    expect(await late.firstSync).to.equal(false);
  });
});
