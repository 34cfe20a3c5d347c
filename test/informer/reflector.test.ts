/**
 * The reflector and the shared informer against a real devcluster over HTTPS: paged lists,
 * watch events into handlers, BOOKMARKs, a relist after compaction, a cluster restart, a silent
 * watch, the default transform. A ListerWatcher wrapper around the real one records every
 * request and can cut the open watch and hold the next one, which is how the tests put the
 * watch down while the cluster changes.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { RestClient } from '../../apiserver/client/rest-client.js';
import type { Json } from '../../apiserver/json.js';
import { ApiError } from '../../apiserver/status.js';
import type {
  ListerWatcher,
  ListPage,
  ListPageOptions,
  WatchOptions,
  WatchStream,
} from '../../informer/list-watcher.js';
import { Reflector, type WatchEnd } from '../../informer/reflector.js';
import type { ReflectorSink } from '../../informer/reflector-sink.js';
import { RestListWatcher } from '../../informer/rest-list-watcher.js';
import { SharedInformer, type SharedInformerOptions } from '../../informer/shared-informer.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { waitUntil } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { makeTempDir } from '../support/temp-dir.js';

/** The real ListerWatcher, recording what is asked of it; `cut()` ends the open watch and holds the next until `release()`. */
class RecordingListerWatcher implements ListerWatcher {
  readonly lists: Omit<ListPageOptions, 'signal'>[] = [];
  readonly watches: Omit<WatchOptions, 'signal'>[] = [];
  private open: WatchStream | undefined;
  private held: Promise<void> | undefined;
  private releaseHeld: (() => void) | undefined;

  constructor(
    private readonly real: ListerWatcher,
    /** Runs after each page is read, before the reflector has it. */
    private readonly afterPage: (page: ListPage) => Promise<void> = async () => {},
  ) {}

  async list(options: ListPageOptions): Promise<ListPage> {
    const { signal: _signal, ...recorded } = options;
    this.lists.push(recorded);
    const page = await this.real.list(options);
    await this.afterPage(page);
    return page;
  }

  async watch(options: WatchOptions): Promise<WatchStream> {
    const { signal: _signal, ...recorded } = options;
    this.watches.push(recorded);
    await this.held;
    this.open = await this.real.watch(options);
    return this.open;
  }

  cut(): void {
    this.held = new Promise((resolve) => (this.releaseHeld = resolve));
    this.open?.stop();
  }

  release(): void {
    this.releaseHeld?.();
    this.held = undefined;
  }
}

/** What a sink was told, in order. */
class RecordingSink implements ReflectorSink<Json> {
  readonly calls: [string, string, string][] = [];
  replace(items: readonly Json[], resourceVersion: string): void {
    this.calls.push(['replace', items.map((o) => o.metadata.name).join(','), resourceVersion]);
  }
  add(obj: Json, resourceVersion: string): void {
    this.calls.push(['add', obj.metadata.name, resourceVersion]);
  }
  update(obj: Json, resourceVersion: string): void {
    this.calls.push(['update', obj.metadata.name, resourceVersion]);
  }
  delete(obj: Json, resourceVersion: string): void {
    this.calls.push(['delete', obj.metadata.name, resourceVersion]);
  }
  bookmark(resourceVersion: string): void {
    this.calls.push(['bookmark', '', resourceVersion]);
  }
}

/** What an informer's handlers were told, as `<event> <name>` lines. */
function recordHandlers(informer: SharedInformer): string[] {
  const seen: string[] = [];
  informer.addEventHandler({
    onAdd: (obj, initial) => seen.push(`add ${obj.metadata.name}${initial ? ' (initial)' : ''}`),
    onUpdate: (old, obj) => seen.push(`update ${old.metadata.name} ${old.data?.v}→${obj.data?.v}`),
    onDelete: (obj, unknown) => seen.push(`delete ${obj.metadata.name}${unknown ? ' (final state unknown)' : ''}`),
  });
  return seen;
}

/** A namespace's ConfigMaps but its kube-root-ca.crt, which kube-controller-manager writes there whenever its pass comes. */
const configMaps = (namespace: string) => ({
  groupVersionPath: '/api/v1',
  resource: 'configmaps',
  namespace,
  fieldSelector: 'metadata.name!=kube-root-ca.crt',
});
const configMap = (name: string, v = '1') => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v } });

