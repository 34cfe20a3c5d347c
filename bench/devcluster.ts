/**
 * The devcluster's own cost, over real HTTPS on loopback, with the embedded store and with etcd
 * side by side: latency of listing 10k objects (JSON, Table, pages of 500) and of delivering
 * writes to 100 concurrent watchers.
 */
import { startDevCluster, type DevCluster } from '../devcluster/devcluster.js';
import { sleep } from './harness/sleep.js';
import { ApiClient, type WatchStream } from '../test/support/api-client.js';
import { startEtcd } from '../test/support/etcd-server.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { printTable } from './table.js';

const OBJECTS = 10_000;
const WATCHERS = 100;
const WATCHED_WRITES = 200;
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

type Results = Map<string, number>;

async function timed(fn: () => Promise<unknown>, repeat: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

async function measure(cluster: DevCluster): Promise<Results> {
  const api = await ApiClient.load(cluster.kubeconfigPath);
  const results: Results = new Map();
  await api.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < OBJECTS) {
        const i = next++;
        await api.request('POST', '/api/v1/namespaces/bench/configmaps', {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${i}`, labels: { n: String(i % 10) } },
          data: { payload: 'x'.repeat(200) },
        });
      }
    }),
  );
  results.set(
    'list 10k objects, JSON (ms)',
    await timed(() => api.request('GET', '/api/v1/namespaces/bench/configmaps'), 5),
  );
  results.set(
    'list 10k objects, Table (ms)',
    await timed(() => api.request('GET', '/api/v1/namespaces/bench/configmaps', undefined, { Accept: TABLE }), 5),
  );
  results.set(
    'list 10k objects, pages of 500 (ms)',
    await timed(async () => {
      let token = '';
      do
        token =
          (
            await api.request(
              'GET',
              `/api/v1/namespaces/bench/configmaps?limit=500${token ? `&continue=${token}` : ''}`,
            )
          ).body.metadata.continue ?? '';
      while (token);
    }, 3),
  );
  results.set(
    'list with label selector, 1k of 10k match (ms)',
    await timed(() => api.request('GET', '/api/v1/namespaces/bench/configmaps?labelSelector=n%3D3'), 5),
  );

  const watches: WatchStream[] = [];
  for (let i = 0; i < WATCHERS; i++)
    watches.push(api.watch('/api/v1/namespaces/bench/secrets?watch=true&resourceVersion=1'));
  await sleep(500);
  const started = performance.now();
  const sent = new Map<string, number>();
  for (let i = 0; i < WATCHED_WRITES; i++) {
    sent.set(`s-${i}`, performance.now());
    await api.request('POST', '/api/v1/namespaces/bench/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `s-${i}` },
      stringData: { a: 'b' },
    });
  }
  await Promise.all(watches.map((w) => w.waitFor((events) => events.length >= WATCHED_WRITES, 60_000)));
  const total = performance.now() - started;
  watches.forEach((w) => w.close());
  results.set(`watch fan-out: ${WATCHED_WRITES} writes to ${WATCHERS} watchers, all delivered (ms)`, total);
  results.set('watch fan-out: events delivered per second', (WATCHED_WRITES * WATCHERS) / (total / 1000));
  return results;
}

export async function benchDevcluster(): Promise<void> {
  const embeddedDir = await makeTempDir('bench-devcluster');
  const etcdDir = await makeTempDir('bench-devcluster-etcd');
  const etcd = await startEtcd();
  try {
    const embedded = await startDevCluster({ listen: '127.0.0.1:0', dataDir: embeddedDir.dir });
    const embeddedResults = await measure(embedded);
    await embedded.stop();
    const onEtcd = await startDevCluster({
      listen: '127.0.0.1:0',
      dataDir: etcdDir.dir,
      etcdEndpoints: [etcd.endpoint],
    });
    const etcdResults = await measure(onEtcd);
    await onEtcd.stop();
    const rows = [...embeddedResults.keys()].map((k) => [
      k,
      embeddedResults.get(k)!.toFixed(1),
      etcdResults.get(k)!.toFixed(1),
      (embeddedResults.get(k)! / etcdResults.get(k)!).toFixed(2),
    ]);
    process.stdout.write('\n');
    printTable(['devcluster over HTTPS', 'embedded', 'etcd 3.4', 'embedded/etcd'], rows);
  } finally {
    await etcd.stop();
    await embeddedDir.remove();
    await etcdDir.remove();
  }
}
