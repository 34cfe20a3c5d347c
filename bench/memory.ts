/**
 * `memory`: the gateway's resident memory (RSS, from /proc) idle after it started, at its peak
 * under the `get` load (64 clients on one keep-alive connection each), once the load has ended,
 * and with 10,000 tenants registered (created through the admin API, 32 at a time: every one is
 * in the gateway's store, its registry and the tenant controller's view), read at once, again
 * once both servers are idle, and, in a full run, settled after the load and after the tenants (the
 * lowest of 90 s of readings: settledReading); the growth per 1,000 tenants is between those (in
 * a quick run, between the reading after the load and the one once both servers are idle). The
 * memory is the gateway process's own, so there is no direct path to set it against; the
 * devcluster's RSS is shown for scale.
 */
import { readGatewayMetrics } from './harness/gateway-metrics.js';
import {
  withEnvironment,
  type BenchEnvironment,
  type BenchOptions,
  QUICK_RUN_MS,
  QUICK_WARMUP,
} from './harness/environment.js';
import { UpstreamWriter } from './harness/fixtures.js';
import { runLoad, summarize } from './harness/load.js';
import { podName } from './harness/pods.js';
import { cpuSeconds, sampleRss } from './harness/process-stats.js';
import { rssBytes } from './harness/processes.js';
import { sleep } from './harness/sleep.js';
import { formatMs, formatPerSecond, mib, printProfiles, progress, saveResults } from './harness/results.js';
import { createTenants, tenantIds } from './harness/tenant-creations.js';
import { createBenchTenant } from './harness/tenant.js';
import { printTable } from './table.js';

const TENANT = 'benmem';
const CLIENTS = 64;
const TENANT_CONCURRENCY = 32;
/** A pause before each reading, so that it is of the gateway at rest rather than still busy with what came before. */
const SETTLE_MS = 1000;

interface Reading {
  name: string;
  gatewayRssBytes: number;
  /** What of the RSS is V8's heap in use and memory outside it (Buffers), from the gateway's /metrics. */
  gatewayHeapUsedBytes: number;
  gatewayExternalBytes: number;
  devclusterRssBytes: number;
  note: string;
}

export async function benchMemory(options: BenchOptions): Promise<number> {
  const tenants = options.quick ? 100 : 10_000;
  const shape = {
    concurrency: CLIENTS,
    warmup: options.quick ? QUICK_WARMUP : 500,
    durationMs: options.quick ? QUICK_RUN_MS : 5000,
  };
  const { result, run } = await withEnvironment(options, async (env) => {
    const readings: Reading[] = [];
    const reading = async (name: string, note: string): Promise<Reading> => ({
      name,
      gatewayRssBytes: await rssBytes(env.gateway.pid),
      ...(await gatewayHeap(env)),
      devclusterRssBytes: await rssBytes(env.devcluster.pid),
      note,
    });
    const read = async (name: string, note = '') => {
      await sleep(SETTLE_MS);
      readings.push(await reading(name, note));
    };
    /** The lowest of the gateway's RSS readings at rest, polled for SETTLED_WINDOW_MS (settledReading). */
    const readSettled = async (name: string, note: string) => {
      readings.push(await settledReading(() => reading(name, note)));
    };
    await read('idle after start');

    const tenant = await createBenchTenant(env, TENANT);
    const upstream = new UpstreamWriter(env.upstreamAdmin);
    await upstream.createPods([`${TENANT}-default`], 1);
    await upstream.close();
    progress(`GET one pod, ${CLIENTS} clients, ${shape.durationMs / 1000} s, through the gateway`);
    const load = await peakUnderLoad(env, () =>
      runLoad(tenant.gateway, [{ method: 'GET', path: `/api/v1/namespaces/default/pods/${podName(0)}` }], shape),
    );
    const get = summarize([load.run]);
    readings.push({
      name: `under get load, ${CLIENTS} clients (peak)`,
      ...load.peaks,
      gatewayHeapUsedBytes: NaN,
      gatewayExternalBytes: NaN,
      note: `${formatPerSecond(get.throughputPerSec)} req/s, p50 ${formatMs(get.p50Ms)} ms, p99 ${formatMs(get.p99Ms)} ms; RSS read every 50 ms`,
    });
    await read('after the load');
    // Each side of the growth is read at rest: once V8 has given back the young generation the load grew.
    if (!options.quick) {
      await readSettled('and V8 settled', `the lowest RSS of ${SETTLED_WINDOW_MS / 1000} s after the load`);
    }

    // The measured tenant is one of them.
    const more = tenants - 1;
    progress(`${more.toLocaleString('en-US')} more tenants, ${TENANT_CONCURRENCY} at a time`);
    const before = readings[readings.length - 1];
    const created = await createTenants(env, tenantIds('m', more), TENANT_CONCURRENCY);
    await read(
      `with ${tenants.toLocaleString('en-US')} tenants registered`,
      `${more.toLocaleString('en-US')} created in ${created.seconds.toFixed(1)} s`,
    );
    // The cluster's controllers go on after the last tenant is Active (each namespace's ServiceAccount
    // and root CA ConfigMap, which the gateway's tenant cache holds): what a tenant costs is read after.
    const waited = await untilIdle(env);
    await read(`and both servers idle`, `${waited.toFixed(0)} s after the last creation`);
    if (!options.quick) {
      await readSettled(
        'and V8 settled',
        `the lowest RSS of ${SETTLED_WINDOW_MS / 1000} s after both servers were idle`,
      );
    }
    const after = readings[readings.length - 1];
    const perThousand = ((after.gatewayRssBytes - before.gatewayRssBytes) / more) * 1000;
    const heapPerThousand = ((after.gatewayHeapUsedBytes - before.gatewayHeapUsedBytes) / more) * 1000;
    after.note += `; per 1,000 tenants, RSS ${signedMib(perThousand)} and V8 heap used ${signedMib(heapPerThousand)}`;
    return { readings, get, created, perThousand, heapPerThousand };
  });

  process.stdout.write(
    `\nmemory${options.quick ? ' (quick)' : ''}: resident set size (RSS) of the gateway process; there is no direct path (this is the gateway's own memory), the devcluster's is shown for scale\n`,
  );
  printTable(
    ['gateway memory', 'gateway RSS', 'V8 heap used', 'external', 'devcluster RSS'],
    result.readings.map((r) => [
      r.name,
      mib(r.gatewayRssBytes),
      heapMib(r.gatewayHeapUsedBytes),
      heapMib(r.gatewayExternalBytes),
      mib(r.devclusterRssBytes),
    ]),
  );
  for (const r of result.readings) if (r.note) process.stdout.write(`${r.name}: ${r.note}\n`);
  const errors = result.get.errors + result.created.errors;
  if (result.get.errors)
    process.stdout.write(`ERRORS: get load: ${result.get.errors} failed requests; first: ${result.get.firstError}\n`);
  if (result.created.errors)
    process.stdout.write(
      `ERRORS: tenant creations: ${result.created.errors} failed; first: ${result.created.firstError}\n`,
    );
  await saveResults('memory', {
    quick: options.quick,
    memory: run.memory,
    cpuProfiles: run.cpuProfiles,
    readings: result.readings,
    get: result.get,
    tenants: result.created,
    gatewayRssBytesPerThousandTenants: result.perThousand,
    gatewayHeapUsedBytesPerThousandTenants: result.heapPerThousand,
  });
  await printProfiles(run.cpuProfiles);
  return errors;
}

