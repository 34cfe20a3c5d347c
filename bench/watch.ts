/**
 * `watch`: 1, 100 and 1,000 watchers of one tenant's ConfigMaps in `default` while a writer
 * creates and patches ConfigMaps there upstream at a steady rate, on the direct path and through
 * the gateway, which answers them from its cache: one upstream watch of ConfigMaps shared by every
 * tenant watch, each event converted once per watch set (gateway/cached/cached-watch.ts).
 * Measured: events delivered per second (all watchers together), the latency from a write sent
 * to its event received, the events the gateway delivered per second of its own CPU time, how its
 * watches were shared, and its RSS before and after. Every watcher must receive every write once.
 *
 * Two loads: a steady one both paths keep up with, where latency means something, and one more
 * than this machine keeps up with, where events queue (so latency grows with the run) and the
 * events per second delivered are the capacity. The largest case runs again on a second gateway
 * started with `--watch-flush-interval`, which trades up to that much latency for several events
 * per TLS write.
 */
import { RestClient } from '../apiserver/client/rest-client.js';
import { withEnvironment, type BenchEnvironment, type BenchOptions } from './harness/environment.js';
import { writePaced } from './harness/paced-writer.js';
import { readGatewayMetrics, type MetricReading } from './harness/gateway-metrics.js';
import { cpuSeconds } from './harness/process-stats.js';
import { rssBytes } from './harness/processes.js';
import { sleep } from './harness/sleep.js';
import {
  formatPerSecond,
  formatRatio,
  latencyCells,
  LATENCY_COLUMNS,
  mib,
  printProfiles,
  progress,
  saveResults,
} from './harness/results.js';
import { createBenchTenant, type BenchTenant } from './harness/tenant.js';
import { measureTlsWriteFloor } from './harness/tls-write-floor.js';
import { histogramPercentile, openWatchers, type WatchRun } from './harness/watchers.js';
import { printTable } from './table.js';

const TENANT = 'benwat';
/** With this long without an event after the last write, what has not come is missed. */
const IDLE_MS = 10_000;
/** How long the gateway is left idle after the runs before its RSS is read again (quick: 2 s). */
const SETTLE_MS = 30_000;
/** The last case again on a gateway with `--watch-flush-interval` this long: fewer TLS writes per event, for at most this much latency. */
const FLUSH_MS = 100;
/** Before the measured runs, one second of this on each side. */
const WARMUP: Size = { load: 'steady', watchers: 10, writesPerSec: 200 };

interface Size {
  load: 'steady' | 'saturating';
  watchers: number;
  /** Writes per second: events per second offered are this times the watchers. */
  writesPerSec: number;
}

/** What one side delivered, its runs pooled. */
interface SideResult {
  runs: number;
  watchers: number;
  writes: number;
  writeErrors: number;
  /** Writes per second reached (the writer may fall behind its schedule). */
  writesPerSec: number;
  events: number;
  expected: number;
  missed: number;
  duplicates: number;
  /** Watch failures: refused, ended early, unreadable or duplicate events. */
  errors: number;
  firstError?: string;
  seconds: number;
  eventsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  meanEventBytes: number;
  gatewayCpuSeconds: number;
  devclusterCpuSeconds: number;
  /** Gateway side: how its watches were served, read from its /metrics once all were open (the largest of its runs). */
  sharing?: Sharing;
}

/** How the gateway served a run's watches. */
interface Sharing {
  /** Tenant watches answered from the cache (`paddock_tenant_watch_sets{count="watchers"}`). */
  fromCache: number;
  /** Watch sets they formed: each event is converted once per set. */
  sets: number;
  /** Upstream watches the gateway opened for them (forwarded watches); the cache's own watch of the resource is one, opened before. */
  upstreamWatchesOpened: number;
}

interface WatchCase {
  name: string;
  watchers: number;
  offeredWritesPerSec: number;
  direct: SideResult;
  gateway: SideResult;
  /** gateway/direct for latency, direct/gateway for events per second: how many times worse the gateway path is. */
  ratios: { p50: number; p99: number; throughput: number };
  /** Events the gateway converted and sent per second of its own CPU time (user + system, all threads). */
  gatewayEventsPerCpuSecond: number;
  /** The same watchers, rate and event size written by a process that only writes (tls-write-floor.ts). */
  floorEventsPerCpuSecond: number;
}

/** The gateway's memory at one moment: RSS from /proc, the rest from its /metrics. */
interface GatewayMemory {
  rssBytes: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
  /** Memory V8 accounts to objects outside its heap: Buffers, mostly. */
  externalBytes: number;
}

