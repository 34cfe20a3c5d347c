/**
 * `eviction`: how exactly the eviction queue keeps `--resource-eviction-rate`. Two devclusters
 * and a gateway with the taint manager on; N tenants on member1 (member2 tainted NoSchedule while
 * they are made); then an admin's NoExecute taint on member1 drains it, and the tenants' moves are
 * timed from a watch of the Tenants (the moment each one's `status.cluster` changes). Printed: the
 * rate the moves kept between the first and the last against the one set (the error), the time
 * from the taint to the first and to the last move, and the gateway's CPU per move.
 *
 * A move here is a drain of a healthy cluster: the replay reads member1's live cache and the purge
 * (Gracefully, the replay complete) follows in the taint manager's next pass, beside the queue.
 */
import type { ClientRequest } from 'node:http';
import { LineSplitter } from '../apiserver/client/line-splitter.js';
import { RestClient } from '../apiserver/client/rest-client.js';
import { realClock } from '../clusters/clock.js';
import { EvictionQueue } from '../eviction/eviction-queue.js';
import { gracefulEvictionRateLimiter } from '../eviction/rate-limiters.js';
import { withClusters, type ClustersEnvironment } from './harness/clusters-environment.js';
import type { BenchOptions } from './harness/environment.js';
import { cpuSeconds } from './harness/process-stats.js';
import { printProfiles, progress, saveResults } from './harness/results.js';
import { sleep } from './harness/sleep.js';
import { printTable } from './table.js';

const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
/** Tenants created at once. */
const CREATE_CONCURRENCY = 16;

interface PacingCase {
  /** Tenants moved per second, as set. */
  rate: number;
  tenants: number;
}

interface PacingResult extends PacingCase {
  moved: number;
  /** (moves − 1) / (last move − first move). */
  keptRate: number;
  /** |kept / set − 1|. */
  error: number;
  firstMoveMs: number;
  lastMoveMs: number;
  gatewayCpuMsPerMove: number;
}

export async function benchEviction(options: BenchOptions): Promise<number> {
  const cases: PacingCase[] = options.quick
    ? [{ rate: 5, tenants: 6 }]
    : [
        { rate: 0.5, tenants: 21 },
        { rate: 50, tenants: 301 },
      ];
  const results: PacingResult[] = [];
  const profiles: string[] = [];
  let failures = 0;
  for (const size of cases) {
    progress(`${size.tenants} tenants at ${size.rate}/s`);
    const { result, run } = await withClusters(options, 2, (env) => drain(env, size), [
      '--enable-no-execute-taint-eviction',
      '--resource-eviction-rate',
      String(size.rate),
      // The token bucket's default (10/s after a burst of 100) would cap 50/s: the rate is what is measured.
      '--rate-limiter-qps',
      '1000',
      '--rate-limiter-bucket-size',
      '1000',
      '--cluster-status-update-frequency',
      '1s',
      // Each move is some 25 requests in turn to the clusters: at 50/s, more than 3 are under way at once.
      '--concurrent-eviction-syncs',
      '16',
    ]);
    if (result.moved < size.tenants) failures += size.tenants - result.moved;
    results.push(result);
    profiles.push(...run.cpuProfiles);
  }
  progress('the queue alone: 50/s, 16 workers, each move a 100 ms wait');
  const queueAlone = await paceQueueAlone(50, options.quick ? 51 : 501, 16, 100);
  process.stdout.write(
    `\neviction: N tenants on member1 drained by an admin's NoExecute taint; the rate the moves kept from the first to the last against the rate set (error: how far off), the time from the taint to the first and last move, and the gateway's CPU per move\n`,
  );
  printTable(
    ['rate set', 'tenants', 'moved', 'rate kept', 'error', 'taint → first', 'taint → last', 'gateway CPU/move'],
    results.map((r) => [
      `${r.rate}/s`,
      String(r.tenants),
      String(r.moved),
      `${r.keptRate.toFixed(3)}/s`,
      `${(r.error * 100).toFixed(2)}%`,
      `${(r.firstMoveMs / 1000).toFixed(2)} s`,
      `${(r.lastMoveMs / 1000).toFixed(2)} s`,
      `${r.gatewayCpuMsPerMove.toFixed(1)} ms`,
    ]),
  );
  process.stdout.write(
    `\nthe eviction queue alone, in this process (its real clock, Karmada's limiter at ${queueAlone.rate}/s, ${queueAlone.workers} workers, each reconcile ${queueAlone.reconcileMs} ms of waiting): ${queueAlone.items} starts kept ${queueAlone.keptRate.toFixed(3)}/s, error ${(queueAlone.error * 100).toFixed(2)}%\n`,
  );
  await saveResults('eviction', { quick: options.quick, cases: results, queueAlone, cpuProfiles: profiles });
  await printProfiles(profiles);
  return failures;
}

