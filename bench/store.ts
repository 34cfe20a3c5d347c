/**
 * Store throughput, embedded (with fsync, as it runs by default) and etcd side by side in one
 * run: create, update, get, list over 1k and 10k keys, and watch-event delivery. Writes run 32 at
 * a time, as a busy gateway's would; ratios are embedded ÷ etcd.
 */
import { EtcdStore } from '../store/etcd/etcd-store.js';
import { EmbeddedStore, type Store } from '../store/index.js';
import { startEtcd } from '../test/support/etcd-server.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { printTable } from './table.js';

const CONCURRENCY = 32;
const WRITES = 4000;
const GETS = 20000;
const VALUE = JSON.stringify({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x', namespace: 'default' },
  data: { payload: 'x'.repeat(400) },
});

type Results = Map<string, number>;

async function inParallel(count: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await op(next++);
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

async function timesPerSecond(seconds: number, op: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let count = 0;
  while (performance.now() - started < seconds * 1000) {
    await op();
    count++;
  }
  return count / ((performance.now() - started) / 1000);
}

async function fill(store: Store, prefix: string, count: number): Promise<void> {
  await inParallel(count, (i) => store.create(`${prefix}k${String(i).padStart(6, '0')}`, VALUE));
}

async function measure(store: Store): Promise<Results> {
  const results: Results = new Map();
  results.set('create', await inParallel(WRITES, (i) => store.create(`/bench/w/k${i}`, VALUE)));
  results.set('update', await inParallel(WRITES, (i) => store.update(`/bench/w/k${i}`, VALUE + i)));
  results.set('get', await inParallel(GETS, (i) => store.get(`/bench/w/k${i % WRITES}`)));
  await fill(store, '/bench/l1k/', 1000);
  await fill(store, '/bench/l10k/', 10000);
  results.set('list 1k keys', await timesPerSecond(2, () => store.list('/bench/l1k/')));
  results.set('list 10k keys', await timesPerSecond(3, () => store.list('/bench/l10k/')));
  results.set('list 10k keys, pages of 500', await timesPerSecond(3, () => listAll(store, '/bench/l10k/', 500)));

  const watch = await store.watch('/bench/watched/');
  const received = (async () => {
    let n = 0;
    for await (const event of watch) if (event && ++n === WRITES) return;
  })();
  const started = performance.now();
  await inParallel(WRITES, (i) => store.create(`/bench/watched/k${i}`, VALUE));
  await received;
  results.set('watch events delivered', WRITES / ((performance.now() - started) / 1000));
  watch.close();
  return results;
}

async function listAll(store: Store, prefix: string, limit: number): Promise<void> {
  let token: string | undefined;
  do token = (await store.list(prefix, { limit, continue: token })).continue;
  while (token);
}

export async function benchStore(): Promise<void> {
  const { dir, remove } = await makeTempDir('bench-store');
  const etcd = await startEtcd();
  try {
    const embedded = await EmbeddedStore.open({ dataDir: dir });
    const embeddedResults = await measure(embedded);
    await embedded.close();
    const etcdStore = new EtcdStore({ endpoints: [etcd.endpoint], prefix: '/bench' });
    const etcdResults = await measure(etcdStore);
    await etcdStore.close();
    printResults(embeddedResults, etcdResults);
  } finally {
    await etcd.stop();
    await remove();
  }
}

function printResults(embedded: Results, etcd: Results): void {
  const rows = [...embedded.keys()].map((op) => [
    op,
    fmt(embedded.get(op)!),
    fmt(etcd.get(op)!),
    `${(embedded.get(op)! / etcd.get(op)!).toFixed(2)}x`,
  ]);
  process.stdout.write(
    `\nstore benchmark: ${CONCURRENCY} concurrent writers, ${WRITES} writes per write test, values of ${VALUE.length} bytes\n`,
  );
  printTable(['operation (per second)', 'embedded', 'etcd 3.4', 'embedded/etcd'], rows);
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