async function gatewayMemory(env: BenchEnvironment): Promise<GatewayMemory> {
  const metric = await readGatewayMetrics(env);
  return {
    rssBytes: await rssBytes(env.gateway.pid),
    heapUsedBytes: metric('paddock_nodejs_heap_size_used_bytes'),
    heapTotalBytes: metric('paddock_nodejs_heap_size_total_bytes'),
    externalBytes: metric('paddock_nodejs_external_memory_bytes'),
  };
}

interface SideRun {
  watch: WatchRun;
  writes: number;
  writeErrors: number;
  firstWriteError?: string;
  writerSeconds: number;
  gatewayCpuSeconds: number;
  devclusterCpuSeconds: number;
  sharing?: Sharing;
}

export async function benchWatch(options: BenchOptions): Promise<number> {
  const sizes: Size[] = options.quick
    ? [
        { load: 'steady', watchers: 10, writesPerSec: 50 },
        { load: 'saturating', watchers: 20, writesPerSec: 200 },
      ]
    : [
        { load: 'steady', watchers: 1, writesPerSec: 1000 },
        { load: 'steady', watchers: 100, writesPerSec: 100 },
        { load: 'steady', watchers: 1000, writesPerSec: 10 },
        { load: 'saturating', watchers: 100, writesPerSec: 400 },
        { load: 'saturating', watchers: 1000, writesPerSec: 40 },
      ];
  const secondsPerRun = options.quick ? 1 : 5;
  const settleMs = options.quick ? 2000 : SETTLE_MS;
  const rounds = options.quick ? 1 : 2;
  const measure = { secondsPerRun, rounds };
  const { result, run } = await withEnvironment(options, async (env) => {
    const tenant = await createBenchTenant(env, TENANT);
    await sleep(1000);
    const idle = await gatewayMemory(env);
    const warmup = await warmUp(env, tenant);
    const cases: WatchCase[] = [];
    for (const size of sizes) cases.push(await measureCase(env, tenant, size, measure));
    await sleep(1000);
    const after = await gatewayMemory(env);
    // V8 gives back what the load grew only once it sees the process idle; what stays is what counts.
    progress(`gateway RSS ${mib(after.rssBytes)} after the runs; ${settleMs / 1000} s idle`);
    await sleep(settleMs);
    return { cases, warmup, memory: { idle, after, settled: await gatewayMemory(env) } };
  });
  // The largest fan-out again, on a gateway that writes a busy watch set at most every FLUSH_MS.
  const flushed = await withEnvironment(
    options,
    async (env) => {
      const tenant = await createBenchTenant(env, TENANT);
      const warmup = await warmUp(env, tenant);
      const size = sizes.at(-1)!;
      return { warmup, case: await measureCase(env, tenant, size, measure, `, --watch-flush-interval ${FLUSH_MS}ms`) };
    },
    ['--watch-flush-interval', `${FLUSH_MS}ms`],
  );
  result.cases.push(flushed.result.case);
  run.cpuProfiles.push(...flushed.run.cpuProfiles);
  const { cases } = result;

  process.stdout.write(
    `\nwatch${options.quick ? ' (quick)' : ''}: events delivered to all watchers together; latency from a write sent upstream to its event received (under a saturating load, events queue and latency grows with the run); ratios say how many times worse the gateway path is (1.00x: no cost); then the gateway's CPU time during its runs, and the events per CPU-second of a process that only writes each event to each watcher's TLS socket (the floor: one TLS write per event per watcher); the last case runs again on a gateway started with --watch-flush-interval ${FLUSH_MS}ms, which writes a busy watch set's events to each watcher at most every ${FLUSH_MS} ms, several to a write\n`,
  );
  printTable(
    [
      'watch',
      'watchers',
      'direct events/s',
      'gateway events/s',
      'events/s ratio',
      ...LATENCY_COLUMNS,
      'gateway CPU',
      'gateway events/CPU-s',
      'floor events/CPU-s',
    ],
    cases.map((c) => [
      c.name,
      String(c.watchers),
      formatPerSecond(c.direct.eventsPerSec),
      formatPerSecond(c.gateway.eventsPerSec),
      formatRatio(c.ratios.throughput),
      ...latencyCells(c),
      `${Math.round((100 * c.gateway.gatewayCpuSeconds) / c.gateway.seconds)}%`,
      formatPerSecond(c.gatewayEventsPerCpuSecond),
      formatPerSecond(c.floorEventsPerCpuSecond),
    ]),
  );
  printTable(
    ['gateway side', 'watchers', 'served from the cache', 'watch sets', 'upstream watches opened'],
    cases.map((c) => [
      c.name,
      String(c.watchers),
      String(c.gateway.sharing?.fromCache ?? '-'),
      String(c.gateway.sharing?.sets ?? '-'),
      String(c.gateway.sharing?.upstreamWatchesOpened ?? '-'),
    ]),
  );
  const { idle } = result.memory;
  printTable(
    ['gateway memory', 'RSS', 'RSS / idle', 'V8 heap used', 'V8 heap total', 'external', 'RSS - heap - external'],
    (
      [
        ['idle, before the runs', idle],
        ['just after the runs', result.memory.after],
        [`${settleMs / 1000} s later`, result.memory.settled],
      ] as const
    ).map(([moment, m]) => [
      moment,
      mib(m.rssBytes),
      formatRatio(m.rssBytes / idle.rssBytes),
      mib(m.heapUsedBytes),
      mib(m.heapTotalBytes),
      mib(m.externalBytes),
      mib(m.rssBytes - m.heapTotalBytes - m.externalBytes),
    ]),
  );
  process.stdout.write(
    `at the end: gateway RSS ${mib(run.memory.gatewayRssBytes)}, devcluster RSS ${mib(run.memory.devclusterRssBytes)}\n`,
  );
  let errors = 0;
  const sides = [
    ...cases.flatMap(
      (c) =>
        [
          [`${c.name}, ${c.watchers} watchers, direct`, c.direct],
          [`${c.name}, ${c.watchers} watchers, gateway`, c.gateway],
        ] as const,
    ),
    ['warmup, both sides', result.warmup] as const,
    ['warmup before the flush-interval runs, both sides', flushed.result.warmup] as const,
  ];
  for (const [what, s] of sides) {
    const failures = s.errors + s.missed + s.writeErrors;
    if (!failures) continue;
    errors += failures;
    process.stdout.write(
      `ERRORS: ${what}: ${s.missed} of ${s.expected} events missed, ${s.errors} watch failures (${s.duplicates} duplicate events among them), ${s.writeErrors} failed writes; first: ${s.firstError}\n`,
    );
  }
  await saveResults('watch', {
    quick: options.quick,
    memory: run.memory,
    cpuProfiles: run.cpuProfiles,
    cases,
    warmup: result.warmup,
    gatewayMemory: { ...result.memory, settleMs },
  });
  await printProfiles(run.cpuProfiles);
  return errors;
}