async function drain(env: ClustersEnvironment, size: PacingCase): Promise<PacingResult> {
  const admin = RestClient.fromKubeconfig(env.gatewayAdminKubeconfig);
  try {
    await waitReady(admin, ['member1', 'member2']);
    await setTaints(admin, 'member2', (taints) => [...taints, { key: 'bench', effect: 'NoSchedule' }]);
    const ids = Array.from({ length: size.tenants }, (_, i) => `ev${i.toString(36).padStart(4, '0')}`);
    await createTenants(admin, ids);
    await setTaints(admin, 'member2', (taints) => taints.filter((t) => t.key !== 'bench'));
    // member2 without the taint, in the gateway's roster: placement may choose it.
    await sleep(1000);
    const moves = new Map<string, number>();
    const watch = watchTenants(admin, (tenant, at) => {
      if (tenant.status?.cluster === 'member2' && !moves.has(tenant.metadata.name)) moves.set(tenant.metadata.name, at);
    });
    const cpuBefore = await cpuSeconds(env.gateway.pid);
    try {
      const tainted = performance.now();
      await setTaints(admin, 'member1', (taints) => [
        ...taints,
        { key: 'drain', effect: 'NoExecute', timeAdded: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') },
      ]);
      const deadline = tainted + ((size.tenants - 1) / size.rate) * 1000 * 3 + 60_000;
      while (moves.size < size.tenants && performance.now() < deadline) await sleep(50);
      const cpu = (await cpuSeconds(env.gateway.pid)) - cpuBefore;
      const times = [...moves.values()].sort((a, b) => a - b);
      const span = (times.at(-1)! - times[0]) / 1000;
      const keptRate = times.length > 1 ? (times.length - 1) / span : 0;
      return {
        ...size,
        moved: moves.size,
        keptRate,
        error: Math.abs(keptRate / size.rate - 1),
        firstMoveMs: times[0] - tainted,
        lastMoveMs: times.at(-1)! - tainted,
        gatewayCpuMsPerMove: (cpu * 1000) / Math.max(1, moves.size),
      };
    } finally {
      watch.destroy();
    }
  } finally {
    admin.close();
  }
}

/** The queue's own pacing, apart from what a move costs: starts of reconciles that only wait. */
async function paceQueueAlone(rate: number, items: number, workers: number, reconcileMs: number) {
  const limiter = gracefulEvictionRateLimiter<string | symbol>({
    evictionRate: () => rate,
    qps: 1000,
    bucketSize: 1000,
    clock: realClock,
  });
  const queue = new EvictionQueue<string>({ limiter, pacer: limiter, clock: realClock });
  const starts: number[] = [];
  for (let i = 0; i < items; i++) queue.add(`item-${i}`);
  const running = queue.run(workers, async () => {
    starts.push(performance.now());
    if (starts.length === items) queue.shutDown();
    await sleep(reconcileMs);
  });
  await running;
  const keptRate = (starts.length - 1) / ((starts.at(-1)! - starts[0]) / 1000);
  return { rate, items, workers, reconcileMs, keptRate, error: Math.abs(keptRate / rate - 1) };
}

async function waitReady(admin: RestClient, names: string[]): Promise<void> {
  for (;;) {
    const ready = await Promise.all(
      names.map(async (name) => {
        const cluster = (await admin.request('GET', `${CLUSTERS}/${name}`)).body;
        return (cluster?.status?.conditions ?? []).some(
          (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
        );
      }),
    );
    if (ready.every(Boolean)) return;
    await sleep(200);
  }
}

async function setTaints(
  admin: RestClient,
  cluster: string,
  change: (taints: { key: string; effect: string }[]) => unknown[],
): Promise<void> {
  for (;;) {
    const current = (await admin.request('GET', `${CLUSTERS}/${cluster}`)).body;
    current.spec.taints = change(current.spec.taints ?? []);
    const res = await admin.request('PUT', `${CLUSTERS}/${cluster}`, current);
    if (res.status === 200) return;
    if (res.status !== 409) throw new Error(`tainting ${cluster}: ${res.status} ${res.text.slice(0, 300)}`);
  }
}

async function createTenants(admin: RestClient, ids: string[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++];
      const res = await admin.request('POST', TENANTS, {
        apiVersion: 'tenant.kubezoo.io/v1alpha1',
        kind: 'Tenant',
        metadata: { name: id },
      });
      if (res.status !== 201) throw new Error(`creating tenant ${id}: ${res.status} ${res.text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
  for (;;) {
    const list = (await admin.request('GET', TENANTS)).body;
    const active = (list?.items ?? []).filter(
      (t: { status?: { phase?: string; cluster?: string } }) =>
        t.status?.phase === 'Active' && t.status.cluster === 'member1',
    );
    if (active.length === ids.length) return;
    await sleep(200);
  }
}

/** A watch of the Tenants, each event handed over with the moment its line was read. */
function watchTenants(admin: RestClient, onTenant: (tenant: any, at: number) => void): ClientRequest {
  const req = admin.open('GET', `${TENANTS}?watch=1`, { Accept: 'application/json' });
  const lines = new LineSplitter();
  req.on('response', (res) => {
    res.on('data', (chunk: Buffer) => {
      const at = performance.now();
      for (const line of lines.push(chunk))
        if (line.trim()) onTenant((JSON.parse(line) as { object: unknown }).object, at);
    });
  });
  req.on('error', () => undefined);
  req.end();
  return req;
}
