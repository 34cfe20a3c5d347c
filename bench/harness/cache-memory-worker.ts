/**
 * The `cache` benchmark's in-process part, in a node of its own started with `--expose-gc`: reads
 * `{ objects, clusters }` as JSON on stdin, fills a MultiClusterCache's stores (one per cluster)
 * with that many small Pods through toCachedObject, as a reflector's first list fills them, and
 * prints a CacheMemoryRun as JSON: the heap the cached objects hold against their JSON, and how
 * long it takes to list them all from the cache and to send that list over HTTP on loopback.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseCacheReadOptions } from '../../search/cache-read-options.js';
import { serveCacheRead } from '../../search/cache-response.js';
import type { CacheResource } from '../../search/cluster-resource-store.js';
import { listItemTexts, MultiClusterCache } from '../../search/multi-cluster-cache.js';
import { selectableFieldsOf, toCachedObject } from '../../search/to-cached-object.js';
import type { CachedObject } from '../../search/cached-object.js';
import { smallPodJson } from './small-pod.js';

export interface CacheMemorySpec {
  objects: number;
  clusters: number;
}

export interface CacheMemoryRun {
  objects: number;
  /** Objects the stores hold once filled. */
  cached: number;
  /** Bytes per object: JSON as the cluster sent it, the cached text (no managedFields), heap. */
  jsonBytesPerObject: number;
  textBytesPerObject: number;
  heapBytesPerObject: number;
  /** MultiClusterCache.list of every object, resourceVersion 0, and each item's answer text made: the items answered. */
  listMs: number;
  listItems: number;
  /** The same list as an HTTP answer on loopback, read to its last byte. */
  httpMs: number;
  httpBytes: number;
}

const PODS: CacheResource = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

/** GET of `path`, read to the last byte: its size and time. */
function fetchSize(server: Server, path: string): Promise<{ ms: number; bytes: number }> {
  const { port } = server.address() as AddressInfo;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers: { accept: 'application/json' } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () =>
        res.statusCode === 200
          ? resolve({ ms: performance.now() - started, bytes })
          : reject(new Error(`GET ${path}: ${res.statusCode}`)),
      );
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

const spec = JSON.parse(await readStdin()) as CacheMemorySpec;
const clusterNames = Array.from({ length: spec.clusters }, (_, i) => `member${i + 1}`);
const cache = new MultiClusterCache();
const { added } = cache.updateCache(
  new Map(clusterNames.map((cluster) => [cluster, [{ resource: PODS, namespaces: 'all' as const }]])),
  [PODS],
);
const fieldsOf = selectableFieldsOf(PODS.group, PODS.resource, PODS.namespaced);
let jsonBytes = 0;
let textBytes = 0;
const before = heapAfterGc();
for (const [index, store] of added.entries()) {
  const items: CachedObject[] = [];
  for (let i = index; i < spec.objects; i += added.length) {
    const json = smallPodJson(i);
    jsonBytes += json.length;
    const cached = toCachedObject(JSON.parse(json), fieldsOf);
    textBytes += cached.text.length;
    items.push(cached);
  }
  store.replace(items, String(100000 + spec.objects));
}
// Reads keep each store's keys sorted between writes: that array is part of the cost.
const cached = added.reduce((sum, store) => sum + store.size, 0);
const heapBytes = heapAfterGc() - before;

/** Every object listed from the cache, each item's answer text made as the HTTP answer makes it (and dropped). */
async function listAll(): Promise<{ listMs: number; listItems: number }> {
  const options = parseCacheReadOptions(new URLSearchParams({ resourceVersion: '0' }), PODS);
  const started = performance.now();
  const answer = await cache.list({ resource: PODS, namespace: '', options });
  if (!answer.fresh) throw new Error('the cache answered stale');
  let listItems = 0;
  for (const text of listItemTexts(answer.value)) if (text.length > 0) listItems++;
  return { listMs: performance.now() - started, listItems };
}

const { listMs, listItems } = await listAll();

const server = createServer((req, res) => {
  serveCacheRead(req, res, cache, {
    resource: PODS,
    namespace: '',
    query: new URL(req.url ?? '/', 'http://cache').searchParams,
    watch: false,
  }).catch((err: Error) => res.destroy(err));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const http = await fetchSize(server, '/api/v1/pods?resourceVersion=0');
server.close();
cache.stop();

const run: CacheMemoryRun = {
  objects: spec.objects,
  cached,
  jsonBytesPerObject: jsonBytes / spec.objects,
  textBytesPerObject: textBytes / spec.objects,
  heapBytesPerObject: heapBytes / spec.objects,
  listMs,
  listItems,
  httpMs: http.ms,
  httpBytes: http.bytes,
};
process.stdout.write(`${JSON.stringify(run)}\n`);