/** A fresh gateway converts its first events with cold code: these runs are not measured, but their failures count. */
async function warmUp(env: BenchEnvironment, tenant: BenchTenant): Promise<SideResult> {
  const runs: SideRun[] = [];
  for (const side of ['direct', 'gateway'] as const) {
    progress(`warmup: ${side}`);
    runs.push(await runSide(env, tenant, side, WARMUP, WARMUP.writesPerSec, `w${runs.length}`));
  }
  return pool(runs);
}

/** One size, both sides in alternating rounds, then the TLS write floor for it. */
async function measureCase(
  env: BenchEnvironment,
  tenant: BenchTenant,
  size: Size,
  { secondsPerRun, rounds }: { secondsPerRun: number; rounds: number },
  gatewayNote = '',
): Promise<WatchCase> {
  const runs = { direct: [] as SideRun[], gateway: [] as SideRun[] };
  const what = `${size.watchers} watcher${size.watchers === 1 ? '' : 's'}, ${size.writesPerSec} writes/s`;
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? (['direct', 'gateway'] as const) : (['gateway', 'direct'] as const)) {
      progress(`${what}: ${side}${gatewayNote} (${round + 1}/${rounds})`);
      const prefix = `s${size.watchers}x${size.writesPerSec}${side[0]}${round}`;
      runs[side].push(await runSide(env, tenant, side, size, Math.round(size.writesPerSec * secondsPerRun), prefix));
    }
  }
  const direct = pool(runs.direct);
  const gateway = pool(runs.gateway);
  progress(`${what}: TLS write floor`);
  const floor = await measureTlsWriteFloor(size.watchers, size.writesPerSec, secondsPerRun, gateway.meanEventBytes);
  return {
    name: `${size.load}: ${(size.watchers * size.writesPerSec).toLocaleString('en-US')} events/s offered${gatewayNote}`,
    watchers: size.watchers,
    offeredWritesPerSec: size.writesPerSec,
    direct,
    gateway,
    ratios: {
      p50: gateway.p50Ms / direct.p50Ms,
      p99: gateway.p99Ms / direct.p99Ms,
      throughput: direct.eventsPerSec / gateway.eventsPerSec,
    },
    gatewayEventsPerCpuSecond: gateway.events / gateway.gatewayCpuSeconds,
    floorEventsPerCpuSecond: floor.eventsPerCpuSecond,
  };
}

