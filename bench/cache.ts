/**
 * `cache`: the gateway's multi-cluster search cache (karmada-search's proxy path) over three
 * devclusters, in one run:
 *
 * 1. LIST of every Pod (10k realistic ones spread over the clusters) from the cache through
 *    `/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy/api/v1/pods`, with resourceVersion
 *    0 and "" (consistent: each cluster's revision is probed first), against the same Pods listed
 *    on the three clusters directly, one list after another and all three at once; and the same
 *    paged (limit=500, following continue).
 * 2. Watch fan-out: N watchers on the proxy path while paced writers create and patch Pods on the
 *    clusters directly; events delivered per second, write-to-event latency, gateway CPU per event.
 * 3. Memory: in a process of its own, 10k, 100k and 1M small Pods in the cache's stores, heap per
 *    object against its JSON, and the time to list them all from the cache and over HTTP.
 *
 * Targets are printed, never asserted: the 10k LIST within 0.2 s and faster than the direct lists
 * together; memory within 1.3× the objects' JSON; the largest memory size (1M) listed within 20 s,
 * from the cache and over HTTP.
 */
import { withClusters, type ClustersEnvironment } from './harness/clusters-environment.js';
import type { CacheMemoryRun, CacheMemorySpec } from './harness/cache-memory-worker.js';
import { measureInTurns, type NamedLoad } from './harness/compare.js';
import type { BenchOptions } from './harness/environment.js';
import type { LoadSummary } from './harness/load.js';
import { CACHE_MEMORY_WORKER } from './harness/locations.js';
import { writePaced, type WriterRun } from './harness/paced-writer.js';
import { cpuSeconds } from './harness/process-stats.js';
import {
  formatMs,
  formatPerSecond,
  formatRatio,
  mib,
  printProfiles,
  progress,
  saveResults,
} from './harness/results.js';
import {
  cachePodsOfAllClusters,
  cacheRevision,
  clusterRevision,
  createPodsAcross,
  PROXY_PATH,
} from './harness/search-cache.js';
import { histogramPercentile, openWatchers } from './harness/watchers.js';
import { runWorker } from './harness/worker.js';
import { printTable } from './table.js';

const CLUSTERS = 3;
const NAMESPACE = 'bench';
const PAGE = 500;
/** With this long without an event after the last write, what has not come is missed. */
const IDLE_MS = 10_000;
const TARGET_LIST_MS = 200;
const TARGET_HEAP_PER_JSON = 1.3;
const TARGET_LARGEST_LIST_MS = 20_000;

interface Sizes {
  pods: number;
  /** Turns per list load (measureInTurns): two at full size, where a 10k list takes a good part of a second. */
  rounds: number;
  lists: number;
  pagedLists: number;
  watch: WatchSize[];
  secondsPerWatchRun: number;
  memoryObjects: number[];
}

interface WatchSize {
  load: 'steady' | 'saturating';
  watchers: number;
  writesPerSec: number;
}

const FULL: Sizes = {
  pods: 10_000,
  rounds: 2,
  lists: 20,
  pagedLists: 10,
  watch: [
    { load: 'steady', watchers: 1, writesPerSec: 300 },
    { load: 'steady', watchers: 100, writesPerSec: 30 },
    { load: 'saturating', watchers: 100, writesPerSec: 200 },
  ],
  secondsPerWatchRun: 5,
  memoryObjects: [10_000, 100_000, 1_000_000],
};
const QUICK: Sizes = {
  pods: 150,
  rounds: 1,
  lists: 4,
  pagedLists: 2,
  watch: [{ load: 'steady', watchers: 10, writesPerSec: 60 }],
  secondsPerWatchRun: 1,
  memoryObjects: [2_000],
};

/** A list row: a load's whole iterations (three lists for the direct ones). */
interface ListCase {
  name: string;
  summary: LoadSummary;
  /** This row's latency over the direct lists', one after another and at once. */
  ratios?: { p50Sum: number; p50Parallel: number; p99Sum: number; p99Parallel: number };
}

