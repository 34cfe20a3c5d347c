import { expect } from 'chai';
import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { EmbeddedStore } from '../../store/index.js';
import { DEFAULT_HISTORY_WINDOW } from '../../store/embedded/embedded-store.js';
import { makeTempDir } from '../support/temp-dir.js';
import { expectStoreError, take } from './conformance.js';

describe('embedded store: persistence and history', () => {
  let dir: string;
  let remove: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, remove } = await makeTempDir('persist'));
  });
  afterEach(async () => {
    await remove();
  });

  async function newestLog(): Promise<string> {
    const logs = (await readdir(dir)).filter((name) => name.startsWith('wal-')).sort();
    return path.join(dir, logs[logs.length - 1]);
  }

  it('keeps every write across a restart and continues the revision counter', async () => {
    let store = await EmbeddedStore.open({ dataDir: dir });
    const created = await store.create('/r/a', 'one');
    const updated = await store.update('/r/a', 'two');
    await store.create('/r/b', 'three');
    const deleted = (await store.delete('/r/b')).revision;
    await store.close();

    store = await EmbeddedStore.open({ dataDir: dir });
    expect(await store.currentRevision()).to.equal(deleted);
    expect(await store.get('/r/a')).to.deep.equal({
      key: '/r/a',
      value: 'two',
      createRevision: created,
      modRevision: updated,
    });
    expect(await store.get('/r/b')).to.equal(null);
    expect(await store.create('/r/c', 'four')).to.equal(deleted + 1);
    await store.close();
  });

  it('snapshots and starts new logs as the log grows, and recovers from snapshot plus log', async () => {
    let store = await EmbeddedStore.open({ dataDir: dir, snapshotEveryBytes: 4096 });
    for (let i = 0; i < 400; i++) await store.create(`/s/k${i}`, `value ${i} ${'x'.repeat(50)}`);
    for (let i = 0; i < 400; i += 2) await store.delete(`/s/k${i}`);
    const revision = await store.currentRevision();
    await store.close();
    const files = await readdir(dir);
    expect(files).to.include('snapshot.jsonl');
    expect(files.filter((name) => name.startsWith('wal-')).length).to.be.lessThan(4);

    store = await EmbeddedStore.open({ dataDir: dir });
    expect(await store.currentRevision()).to.equal(revision);
    const { items } = await store.list('/s/');
    expect(items.map((kv) => kv.value)).to.have.length(200);
    expect(items.every((kv) => Number(kv.key.slice(4)) % 2 === 1)).to.equal(true);
    await store.close();
  });

  it('drops a record cut short by a crash at the end of the log', async () => {
    let store = await EmbeddedStore.open({ dataDir: dir });
    await store.create('/t/a', 'kept');
    const revision = await store.create('/t/b', 'kept too');
    await store.close();
    await appendFile(await newestLog(), '{"r":99,"op":"put","k":"/t/torn","v":"never acknowl');

    store = await EmbeddedStore.open({ dataDir: dir });
    expect((await store.list('/t/')).items.map((kv) => kv.key)).to.deep.equal(['/t/a', '/t/b']);
    expect(await store.create('/t/c', 'after')).to.equal(revision + 1);
    await store.close();
    store = await EmbeddedStore.open({ dataDir: dir });
    expect((await store.get('/t/c'))!.value).to.equal('after');
    await store.close();
  });

  it('refuses to open when a record in the middle of the log is damaged', async () => {
    const store = await EmbeddedStore.open({ dataDir: dir });
    for (let i = 0; i < 10; i++) await store.create(`/m/k${i}`, 'v');
    await store.close();
    const log = await newestLog();
    const lines = (await readFile(log, 'utf8')).split('\n');
    lines[2] = '{"r": garbage';
    await writeFile(log, lines.join('\n'));
    let message = '';
    await EmbeddedStore.open({ dataDir: dir }).then(
      (s) => s.close(),
      (err: Error) => (message = err.message),
    );
    expect(message).to.match(/corrupt at byte \d+/);
    // A failed open leaves the directory unlocked and the log as it was.
    expect(await EmbeddedStore.open({ dataDir: dir }).catch((err: Error) => err.message)).to.match(/corrupt at byte/);
  });

  it('lets only one store open a data directory at a time', async () => {
    const store = await EmbeddedStore.open({ dataDir: dir });
    let message = '';
    await EmbeddedStore.open({ dataDir: dir }).then(
      (s) => s.close(),
      (err: Error) => (message = err.message),
    );
    expect(message).to.contain(`in use by process ${process.pid}`);
    await store.close();
    const reopened = await EmbeddedStore.open({ dataDir: dir });
    await reopened.close();
  });

  it('deletes keys of leases from before a restart, whose holders are gone', async () => {
    let store = await EmbeddedStore.open({ dataDir: dir });
    const lease = await store.grantLease(60);
    await store.create('/lease/held', 'x', { lease });
    await store.create('/lease/free', 'y');
    await store.close();
    store = await EmbeddedStore.open({ dataDir: dir });
    expect(await store.get('/lease/held')).to.equal(null);
    expect((await store.get('/lease/free'))!.value).to.equal('y');
    await store.close();
  });

  it('keeps the configured window of history and expires what is older', async () => {
    const store = await EmbeddedStore.open({ historyWindow: 10 });
    const first = await store.create('/h/a', '0');
    for (let i = 1; i <= 40; i++) await store.update('/h/a', String(i));
    const current = await store.currentRevision();
    await expectStoreError(store.watch('/h/', first), 'Expired');
    await expectStoreError(store.list('/h/', { revision: first }), 'Expired');
    const watch = await store.watch('/h/', current - 10);
    const events = await take(watch, 10);
    expect(events.map((e) => e.value)).to.deep.equal(['31', '32', '33', '34', '35', '36', '37', '38', '39', '40']);
    watch.close();
    expect((await store.list('/h/', { revision: current - 10 })).items[0].value).to.equal('30');
    await store.close();
  });

  it('keeps DEFAULT_HISTORY_WINDOW (5,000) revisions by default, compacting a quarter past it', async () => {
    expect(DEFAULT_HISTORY_WINDOW).to.equal(5000);
    const store = await EmbeddedStore.open({});
    const first = await store.create('/d/a', '0');
    for (let i = 1; i < 6300; i++) await store.update('/d/a', String(i));
    const current = await store.currentRevision();
    await expectStoreError(store.watch('/d/', first), 'Expired');
    const watch = await store.watch('/d/', current - 5000);
    expect((await take(watch, 1))[0].revision).to.equal(current - 4999);
    watch.close();
    await store.close();
  });

  it('lets go of the values of compacted history', async () => {
    const gc = collector();
    const store = await EmbeddedStore.open({ historyWindow: 50 });
    gc();
    const before = v8.getHeapStatistics().used_heap_size;
    // 1,000 distinct values of 64 KiB: 64 MiB if compacted events stayed referenced, 4 MiB in the window.
    await store.create('/g/a', '0'.padStart(65536, 'x'));
    for (let i = 1; i < 1000; i++) await store.update('/g/a', String(i).padStart(65536, 'x'));
    gc();
    const grown = v8.getHeapStatistics().used_heap_size - before;
    await store.close();
    expect(grown).to.be.below(16 * 1024 * 1024);
  });

  it('answers Unavailable once closed, and ends open watches', async () => {
    const store = await EmbeddedStore.open({});
    const watch = await store.watch('/z/');
    await store.close();
    const seen = [];
    for await (const event of watch) seen.push(event);
    expect(seen).to.deep.equal([]);
    await expectStoreError(store.get('/z/a'), 'Unavailable');
    await expectStoreError(store.create('/z/a', 'v'), 'Unavailable');
  });
});

/** The collector, as `--expose-gc` would give it, for a test that reads what the heap holds. */
function collector(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}