async function createNamespace(client: RestClient, name: string): Promise<void> {
  const res = await client.request('POST', '/api/v1/namespaces', { metadata: { name } });
  expect(res.status, res.text).to.equal(201);
}

async function write(client: RestClient, method: string, namespace: string, name: string, v = '1'): Promise<void> {
  const collection = `/api/v1/namespaces/${namespace}/configmaps`;
  const path = method === 'POST' ? collection : `${collection}/${name}`;
  const res = await client.request(method, path, method === 'DELETE' ? undefined : configMap(name, v));
  expect(res.status, res.text).to.be.oneOf([200, 201]);
}

const names = (informer: SharedInformer) => informer.indexer.listKeys().sort();

describe('cache/reflector and cache/shared-informer against a devcluster', function () {
  this.timeout(60_000);
  let cluster: DevCluster;
  let client: RestClient;
  let removeDir: () => Promise<void>;
  const informers: SharedInformer[] = [];
  const informer = (lw: ListerWatcher, options: Partial<SharedInformerOptions<Json>> = {}) => {
    const made = new SharedInformer(lw, { name: 'test', backoff: () => 100, ...options });
    informers.push(made);
    made.run();
    return made;
  };

  before(async () => {
    const temp = await makeTempDir('reflector');
    removeDir = temp.remove;
    // Frequent BOOKMARKs: every watch hears something within a moment.
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: temp.dir, bookmarkIntervalMs: 200 });
    client = RestClient.fromKubeconfig(await readFile(cluster.kubeconfigPath, 'utf8'));
  });
  after(async () => {
    for (const made of informers) made.stop();
    client?.close();
    await cluster?.stop();
    await removeDir?.();
  });

  it('lists in pages of the page size, following continue, and the informer holds every object', async () => {
    await createNamespace(client, 'paged');
    for (let i = 0; i < 25; i++) await write(client, 'POST', 'paged', `cm-${String(i).padStart(2, '0')}`);
    const lw = new RecordingListerWatcher(new RestListWatcher(client, configMaps('paged')));
    const paged = informer(lw, { pageSize: 10 });
    expect(await paged.firstSync).to.equal(true);
    expect(paged.indexer.listKeys()).to.have.length(25);
    expect(lw.lists.map((l) => [l.limit, l.resourceVersion, Boolean(l.continue)])).to.deep.equal([
      [10, '0', false],
      [10, undefined, true],
      [10, undefined, true],
    ]);
    // The watch starts where the list left off.
    await waitUntil('the watch opens', () => lw.watches.length > 0);
    expect(lw.watches[0]).to.include({ resourceVersion: paged.lastSyncResourceVersion(), allowWatchBookmarks: true });
  });

  it('resyncs on demand: ends the watch, lists at the newest state (resourceVersion ""), and resolves once the sink has it', async () => {
    await createNamespace(client, 'resync');
    await write(client, 'POST', 'resync', 'before');
    const lw = new RecordingListerWatcher(new RestListWatcher(client, configMaps('resync')));
    const sink = new RecordingSink();
    const reflector = new Reflector(lw, sink, { name: 'resync', backoff: () => 100 });
    reflector.run();
    try {
      expect(await reflector.firstSync).to.equal(true);
      await waitUntil('the watch opens', () => lw.watches.length > 0);
      // Two reads asking at once share one list.
      const [first, second] = await Promise.all([reflector.resync(), reflector.resync()]);
      expect([first, second]).to.deep.equal([true, true]);
      expect(lw.lists.map((l) => l.resourceVersion)).to.deep.equal(['0', '']);
      const replaced = sink.calls.filter(([call]) => call === 'replace');
      expect(replaced).to.have.length(2);
      expect(replaced[1][1]).to.equal('before');
      // After the resync the watch goes on from the new list, and the sink keeps following.
      await waitUntil('the watch reopens', () => lw.watches.length > 1);
      expect(lw.watches[1].resourceVersion).to.equal(replaced[1][2]);
      await write(client, 'POST', 'resync', 'after');
      await waitUntil('the new object arrives', () =>
        sink.calls.some(([call, name]) => call === 'add' && name === 'after'),
      );
    } finally {
      reflector.stop();
    }
    expect(await reflector.resync()).to.equal(false);
  });

  it('lists everything at once when the continue token expires between pages', async () => {
    await createNamespace(client, 'expiring');
    for (let i = 0; i < 15; i++) await write(client, 'POST', 'expiring', `cm-${i}`);
    let compacted = false;
    const lw = new RecordingListerWatcher(new RestListWatcher(client, configMaps('expiring')), async (page) => {
      if (page.continue === '' || compacted) return;
      compacted = true;
      // A write and a compaction past the first page's snapshot: its continue token is now too old.
      await createNamespace(client, 'expiring-elsewhere');
      await cluster.store.compact(await cluster.store.currentRevision());
    });
    const paged = informer(lw, { pageSize: 10 });
    await paged.firstSync;
    expect(paged.indexer.listKeys()).to.have.length(15);
    expect(lw.lists.map((l) => [l.limit, l.resourceVersion, Boolean(l.continue)])).to.deep.equal([
      [10, '0', false],
      [10, undefined, true],
      [undefined, '0', false],
    ]);
  });

  it("pages the first list by 500 unless told otherwise (client-go's pager)", async () => {
    const lw = new RecordingListerWatcher(new RestListWatcher(client, configMaps('paged')));
    await informer(lw).firstSync;
    expect(lw.lists).to.deep.equal([{ limit: 500, resourceVersion: '0' }]);
  });

  it('tells handlers of adds, updates and deletes; a handler added after the sync gets the objects there as adds', async () => {
    await createNamespace(client, 'events');
    await write(client, 'POST', 'events', 'before');
    const events = informer(new RestListWatcher(client, configMaps('events')));
    const early = recordHandlers(events);
    await events.firstSync;
    const late = recordHandlers(events);
    expect(early).to.deep.equal(['add before (initial)']);
    expect(late).to.deep.equal(['add before (initial)']);

    await write(client, 'POST', 'events', 'made');
    await write(client, 'PUT', 'events', 'made', '2');
    await write(client, 'DELETE', 'events', 'before');
    const expected = ['add before (initial)', 'add made', 'update made 1→2', 'delete before'];
    await waitUntil('the events reach the handlers', () => early.length === 4);
    expect(early).to.deep.equal(expected);
    expect(late).to.deep.equal(expected);
    expect(names(events)).to.deep.equal(['events/made']);
  });

  it('drops managedFields by default, and applies a given transform to listed and watched objects', async () => {
    await createNamespace(client, 'shapes');
    await write(client, 'POST', 'shapes', 'listed');
    const direct = await client.request('GET', '/api/v1/namespaces/shapes/configmaps/listed');
    expect(direct.body.metadata.managedFields).to.be.an('array').that.is.not.empty;

    const plain = informer(new RestListWatcher(client, configMaps('shapes')));
    const shaped = informer(new RestListWatcher(client, configMaps('shapes')), {
      transform: (obj) => ({
        metadata: { name: obj.metadata.name, namespace: 'shapes' },
        kind: obj.kind,
        shaped: true,
      }),
    });
    await Promise.all([plain.firstSync, shaped.firstSync]);
    await write(client, 'POST', 'shapes', 'watched');
    await waitUntil('both see the watched object', () => plain.indexer.listKeys().length === 2);
    await waitUntil('both see the watched object', () => shaped.indexer.listKeys().length === 2);
    for (const obj of plain.indexer.list()) {
      expect(obj.metadata).to.not.have.property('managedFields');
      expect(obj).to.include({ kind: 'ConfigMap', apiVersion: 'v1' });
    }
    expect(shaped.indexer.list().map((o) => o.shaped)).to.deep.equal([true, true]);
    expect(shaped.indexer.list().map((o) => o.kind)).to.deep.equal(['ConfigMap', 'ConfigMap']);
  });

  it('moves its resourceVersion on with BOOKMARKs while nothing it selects changes', async () => {
    await createNamespace(client, 'quiet');
    const sink = new RecordingSink();
    const selected = { ...configMaps('quiet'), labelSelector: 'app=selected' };
    const reflector = new Reflector(new RestListWatcher(client, selected), sink, { name: 'quiet' });
    reflector.run();
    try {
      await reflector.firstSync;
      const listed = Number(reflector.lastSyncResourceVersion());
      // A change the selector leaves out moves the revision the watch has seen on; the next BOOKMARK carries it.
      await write(client, 'POST', 'quiet', 'unselected');
      await waitUntil('a BOOKMARK past the list', () =>
        sink.calls.some(([call, , rv]) => call === 'bookmark' && Number(rv) > listed),
      );
      expect(sink.calls.filter(([call]) => call !== 'bookmark')).to.deep.equal([['replace', '', String(listed)]]);
      const bookmarks = sink.calls.filter(([call]) => call === 'bookmark').map(([, , rv]) => Number(rv));
      expect(Number(reflector.lastSyncResourceVersion())).to.be.at.least(bookmarks.at(-1)!).and.above(listed);
    } finally {
      reflector.stop();
    }
  });

  it('relists after the watch comes back past a compaction (410 Expired): vanished objects are deletes, the rest updates and adds', async () => {
    await createNamespace(client, 'compacted');
    for (const name of ['a', 'b', 'c']) await write(client, 'POST', 'compacted', name);
    const lw = new RecordingListerWatcher(new RestListWatcher(client, configMaps('compacted')));
    const ends: WatchEnd[] = [];
    const compacted = informer(lw, { hooks: { watchEnded: (end) => ends.push(end) } });
    await compacted.firstSync;
    const seen = recordHandlers(compacted);
    await waitUntil('the watch hears a BOOKMARK', () => compacted.stats.lastEventAt !== undefined);

    lw.cut();
    const cutAt = lw.watches.length;
    await write(client, 'DELETE', 'compacted', 'a');
    await write(client, 'PUT', 'compacted', 'b', '2');
    await write(client, 'POST', 'compacted', 'd');
    await cluster.store.compact(await cluster.store.currentRevision());
    const watchedFrom = compacted.lastSyncResourceVersion();
    lw.release();

    await waitUntil('the relist', () => compacted.stats.relists === 1);
    expect(ends).to.include('expired');
    expect(lw.watches[cutAt]?.resourceVersion).to.equal(watchedFrom);
    expect(names(compacted)).to.deep.equal(['compacted/b', 'compacted/c', 'compacted/d']);
    expect([...seen].sort()).to.deep.equal([
      'add a (initial)',
      'add b (initial)',
      'add c (initial)',
      'add d',
      'delete a (final state unknown)',
      'update b 1→2',
      'update c 1→1',
    ]);
  });

  it('answers a watch from a compacted resourceVersion with an ERROR event carrying the 410 Status, and a bad list with its Status', async () => {
    await cluster.store.compact(await cluster.store.currentRevision());
    const lw = new RestListWatcher(client, configMaps('default'));
    const stream = await lw.watch({ resourceVersion: '1', allowWatchBookmarks: true });
    const events = [];
    for await (const event of stream) events.push(event);
    expect(events).to.have.length(1);
    expect(events[0].type).to.equal('ERROR');
    expect(events[0].object).to.include({ code: 410, reason: 'Expired' });
    expect(events[0].object.message).to.match(/^too old resource version: 1 \(\d+\)$/);

    const bad = new RestListWatcher(client, { ...configMaps('default'), labelSelector: 'a in (' });
    const error = await bad.list({}).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).to.be.instanceOf(ApiError);
    expect((error as ApiError).status).to.include({ code: 400, reason: 'BadRequest' });
  });

  it('sends its selectors and its headers with every request: a field selector narrows, an impersonated nobody is refused', async () => {
    await createNamespace(client, 'selected');
    for (const name of ['a', 'b', 'c']) await write(client, 'POST', 'selected', name);
    const narrowed = new RestListWatcher(client, { ...configMaps('selected'), fieldSelector: 'metadata.name=c' });
    expect((await narrowed.list({})).items.map((o) => o.metadata.name)).to.deep.equal(['c']);
    const nobody = new RestListWatcher(client, {
      ...configMaps('compacted'),
      headers: { 'Impersonate-User': 'nobody' },
    });
    for (const request of [
      () => nobody.list({}),
      () => nobody.watch({ resourceVersion: '', allowWatchBookmarks: false }),
    ]) {
      const error = await request().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).to.be.instanceOf(ApiError);
      expect((error as ApiError).status).to.include({ code: 403, reason: 'Forbidden' });
      expect((error as ApiError).message).to.match(
        /^configmaps is forbidden: User "nobody" cannot (list|watch) resource/,
      );
    }
  });
});

