/**
 * `tenants`: tenant creations through the gateway's admin API, each counted when the tenant is
 * Active (placed, its namespaces and RBAC made upstream, its certificate issued): one at a time
 * and 32 at a time, with ECDSA P-256 keys (the default) and with RSA-2048; then 10,000 tenants
 * in a row on a fresh gateway, with the time and the gateway's memory after every 1,000. A
 * tenant comes into being only through the gateway: there is no direct path to compare with.
 */
import { withEnvironment, type BenchOptions, type EnvironmentRun } from './harness/environment.js';
import { rssBytes } from './harness/processes.js';
import { formatMs, formatPerSecond, mib, printProfiles, progress, saveResults } from './harness/results.js';
import {
  createTenants,
  createTenantsInSteps,
  tenantIds,
  type BulkStep,
  type CreationSummary,
} from './harness/tenant-creations.js';
import { printTable } from './table.js';

const CONCURRENCY = 32;
const WARMUP = 5;
const KEYS = { ecdsa: 'ECDSA P-256', rsa: 'RSA-2048' } as const;

interface RateCase extends CreationSummary {
  name: string;
  keys: string;
}

export async function benchTenants(options: BenchOptions): Promise<number> {
  const sizes = options.quick
    ? { ecdsa: { serial: 5, concurrent: 16 }, rsa: { serial: 2, concurrent: 4 }, bulk: 50, step: 25 }
    : { ecdsa: { serial: 50, concurrent: 320 }, rsa: { serial: 20, concurrent: 96 }, bulk: 10_000, step: 1000 };
  const runs: EnvironmentRun[] = [];
  const rates: RateCase[] = [];
  const warmups: (CreationSummary & { keys: string })[] = [];
  for (const algorithm of ['ecdsa', 'rsa'] as const) {
    const { result, run } = await withEnvironment(
      options,
      async (env) => {
        // A fresh gateway runs its first creations with cold code: not measured, failures counted.
        warmups.push({ keys: KEYS[algorithm], ...(await createTenants(env, tenantIds('w', WARMUP), 1)) });
        progress(`${KEYS[algorithm]}: ${sizes[algorithm].serial} tenants one at a time`);
        const serial = await createTenants(env, tenantIds('s', sizes[algorithm].serial), 1);
        progress(`${KEYS[algorithm]}: ${sizes[algorithm].concurrent} tenants ${CONCURRENCY} at a time`);
        const concurrent = await createTenants(env, tenantIds('c', sizes[algorithm].concurrent), CONCURRENCY);
        return [
          { name: 'one at a time', keys: KEYS[algorithm], ...serial },
          { name: `${CONCURRENCY} at a time`, keys: KEYS[algorithm], ...concurrent },
        ];
      },
      ['--key-algorithm', algorithm],
      true,
    );
    rates.push(...result);
    runs.push(run);
  }
  const { result: bulk, run: bulkRun } = await withEnvironment(
    options,
    async (env) => {
      const before = {
        gatewayRssBytes: await rssBytes(env.gateway.pid),
        devclusterRssBytes: await rssBytes(env.devcluster.pid),
      };
      progress(`${sizes.bulk.toLocaleString('en-US')} tenants in a row, ${CONCURRENCY} at a time`);
      return { before, steps: await createTenantsInSteps(env, 'b', sizes.bulk, sizes.step, CONCURRENCY) };
    },
    [],
    true,
  );
  runs.push(bulkRun);

  process.stdout.write(
    `\ntenants${options.quick ? ' (quick)' : ''}: tenant creations through the gateway's admin API, each from its POST until the tenant watch says Active; there is no direct path (a tenant exists only through the gateway), so there is no ratio\n`,
  );
  printTable(
    [
      'tenant creations',
      'keys',
      'clients',
      'tenants',
      'creations/s',
      'p50 ms',
      'p99 ms',
      'gateway CPU ms/tenant',
      'devcluster CPU ms/tenant',
      'direct path',
    ],
    rates.map((c) => [
      c.name,
      c.keys,
      String(c.concurrency),
      c.tenants.toLocaleString('en-US'),
      formatPerSecond(c.perSecond),
      formatMs(c.p50Ms),
      formatMs(c.p99Ms),
      formatMs(c.gatewayCpuMsPerTenant),
      formatMs(c.devclusterCpuMsPerTenant),
      'none',
    ]),
  );
  const last = bulk.steps[bulk.steps.length - 1];
  const seconds = bulk.steps.reduce((sum, step) => sum + step.seconds, 0);
  process.stdout.write(
    `\n${sizes.bulk.toLocaleString('en-US')} tenants in a row on a fresh gateway, ${CONCURRENCY} at a time, ${KEYS.ecdsa}; memory after each step of ${sizes.step.toLocaleString('en-US')}, and the ClusterRoleBindings upstream RBAC reads per request of a tenant's admin in its own namespace\n`,
  );
  printTable(
    [
      'tenants so far',
      'step s',
      'creations/s',
      'p50 ms',
      'p99 ms',
      'gateway CPU ms/tenant',
      'devcluster CPU ms/tenant',
      'gateway RSS',
      'devcluster RSS',
      'CRBs upstream',
      'CRBs walked/request',
    ],
    [
      [
        '0',
        '-',
        '-',
        '-',
        '-',
        '-',
        '-',
        mib(bulk.before.gatewayRssBytes),
        mib(bulk.before.devclusterRssBytes),
        '-',
        '-',
      ],
      ...bulk.steps.map((s: BulkStep) => [
        s.total.toLocaleString('en-US'),
        s.seconds.toFixed(1),
        formatPerSecond(s.perSecond),
        formatMs(s.p50Ms),
        formatMs(s.p99Ms),
        formatMs(s.gatewayCpuMsPerTenant),
        formatMs(s.devclusterCpuMsPerTenant),
        mib(s.gatewayRssBytes),
        mib(s.devclusterRssBytes),
        s.rbac.clusterRoleBindings.toLocaleString('en-US'),
        s.rbac.walkedPerRequest.toLocaleString('en-US', { maximumFractionDigits: 1 }),
      ]),
    ],
  );
  const perThousand = ((last.gatewayRssBytes - bulk.before.gatewayRssBytes) / last.total) * 1000;
  process.stdout.write(
    `in all: ${last.total.toLocaleString('en-US')} tenants in ${seconds.toFixed(1)} s (${formatPerSecond(last.total / seconds)}/s); gateway RSS ${mib(bulk.before.gatewayRssBytes)} → ${mib(last.gatewayRssBytes)}, ${mib(perThousand)} per 1,000 tenants\n`,
  );

  let errors = 0;
  const batches = [
    ...warmups.map((w) => [`warmup, ${w.keys}`, w] as const),
    ...rates.map((c) => [`${c.name}, ${c.keys}`, c] as const),
    ...bulk.steps.map((s) => [`in a row, up to ${s.total}`, s] as const),
  ];
  for (const [what, batch] of batches) {
    if (!batch.errors) continue;
    errors += batch.errors;
    process.stdout.write(`ERRORS: ${what}: ${batch.errors} failed creations; first: ${batch.firstError}\n`);
  }
  await saveResults('tenants', {
    quick: options.quick,
    memory: runs.map((run) => run.memory),
    cpuProfiles: runs.flatMap((run) => run.cpuProfiles),
    warmups,
    cases: rates,
    inARow: {
      concurrency: CONCURRENCY,
      keys: KEYS.ecdsa,
      seconds,
      before: bulk.before,
      steps: bulk.steps,
      gatewayRssBytesPerThousandTenants: perThousand,
    },
  });
  await printProfiles(runs.flatMap((run) => run.cpuProfiles));
  await printProfiles(
    runs.flatMap((run) => run.devclusterCpuProfiles ?? []),
    'devcluster',
  );
  return errors;
}