/** One run: the watchers open from the current revision, then the writer writes, then the watchers report. */
async function runSide(
  env: BenchEnvironment,
  tenant: BenchTenant,
  side: 'direct' | 'gateway',
  size: Size,
  writes: number,
  prefix: string,
): Promise<SideRun> {
  const namespace = `${TENANT}-default`;
  const query = `?watch=1&resourceVersion=${await currentRevision(env, namespace)}`;
  const upstreamWatchesBefore = side === 'gateway' ? upstreamWatches(await readGatewayMetrics(env)) : 0;
  const watchers = await openWatchers({
    ...(side === 'direct' ? tenant.direct : tenant.gateway),
    path:
      side === 'direct'
        ? `/api/v1/namespaces/${namespace}/configmaps${query}`
        : `/api/v1/namespaces/default/configmaps${query}`,
    watchers: size.watchers,
    writes,
    idleMs: IDLE_MS,
  });
  let run: SideRun;
  try {
    const sharing = side === 'gateway' ? await sharingOf(env, upstreamWatchesBefore) : undefined;
    const before = { gateway: await cpuSeconds(env.gateway.pid), devcluster: await cpuSeconds(env.devcluster.pid) };
    const writer = await writePaced(env.upstreamAdmin, namespace, prefix, writes, size.writesPerSec);
    const watch = await watchers.finish(writer.failedSeqs);
    run = {
      watch,
      writes,
      writeErrors: writer.failedSeqs.length,
      firstWriteError: writer.firstError,
      writerSeconds: writer.seconds,
      gatewayCpuSeconds: (await cpuSeconds(env.gateway.pid)) - before.gateway,
      devclusterCpuSeconds: (await cpuSeconds(env.devcluster.pid)) - before.devcluster,
      sharing,
    };
  } catch (err) {
    // The worker's exit is then a consequence, not the news.
    await watchers.close().catch(() => undefined);
    throw err;
  }
  await watchers.close();
  return run;
}

/** Watches the gateway has opened upstream for tenants so far (forwarded watches). */
function upstreamWatches(metric: MetricReading): number {
  return metric('paddock_upstream_request_duration_seconds_count', 'cluster="member1",verb="watch"') || 0;
}

async function sharingOf(env: BenchEnvironment, upstreamWatchesBefore: number): Promise<Sharing> {
  const metric = await readGatewayMetrics(env);
  return {
    fromCache: metric('paddock_tenant_watch_sets', 'count="watchers"') || 0,
    sets: metric('paddock_tenant_watch_sets', 'count="sets"') || 0,
    upstreamWatchesOpened: upstreamWatches(metric) - upstreamWatchesBefore,
  };
}

/** The namespace's list revision: watches from it see every write made after it. */
async function currentRevision(env: BenchEnvironment, namespace: string): Promise<string> {
  const client = RestClient.fromKubeconfig(env.upstreamAdminKubeconfig);
  try {
    const res = await client.request('GET', `/api/v1/namespaces/${namespace}/configmaps?limit=1`);
    if (res.status !== 200) throw new Error(`listing ${namespace}/configmaps: ${res.status} ${res.text.slice(0, 300)}`);
    return String(res.body.metadata.resourceVersion);
  } finally {
    client.close();
  }
}

function pool(runs: SideRun[]): SideResult {
  const sum = (f: (run: SideRun) => number) => runs.reduce((total, run) => total + f(run), 0);
  const histogram = runs.flatMap((run) => run.watch.latencyHistogram).sort((a, b) => a[0] - b[0]);
  const events = sum((r) => r.watch.events);
  const seconds = sum((r) => r.watch.seconds);
  return {
    runs: runs.length,
    watchers: runs[0].watch.watchers,
    writes: sum((r) => r.writes),
    writeErrors: sum((r) => r.writeErrors),
    writesPerSec: sum((r) => r.writes - r.writeErrors) / sum((r) => r.writerSeconds),
    events,
    expected: sum((r) => r.watch.expected),
    missed: sum((r) => r.watch.missed),
    duplicates: sum((r) => r.watch.duplicates),
    errors: sum((r) => r.watch.errors),
    firstError:
      runs.find((r) => r.watch.firstError)?.watch.firstError ?? runs.find((r) => r.firstWriteError)?.firstWriteError,
    seconds,
    eventsPerSec: events / seconds,
    p50Ms: histogramPercentile(histogram, events, 50),
    p99Ms: histogramPercentile(histogram, events, 99),
    meanEventBytes: events ? sum((r) => r.watch.bytes) / events : 0,
    gatewayCpuSeconds: sum((r) => r.gatewayCpuSeconds),
    devclusterCpuSeconds: sum((r) => r.devclusterCpuSeconds),
    sharing: runs
      .map((r) => r.sharing)
      .reduce<Sharing | undefined>(
        (most, next) => (next && (!most || next.upstreamWatchesOpened > most.upstreamWatchesOpened) ? next : most),
        undefined,
      ),
  };
}
