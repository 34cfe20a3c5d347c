/**
 * Tenant creations as the `tenants` and `memory` benchmarks make them: through the gateway's
 * admin API from a separate node process (tenant-worker.ts), each timed until Active.
 */
import type { BenchEnvironment } from './environment.js';
import { percentile } from './load.js';
import { TENANT_WORKER } from './locations.js';
import { cpuSeconds } from './process-stats.js';
import { rssBytes } from './processes.js';
import { readRbacWalk, type RbacWalk } from './rbac-walks.js';
import { progress } from './results.js';
import { targetOf, type Target } from './target.js';
import { runWorker } from './worker.js';

export interface TenantSpec extends Target {
  ids: string[];
  concurrency: number;
  /** A tenant not Active this long after its POST is a failure. */
  timeoutMs: number;
}

export interface TenantRun {
  /** From the first POST to the last tenant Active. */
  seconds: number;
  /** Per tenant created, from its POST to its Active event. */
  latenciesMs: number[];
  errors: number;
  firstError?: string;
}

/** A batch of tenant creations as one figure. */
export interface CreationSummary {
  tenants: number;
  concurrency: number;
  seconds: number;
  /** Tenants Active per second. */
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The gateway's CPU time (user + system, all threads) per tenant created. */
  gatewayCpuMsPerTenant: number;
  /** The devcluster's, alike: on one machine its CPU is as much a creation's cost as the gateway's. */
  devclusterCpuMsPerTenant: number;
  errors: number;
  firstError?: string;
}

const TIMEOUT_MS = 60_000;

/** Ids of exactly 6 characters, as the Tenant API requires: a letter of the batch, then a number. */
export function tenantIds(letter: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${letter}${i.toString(36).padStart(5, '0')}`);
}

export async function createTenants(
  env: BenchEnvironment,
  ids: string[],
  concurrency: number,
): Promise<CreationSummary> {
  const spec: TenantSpec = { ...targetOf(env.gatewayAdminKubeconfig), ids, concurrency, timeoutMs: TIMEOUT_MS };
  let cpuBefore = { gateway: 0, devcluster: 0 };
  const run = await runWorker<TenantRun>('tenant worker', TENANT_WORKER, spec, {
    beforeSpec: async () =>
      void (cpuBefore = {
        gateway: await cpuSeconds(env.gateway.pid),
        devcluster: await cpuSeconds(env.devcluster.pid),
      }),
  });
  const gatewayCpuSeconds = (await cpuSeconds(env.gateway.pid)) - cpuBefore.gateway;
  const devclusterCpuSeconds = (await cpuSeconds(env.devcluster.pid)) - cpuBefore.devcluster;
  const sorted = run.latenciesMs.sort((a, b) => a - b);
  return {
    tenants: ids.length,
    concurrency,
    seconds: run.seconds,
    perSecond: sorted.length / run.seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    gatewayCpuMsPerTenant: (gatewayCpuSeconds * 1000) / ids.length,
    devclusterCpuMsPerTenant: (devclusterCpuSeconds * 1000) / ids.length,
    errors: run.errors,
    firstError: run.firstError,
  };
}

/** One step of many tenants in a row: how long the step took and the gateway's memory after it. */
export interface BulkStep extends CreationSummary {
  /** Tenants created so far, this step included. */
  total: number;
  gatewayRssBytes: number;
  devclusterRssBytes: number;
  /** The ClusterRoleBindings upstream now, and how many RBAC reads per request of a tenant. */
  rbac: RbacWalk;
}

/** `count` tenants, `concurrency` at a time, in steps of `step`, reading both processes' RSS and the RBAC walk upstream after each. */
export async function createTenantsInSteps(
  env: BenchEnvironment,
  letter: string,
  count: number,
  step: number,
  concurrency: number,
): Promise<BulkStep[]> {
  const ids = tenantIds(letter, count);
  const steps: BulkStep[] = [];
  for (let from = 0; from < count; from += step) {
    const created = await createTenants(env, ids.slice(from, from + step), concurrency);
    const total = Math.min(count, from + step);
    steps.push({
      ...created,
      total,
      gatewayRssBytes: await rssBytes(env.gateway.pid),
      devclusterRssBytes: await rssBytes(env.devcluster.pid),
      rbac: await readRbacWalk(env, ids[total - 1]),
    });
    progress(
      `${total.toLocaleString('en-US')} of ${count.toLocaleString('en-US')} tenants: ${created.perSecond.toFixed(1)}/s`,
    );
  }
  return steps;
}