/**
 * Where a watch run's watchers are and where its writes go: the cache's watch with writes on every
 * cluster (its fan-out and merge), and the cache's watch next to a direct watch of one cluster
 * with writes on that cluster only (the same events, so the ratio is the cache's cost).
 */
type WatchSide = 'cache, writes on all clusters' | 'cache, writes on member1' | 'direct on member1';
const WATCH_SIDES: WatchSide[] = ['cache, writes on all clusters', 'cache, writes on member1', 'direct on member1'];

interface WatchCase {
  name: string;
  side: WatchSide;
  watchers: number;
  writes: number;
  failedWrites: number;
  firstWriteError?: string;
  writesPerSec: number;
  events: number;
  expected: number;
  missed: number;
  duplicates: number;
  watchErrors: number;
  firstError?: string;
  /** From the first write sent to the last event received. */
  seconds: number;
  eventsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  meanEventBytes: number;
  gatewayCpuSeconds: number;
  gatewayCpuMicrosPerEvent: number;
  /** The cache's on member1 over the direct watch's: latency, and events per second (direct ÷ cache). */
  ratios?: { p50: number; p99: number; throughput: number };
}

export async function benchCache(options: BenchOptions): Promise<number> {
  const sizes = options.quick ? QUICK : FULL;
  const counts = spread(sizes.pods, CLUSTERS);
  const { result, run } = await withClusters(
    options,
    CLUSTERS,
    async (env) => {
      progress(`creating ${sizes.pods} pods over ${CLUSTERS} devclusters`);
      await createPodsAcross(env, NAMESPACE, counts);
      progress('applying a ResourceRegistry of all Pods; waiting for the cache to hold them');
      await cachePodsOfAllClusters(env, sizes.pods);
      const lists = await measureLists(env, sizes, counts, 'full');
      const paged = await measureLists(env, sizes, counts, 'paged');
      const watches: WatchCase[] = [];
      // The first events go through cold code: this run is not measured, but its failures count.
      const warmup = await watchRun(
        env,
        { load: 'steady', watchers: 10, writesPerSec: 60 },
        'cache, writes on all clusters',
        60,
        'w0',
        'warmup',
      );
      let index = 1;
      for (const size of sizes.watch) {
        const writes = Math.round(size.writesPerSec * sizes.secondsPerWatchRun);
        const name = `${size.load}: ${size.watchers} watcher${size.watchers === 1 ? '' : 's'} × ${size.writesPerSec} writes/s`;
        const sides: WatchCase[] = [];
        for (const side of WATCH_SIDES) sides.push(await watchRun(env, size, side, writes, `w${index++}`, name));
        const [, cache, direct] = sides;
        cache.ratios = {
          p50: cache.p50Ms / direct.p50Ms,
          p99: cache.p99Ms / direct.p99Ms,
          throughput: direct.eventsPerSec / cache.eventsPerSec,
        };
        watches.push(...sides);
      }
      return { lists, paged, watches, warmup };
    },
    ['--cluster-status-update-frequency', '1s'],
  );
  const memory: CacheMemoryRun[] = [];
  for (const objects of sizes.memoryObjects) {
    progress(`memory: ${objects.toLocaleString('en-US')} small pods in the cache, in-process`);
    memory.push(
      await runWorker<CacheMemoryRun>(
        'cache memory worker',
        CACHE_MEMORY_WORKER,
        { objects, clusters: CLUSTERS } satisfies CacheMemorySpec,
        { nodeArgs: ['--expose-gc'] },
      ),
    );
  }

  const header = `${sizes.pods.toLocaleString('en-US')} pods over ${CLUSTERS} devclusters`;
  process.stdout.write(
    `\ncache${options.quick ? ' (quick)' : ''}: LIST of all ${header}: from the gateway's search cache through the proxy path, and directly on the clusters (three lists, one after another or at once); latency of the whole (all three lists, all pages); ratios are cache ÷ direct (below 1.00x: the cache is faster)\n`,
  );
  printTable(
    [
      'list',
      'p50 ms',
      'p99 ms',
      'lists/s',
      'MB per list',
      'p50 ÷ direct sum',
      'p50 ÷ direct parallel',
      'p99 ÷ direct sum',
      'p99 ÷ direct parallel',
    ],
    [...result.lists, ...result.paged].map((c) => [
      c.name,
      formatMs(c.summary.iteration.p50Ms),
      formatMs(c.summary.iteration.p99Ms),
      formatPerSecond(c.summary.iteration.throughputPerSec),
      (c.summary.steps.reduce((sum, step) => sum + step.meanResponseBytes, 0) / 1e6).toFixed(1),
      ...(c.ratios
        ? [c.ratios.p50Sum, c.ratios.p50Parallel, c.ratios.p99Sum, c.ratios.p99Parallel].map(formatRatio)
        : ['', '', '', '']),
    ]),
  );
  const cacheList = result.lists[0];
  process.stdout.write(
    `target: the ${header} LIST ≤ ${TARGET_LIST_MS} ms and faster than the direct lists together: p50 ${formatMs(cacheList.summary.iteration.p50Ms)} ms (resourceVersion=0), ${formatRatio(cacheList.ratios!.p50Sum)} of the direct lists one after another, ${formatRatio(cacheList.ratios!.p50Parallel)} of them at once\n`,
  );

  process.stdout.write(
    `\ncache watch: watchers on the proxy path (the search cache's fan-out) while writers create and patch Pods directly on the clusters (all ${CLUSTERS}, or member1 only beside a direct watch of member1 with the same writes); latency from a write sent to its event received; the gateway's CPU time per event delivered (its reflectors' included: on a direct watch that is all it does)\n`,
  );
  printTable(
    [
      'watch',
      'side',
      'writes/s',
      'events/s',
      'p50 ms',
      'p99 ms',
      'bytes/event',
      'gateway CPU',
      'gateway µs CPU/event',
      'p50 ÷ direct',
      'p99 ÷ direct',
      'events/s direct ÷ cache',
    ],
    result.watches.map((w) => [
      w.name,
      w.side,
      formatPerSecond(w.writesPerSec),
      formatPerSecond(w.eventsPerSec),
      formatMs(w.p50Ms),
      formatMs(w.p99Ms),
      Math.round(w.meanEventBytes).toLocaleString('en-US'),
      `${Math.round((100 * w.gatewayCpuSeconds) / w.seconds)}%`,
      w.gatewayCpuMicrosPerEvent.toFixed(1),
      ...(w.ratios ? [w.ratios.p50, w.ratios.p99, w.ratios.throughput].map(formatRatio) : ['', '', '']),
    ]),
  );
  process.stdout.write(
    `memory at the end: gateway RSS ${mib(run.memory.gatewayRssBytes)}, devclusters RSS ${mib(run.memory.devclusterRssBytes)} together\n`,
  );

  process.stdout.write(
    `\ncache memory: small running Pods in the cache's stores (${CLUSTERS} clusters), in one process (node --expose-gc, default heap limit); heap after GC per cached object against its JSON; MultiClusterCache.list of all of them (resourceVersion=0) with each item's answer text made, and the same list as an HTTP answer on loopback\n`,
  );
  printTable(
    [
      'objects',
      'JSON B/object',
      'cached text B/object',
      'heap B/object',
      'heap ÷ JSON',
      'heap ÷ text',
      'list ms',
      'HTTP ms',
      'HTTP MB',
    ],
    memory.map((m) => [
      m.objects.toLocaleString('en-US'),
      Math.round(m.jsonBytesPerObject).toLocaleString('en-US'),
      Math.round(m.textBytesPerObject).toLocaleString('en-US'),
      Math.round(m.heapBytesPerObject).toLocaleString('en-US'),
      formatRatio(m.heapBytesPerObject / m.jsonBytesPerObject),
      formatRatio(m.heapBytesPerObject / m.textBytesPerObject),
      formatMs(m.listMs),
      formatMs(m.httpMs),
      (m.httpBytes / 1e6).toFixed(0),
    ]),
  );
  const worst = Math.max(...memory.map((m) => m.heapBytesPerObject / m.jsonBytesPerObject));
  process.stdout.write(`target: memory ≤ ${TARGET_HEAP_PER_JSON}× the objects' JSON: at most ${formatRatio(worst)}\n`);
  const largest = memory[memory.length - 1];
  process.stdout.write(
    `target: ${largest.objects.toLocaleString('en-US')} objects listed ≤ ${TARGET_LARGEST_LIST_MS / 1000} s: ${formatMs(largest.listMs)} ms from the cache, ${formatMs(largest.httpMs)} ms over HTTP\n`,
  );

  const errors = countErrors([...result.lists, ...result.paged], [...result.watches, result.warmup], memory);
  await saveResults('cache', {
    quick: options.quick,
    memory: run.memory,
    cpuProfiles: run.cpuProfiles,
    lists: result.lists,
    paged: result.paged,
    watches: result.watches,
    warmup: result.warmup,
    cacheMemory: memory,
  });
  await printProfiles(run.cpuProfiles);
  return errors;
}

