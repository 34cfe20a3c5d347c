/**
 * `get`: GET of one realistic Pod by 1, 16 and 64 concurrent clients, on the direct path and
 * through the gateway: the fixed cost the gateway adds to every request (TLS termination,
 * authentication, translation up and down, a second hop). Beside it, in the same alternating
 * runs, the same GETs through two proxies that only forward, the floors for any gateway that
 * forwards the request: HAProxy (harness/haproxy.ts) and a bare Node proxy built from what the
 * gateway is built from (harness/bare-proxy.ts).
 */
import { readFile } from 'node:fs/promises';
import { measureSides, roundsFor, type Side } from './harness/compare.js';
import { withEnvironment, type BenchOptions } from './harness/environment.js';
import { UpstreamWriter } from './harness/fixtures.js';
import { startHaproxyProcess } from './harness/haproxy.js';
import { podName } from './harness/pods.js';
import { startBareProxyProcess, stopProcess, type ServerProcess } from './harness/processes.js';
import { caseOf, formatMs, formatPerSecond, formatRatio, report, type CaseResult } from './harness/results.js';
import { targetOf } from './harness/target.js';
import { createBenchTenant } from './harness/tenant.js';
import { printTable } from './table.js';

const TENANT = 'benget';
const CLIENTS = [1, 16, 64];

/** The paths besides the direct one, in the order of the table, with the name of their case in the JSON. */
const PATHS = [
  { label: 'HAProxy', caseName: 'GET one pod, HAProxy (floor)' },
  { label: 'bare Node proxy', caseName: 'GET one pod, bare TLS proxy (floor)' },
  { label: 'gateway', caseName: 'GET one pod' },
] as const;

export async function benchGet(options: BenchOptions): Promise<number> {
  const shape = (concurrency: number) => ({
    concurrency,
    warmup: options.quick ? 50 : 500,
    durationMs: options.quick ? 1500 : 5000,
  });
  const { result, run } = await withEnvironment(options, async (env) => {
    const tenant = await createBenchTenant(env, TENANT);
    const upstream = new UpstreamWriter(env.upstreamAdmin);
    await upstream.createPods([`${TENANT}-default`], 1);
    await upstream.close();
    const floors: ServerProcess[] = [];
    try {
      floors.push(await startHaproxyProcess(env.devcluster.kubeconfigPath, env.dir));
      floors.push(await startBareProxyProcess(env.devcluster.kubeconfigPath, env.dir));
      const [haproxy, bare] = await Promise.all(
        floors.map(async (floor) => targetOf(await readFile(floor.kubeconfigPath, 'utf8'), tenant.direct.headers)),
      );
      const upstreamGet = [{ method: 'GET', path: `/api/v1/namespaces/${TENANT}-default/pods/${podName(0)}` }];
      const sides: Side[] = [
        { name: 'direct', target: tenant.direct, templates: upstreamGet },
        { name: 'HAProxy', target: haproxy, templates: upstreamGet },
        { name: 'bare Node proxy', target: bare, templates: upstreamGet },
        {
          name: 'gateway',
          target: tenant.gateway,
          templates: [{ method: 'GET', path: `/api/v1/namespaces/default/pods/${podName(0)}` }],
        },
      ];
      const cases: CaseResult[] = [];
      for (const clients of CLIENTS) {
        const [direct, ...others] = await measureSides(
          `GET one pod, ${clients} client${clients === 1 ? '' : 's'}`,
          sides,
          shape(clients),
          roundsFor(options),
        );
        others.forEach((other, i) => cases.push(caseOf(PATHS[i].caseName, clients, direct, other)));
      }
      return cases;
    } finally {
      for (const floor of floors) await stopProcess(floor.child);
    }
  });
  return report('get', options.quick, result, run, printPaths);
}

/** Per client count, one row per path: direct first, then each path with its ratios to direct. */
function printPaths(name: string, quick: boolean, cases: CaseResult[]): void {
  process.stdout.write(
    `\n${name}${quick ? ' (quick)' : ''}: every path measured in the same alternating runs; ratios are path/direct for latency and direct/path for throughput (1.00x: no cost)\n`,
  );
  const rows: string[][] = [];
  for (const clients of new Set(cases.map((c) => c.concurrency))) {
    const atClients = cases.filter((c) => c.concurrency === clients);
    const direct = atClients[0].direct;
    rows.push([
      'direct',
      String(clients),
      formatMs(direct.p50Ms),
      '',
      formatMs(direct.p99Ms),
      '',
      formatPerSecond(direct.throughputPerSec),
      '',
    ]);
    for (const { label, caseName } of PATHS) {
      const c = atClients.find((found) => found.name === caseName);
      if (!c) continue;
      rows.push([
        label,
        String(clients),
        formatMs(c.gateway.p50Ms),
        formatRatio(c.ratios.p50),
        formatMs(c.gateway.p99Ms),
        formatRatio(c.ratios.p99),
        formatPerSecond(c.gateway.throughputPerSec),
        formatRatio(c.ratios.throughput),
      ]);
    }
  }
  printTable(['GET one pod', 'clients', 'p50 ms', 'p50 ratio', 'p99 ms', 'p99 ratio', 'req/s', 'req/s ratio'], rows);
}