describe('cache/reflector: a cluster that restarts, a watch that goes silent', function () {
  this.timeout(90_000);
  let cluster: DevCluster;
  let client: RestClient;
  let dataDir: string;
  let listen: string;
  let removeDir: () => Promise<void>;
  const informers: SharedInformer[] = [];

  before(async () => {
    const temp = await makeTempDir('reflector-restart');
    ({ dir: dataDir, remove: removeDir } = temp);
    listen = `127.0.0.1:${await freePort()}`;
    // The default BOOKMARK interval (a minute): a watch of an unchanging namespace stays silent.
    cluster = await startDevCluster({ listen, dataDir });
    client = RestClient.fromKubeconfig(await readFile(cluster.kubeconfigPath, 'utf8'));
  });
  after(async () => {
    for (const made of informers) made.stop();
    client?.close();
    await cluster?.stop();
    await removeDir?.();
  });

  it('reopens a watch that hears nothing for the idle bound, from the same resourceVersion, without a relist', async () => {
    await createNamespace(client, 'silent');
    const lw = new RecordingListerWatcher(new RestListWatcher(client, configMaps('silent')));
    const ends: WatchEnd[] = [];
    const silent = new SharedInformer(lw, {
      name: 'silent',
      idleWatchTimeoutMs: 300,
      hooks: { watchEnded: (end) => ends.push(end) },
    });
    informers.push(silent);
    silent.run();
    await silent.firstSync;
    await waitUntil('two idle restarts', () => silent.stats.watchRestarts >= 2);
    expect(ends.slice(0, 2)).to.deep.equal(['idle', 'idle']);
    expect(silent.stats.lists).to.equal(1);
    const listed = silent.lastSyncResourceVersion();
    expect(lw.watches.slice(0, 3).map((w) => w.resourceVersion)).to.deep.equal([listed, listed, listed]);
    // A reopened watch still delivers.
    await write(client, 'POST', 'silent', 'late');
    await waitUntil('the late object', () => silent.indexer.getByKey('silent/late') !== undefined);
  });

  it('survives the cluster stopping and starting again on its port and data, and catches up with what changed', async () => {
    await createNamespace(client, 'restart');
    for (const name of ['stays', 'goes']) await write(client, 'POST', 'restart', name);
    const failures: unknown[] = [];
    let watching = false;
    const restart = new SharedInformer(new RestListWatcher(client, configMaps('restart')), {
      name: 'restart',
      backoff: () => 200,
      hooks: { failed: (error) => failures.push(error), watchStarted: () => (watching = true) },
    });
    informers.push(restart);
    const seen = recordHandlers(restart);
    restart.run();
    await waitUntil('the watch is open', () => watching);
    // An event first: a watch that ends within a second with nothing in it counts as failed (and relists).
    await write(client, 'PUT', 'restart', 'stays', '2');
    await waitUntil('the update', () => seen.includes('update stays 1→2'));

    await cluster.stop();
    await waitUntil('the reflector meets the stopped cluster', () => failures.length > 0);
    expect(restart.isCurrent()).to.equal(false);
    cluster = await startDevCluster({ listen, dataDir });
    await write(client, 'DELETE', 'restart', 'goes');
    await write(client, 'POST', 'restart', 'new');

    await waitUntil('caught up', () => names(restart).join() === 'restart/new,restart/stays');
    // The watch went on from where it was: the changes came as events, not as a relist's guesses.
    expect(seen.filter((line) => !line.includes('(initial)'))).to.deep.equal([
      'update stays 1→2',
      'delete goes',
      'add new',
    ]);
    expect(restart.stats.relists).to.equal(0);
    expect(failures.some((error) => (error as { code?: string }).code === 'ECONNREFUSED')).to.equal(true);
    expect(restart.isCurrent()).to.equal(true);
  });
});