/** `total` split over `parts` as evenly as it goes. */
function spread(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

/** The cache's list (resourceVersion 0 and "") next to the direct lists, in turns; `paged` follows continue at limit=500. */
async function measureLists(
  env: ClustersEnvironment,
  sizes: Sizes,
  counts: number[],
  form: 'full' | 'paged',
): Promise<ListCase[]> {
  const paged = form === 'paged';
  const query = (rest: Record<string, string>) => {
    const params = new URLSearchParams({ ...(paged ? { limit: String(PAGE) } : {}), ...rest }).toString();
    return params ? `?${params}` : '';
  };
  const cache = (resourceVersion: string | undefined): NamedLoad['templates'] => [
    {
      method: 'GET',
      path: `${PROXY_PATH}/api/v1/pods${query(resourceVersion === undefined ? {} : { resourceVersion })}`,
      expectItems: sizes.pods,
      pages: paged,
    },
  ];
  const direct = env.members.map((_, i) => ({
    method: 'GET',
    path: `/api/v1/pods${query({})}`,
    expectItems: counts[i],
    target: i,
    pages: paged,
  }));
  const targets = env.members.map((member) => member.admin);
  const suffix = paged ? `, pages of ${PAGE}` : '';
  const loads: NamedLoad[] = [
    { name: `cache, resourceVersion=0${suffix}`, target: env.gatewayAdmin, templates: cache('0') },
    { name: `cache, resourceVersion "" (consistent)${suffix}`, target: env.gatewayAdmin, templates: cache(undefined) },
    { name: `direct, 3 lists one after another${suffix}`, target: targets[0], templates: direct, targets },
    {
      name: `direct, 3 lists at once${suffix}`,
      target: env.gatewayAdmin,
      templates: direct,
      targets,
      stepsAtOnce: true,
    },
  ];
  const iterations = paged ? sizes.pagedLists : sizes.lists;
  const summaries = await measureInTurns(
    `list ${sizes.pods} pods${suffix}`,
    loads,
    { concurrency: 1, warmup: 2, iterations },
    sizes.rounds,
  );
  const [sum, parallel] = summaries.slice(2).map((s) => s.iteration);
  return loads.map((load, i) => {
    const { iteration } = summaries[i];
    return {
      name: load.name,
      summary: summaries[i],
      ratios:
        i < 2
          ? {
              p50Sum: iteration.p50Ms / sum.p50Ms,
              p50Parallel: iteration.p50Ms / parallel.p50Ms,
              p99Sum: iteration.p99Ms / sum.p99Ms,
              p99Parallel: iteration.p99Ms / parallel.p99Ms,
            }
          : undefined,
    };
  });
}

/**
 * One watch run: the watchers open at the current revision (the cache's, or member1's for a
 * direct watch), then the writers write the numbered writes: each cluster its share, or member1 all.
 */
async function watchRun(
  env: ClustersEnvironment,
  size: WatchSize,
  side: WatchSide,
  writes: number,
  prefix: string,
  name: string,
): Promise<WatchCase> {
  progress(`watch: ${name}, ${side}`);
  const direct = side === 'direct on member1';
  const writeTo = side === 'cache, writes on all clusters' ? env.members : env.members.slice(0, 1);
  const revision = direct ? await clusterRevision(env.members[0]) : await cacheRevision(env);
  const query = `watch=1&resourceVersion=${encodeURIComponent(revision)}`;
  const watchers = await openWatchers({
    ...(direct ? env.members[0].admin : env.gatewayAdmin),
    path: direct ? `/api/v1/pods?${query}` : `${PROXY_PATH}/api/v1/pods?${query}`,
    watchers: size.watchers,
    writes,
    idleMs: IDLE_MS,
  });
  try {
    const cpuBefore = await cpuSeconds(env.gateway.pid);
    const writers: WriterRun[] = await Promise.all(
      writeTo.map((member, k) =>
        writePaced(
          member.admin,
          NAMESPACE,
          prefix,
          Math.ceil((writes - k) / writeTo.length),
          size.writesPerSec / writeTo.length,
          { resource: 'pods', stride: writeTo.length, offset: k },
        ),
      ),
    );
    const failedSeqs = writers.flatMap((writer) => writer.failedSeqs);
    const watch = await watchers.finish(failedSeqs);
    const gatewayCpuSeconds = (await cpuSeconds(env.gateway.pid)) - cpuBefore;
    await watchers.close();
    const writerSeconds = Math.max(...writers.map((writer) => writer.seconds));
    return {
      name,
      side,
      watchers: size.watchers,
      writes,
      failedWrites: failedSeqs.length,
      firstWriteError: writers.find((writer) => writer.firstError)?.firstError,
      writesPerSec: (writes - failedSeqs.length) / writerSeconds,
      events: watch.events,
      expected: watch.expected,
      missed: watch.missed,
      duplicates: watch.duplicates,
      watchErrors: watch.errors,
      firstError: watch.firstError,
      seconds: watch.seconds,
      eventsPerSec: watch.seconds ? watch.events / watch.seconds : 0,
      p50Ms: histogramPercentile(watch.latencyHistogram, watch.events, 50),
      p99Ms: histogramPercentile(watch.latencyHistogram, watch.events, 99),
      meanEventBytes: watch.events ? watch.bytes / watch.events : 0,
      gatewayCpuSeconds,
      gatewayCpuMicrosPerEvent: watch.events ? (gatewayCpuSeconds * 1e6) / watch.events : NaN,
    };
  } catch (err) {
    // The worker's exit is then a consequence, not the news.
    await watchers.close().catch(() => undefined);
    throw err;
  }
}

/** Prints every failure and counts them: failed requests, writes and events, and objects not cached or listed. */
function countErrors(lists: ListCase[], watches: WatchCase[], memory: CacheMemoryRun[]): number {
  let errors = 0;
  for (const c of lists) {
    if (!c.summary.errors) continue;
    errors += c.summary.errors;
    process.stdout.write(`ERRORS: ${c.name}: ${c.summary.errors} failed requests; first: ${c.summary.firstError}\n`);
  }
  for (const w of watches) {
    const failures = w.missed + w.watchErrors + w.failedWrites;
    if (!failures) continue;
    errors += failures;
    process.stdout.write(
      `ERRORS: watch ${w.name}, ${w.side}: ${w.missed} of ${w.expected} events missed, ${w.watchErrors} watch failures (${w.duplicates} duplicate events among them), ${w.failedWrites} failed writes; first: ${w.firstError ?? w.firstWriteError}\n`,
    );
  }
  for (const m of memory) {
    if (m.cached === m.objects && m.listItems === m.objects) continue;
    errors++;
    process.stdout.write(`ERRORS: memory: ${m.objects} objects, ${m.cached} cached, ${m.listItems} listed\n`);
  }
  return errors;
}