/** The gateway's own account of its memory, from its /metrics (prom-client's default metrics). */
async function gatewayHeap(
  env: BenchEnvironment,
): Promise<{ gatewayHeapUsedBytes: number; gatewayExternalBytes: number }> {
  const metric = await readGatewayMetrics(env);
  return {
    gatewayHeapUsedBytes: metric('paddock_nodejs_heap_size_used_bytes'),
    gatewayExternalBytes: metric('paddock_nodejs_external_memory_bytes'),
  };
}

/** Growth can be negative: garbage from before collected meanwhile. */
function signedMib(bytes: number): string {
  return `${bytes >= 0 ? '+' : ''}${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Heap figures are not read under load, where the scrape itself would compete with the load. */
function heapMib(bytes: number): string {
  return Number.isFinite(bytes) ? mib(bytes) : '-';
}

/** Both servers count as idle once each used less than this share of a core over one poll. */
const IDLE_SHARE = 0.05;
const IDLE_POLL_MS = 2000;
const IDLE_WAIT_LIMIT_MS = 180_000;

/** Waits until neither server is busy (or the limit passed); the seconds it waited. */
async function untilIdle(env: BenchEnvironment): Promise<number> {
  const started = Date.now();
  const pids = [env.gateway.pid, env.devcluster.pid];
  while (Date.now() - started < IDLE_WAIT_LIMIT_MS) {
    const before = await Promise.all(pids.map(cpuSeconds));
    await sleep(IDLE_POLL_MS);
    const after = await Promise.all(pids.map(cpuSeconds));
    if (after.every((seconds, i) => seconds - before[i] < (IDLE_SHARE * IDLE_POLL_MS) / 1000)) break;
  }
  return (Date.now() - started) / 1000;
}

/**
 * V8's memory reducer shrinks the young generation back to its first semi-spaces, and compacts the
 * old one, once the heap has stopped growing and allocation stays low: 25-60 s after a load, in
 * one or several collections. Until then the RSS holds up to 32 MiB of semi-spaces a load grew, and
 * what the compaction gives back, which a single reading counted or not by chance.
 */
const SETTLED_WINDOW_MS = 90_000;
const SETTLED_POLL_MS = 5000;

/** Of readings taken every SETTLED_POLL_MS for SETTLED_WINDOW_MS, the one of the lowest gateway RSS. */
async function settledReading(take: () => Promise<Reading>): Promise<Reading> {
  const started = Date.now();
  let lowest = await take();
  while (Date.now() - started < SETTLED_WINDOW_MS) {
    await sleep(SETTLED_POLL_MS);
    const next = await take();
    if (next.gatewayRssBytes < lowest.gatewayRssBytes) lowest = next;
  }
  return lowest;
}

/** Runs `body` while sampling both servers' RSS; their highest readings. */
async function peakUnderLoad<T>(
  env: BenchEnvironment,
  body: () => Promise<T>,
): Promise<{ run: T; peaks: { gatewayRssBytes: number; devclusterRssBytes: number } }> {
  const gateway = sampleRss(env.gateway.pid);
  const devcluster = sampleRss(env.devcluster.pid);
  let run: T;
  try {
    run = await body();
  } catch (err) {
    await Promise.allSettled([gateway.stop(), devcluster.stop()]);
    throw err;
  }
  return { run, peaks: { gatewayRssBytes: await gateway.stop(), devclusterRssBytes: await devcluster.stop() } };
}
