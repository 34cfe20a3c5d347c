/**
 * `get`: GET of one realistic Pod by 1, 16 and 64 concurrent clients, on the direct path and
 * through the gateway: the fixed cost the gateway adds to every request (TLS termination,
 * authentication, translation up and down, a second hop). Beside it, in the same alternating
 * runs, the same GETs through two proxies that only forward, the floors for any gateway that
 * forwards the request: HAProxy (harness/haproxy.ts) and a bare Node proxy built from what the
 * gateway is built from (harness/bare-proxy.ts). The gateway answers the GET from its cache (Pods
 * are among the resources it caches for tenants by default); a second gateway started with
 * `--tenant-cache ''` forwards it, as every gateway did before the cache. The tenant's
 * ServiceAccount token is measured against its certificate twice: in the same turns, and
 * interleaved request by request, which leaves out the noise of turns a few seconds apart.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { measureInterleaved, measureSides, roundsFor, type Side } from './harness/compare.js';
import { withEnvironment, type BenchOptions, QUICK_RUN_MS, QUICK_WARMUP } from './harness/environment.js';
import { UpstreamWriter } from './harness/fixtures.js';
import { startHaproxyProcess } from './harness/haproxy.js';
import { podName } from './harness/pods.js';
import { startBareProxyProcess, startGatewayProcess, stopProcess, type ServerProcess } from './harness/processes.js';
import { caseOf, formatMs, formatPerSecond, formatRatio, report, type CaseResult } from './harness/results.js';
import type { RequestSummary } from './harness/load.js';
import { targetOf } from './harness/target.js';
import { createBenchTenant, serviceAccountTarget } from './harness/tenant.js';
import { printTable } from './table.js';

const TENANT = 'benget';
const CLIENTS = [1, 16, 64];
/** Quick: one client count, enough to run every path. */
const QUICK_CLIENTS = [16];

/** The paths besides the direct one, in the order of the table, with the name of their case in the JSON. */
const PATHS = [
  { label: 'HAProxy', caseName: 'GET one pod, HAProxy (floor)' },
  { label: 'bare Node proxy', caseName: 'GET one pod, bare TLS proxy (floor)' },
  { label: 'gateway, forwarded', caseName: 'GET one pod, gateway forwarding (--tenant-cache "")' },
  { label: 'gateway, from its cache', caseName: 'GET one pod' },
  { label: 'gateway, from its cache, token', caseName: 'GET one pod, ServiceAccount token' },
  { label: 'gateway, from its cache, certificate + token-sized header', caseName: 'GET one pod, token-sized header' },
] as const;

/**
 * The token against the certificate request by request (compare.ts, measureInterleaved): the
 * case's `direct` is the certificate's requests, its `gateway` the token's.
 */
const INTERLEAVED = 'GET one pod, ServiceAccount token and certificate interleaved';

export async function benchGet(options: BenchOptions): Promise<number> {
  const shape = (concurrency: number) => ({
    concurrency,
    warmup: options.quick ? QUICK_WARMUP : 500,
    durationMs: options.quick ? QUICK_RUN_MS : 5000,
  });
  const { result, run } = await withEnvironment(options, async (env) => {
    const tenant = await createBenchTenant(env, TENANT);
    const upstream = new UpstreamWriter(env.upstreamAdmin);
    await upstream.createPods([`${TENANT}-default`], 1);
    await upstream.close();
    const floors: ServerProcess[] = [];
    let forwarding: ServerProcess | undefined;
    try {
      floors.push(await startHaproxyProcess(env.devcluster.kubeconfigPath, env.dir));
      floors.push(await startBareProxyProcess(env.devcluster.kubeconfigPath, env.dir));
      const [haproxy, bare] = await Promise.all(
        floors.map(async (floor) => targetOf(await readFile(floor.kubeconfigPath, 'utf8'), tenant.direct.headers)),
      );
      forwarding = await startGatewayProcess(
        env.devcluster.kubeconfigPath,
        path.join(env.dir, 'forwarding'),
        [],
        ['--tenant-cache', ''],
      );
      // The same tenant on the same cluster, admitted by the second gateway with a certificate of its own.
      const forwardingTenant = await createBenchTenant(
        { ...env, gateway: forwarding, gatewayAdminKubeconfig: await readFile(forwarding.kubeconfigPath, 'utf8') },
        TENANT,
      );
      const tokenTarget = await serviceAccountTarget(tenant, 'bench');
      const tenantGet = [{ method: 'GET', path: `/api/v1/namespaces/default/pods/${podName(0)}` }];
      const upstreamGet = [{ method: 'GET', path: `/api/v1/namespaces/${TENANT}-default/pods/${podName(0)}` }];
      const certificate: Side = { name: 'gateway', target: tenant.gateway, templates: tenantGet, pid: env.gateway.pid };
      // The same reads with the tenant's other kind of credential: a ServiceAccount token, reviewed by the cluster.
      const token: Side = { name: 'gateway, token', target: tokenTarget, templates: tenantGet, pid: env.gateway.pid };
      const sides: Side[] = [
        { name: 'direct', target: tenant.direct, templates: upstreamGet },
        { name: 'HAProxy', target: haproxy, templates: upstreamGet, pid: floors[0].pid },
        { name: 'bare Node proxy', target: bare, templates: upstreamGet, pid: floors[1].pid },
        { name: 'gateway, forwarded', target: forwardingTenant.gateway, templates: tenantGet, pid: forwarding.pid },
        certificate,
        token,
        // The certificate with a header as long as the token's: what the token's bytes alone cost, every hop of them.
        {
          name: 'gateway, padded',
          target: { ...tenant.gateway, headers: { 'x-padding': 'p'.repeat(tokenTarget.headers.authorization.length) } },
          templates: tenantGet,
          pid: env.gateway.pid,
        },
      ];
      const cases: CaseResult[] = [];
      for (const clients of options.quick ? QUICK_CLIENTS : CLIENTS) {
        const [direct, ...others] = await measureSides(
          `GET one pod, ${clients} client${clients === 1 ? '' : 's'}`,
          sides,
          shape(clients),
          roundsFor(options),
        );
        others.forEach((other, i) => cases.push(caseOf(PATHS[i].caseName, clients, direct, other)));
        const [byCertificate, byToken] = await measureInterleaved(
          `GET one pod, ${clients} client${clients === 1 ? '' : 's'}`,
          certificate,
          token,
          shape(clients),
          roundsFor(options),
        );
        cases.push(caseOf(INTERLEAVED, clients, byCertificate, byToken));
      }
      return cases;
    } finally {
      for (const floor of floors) await stopProcess(floor.child);
      if (forwarding) await stopProcess(forwarding.child);
    }
  });
  return report('get', options.quick, result, run, printPaths);
}

/** Per client count, one row per path: direct first, then each path with its ratios to direct. */
function printPaths(name: string, quick: boolean, cases: CaseResult[]): void {
  process.stdout.write(
    `\n${name}${quick ? ' (quick)' : ''}: every path measured in the same alternating runs; ratios are path/direct for latency and direct/path for throughput (1.00x: no cost); its CPU: the proxy's or the gateway's CPU time per request\n`,
  );
  const row = (label: string, clients: number, summary: RequestSummary, ratios?: CaseResult['ratios']) => [
    label,
    String(clients),
    formatMs(summary.p50Ms),
    ratios ? formatRatio(ratios.p50) : '',
    formatMs(summary.p99Ms),
    ratios ? formatRatio(ratios.p99) : '',
    formatPerSecond(summary.throughputPerSec),
    ratios ? formatRatio(ratios.throughput) : '',
    summary.cpuUsPerRequest === undefined ? '' : summary.cpuUsPerRequest.toFixed(0),
  ];
  const rows: string[][] = [];
  for (const clients of new Set(cases.map((c) => c.concurrency))) {
    const atClients = cases.filter((c) => c.concurrency === clients);
    rows.push(row('direct', clients, atClients[0].direct));
    for (const { label, caseName } of PATHS) {
      const c = atClients.find((found) => found.name === caseName);
      if (c) rows.push(row(label, clients, c.gateway, c.ratios));
    }
  }
  printTable(
    ['GET one pod', 'clients', 'p50 ms', 'p50 ratio', 'p99 ms', 'p99 ratio', 'req/s', 'req/s ratio', 'its CPU µs/req'],
    rows,
  );
  process.stdout.write(
    '\na ServiceAccount token against the certificate on the same gateway, both read from its cache (1.00x: no cost): interleaved, each client sending one request with each in turn; in turns, as in the table above; and against the certificate with a header as long as the token (in turns):\n',
  );
  printTable(
    [
      'clients',
      'interleaved p50 ratio',
      'interleaved p99 ratio',
      'in turns p50 ratio',
      'in turns req/s ratio',
      'CPU µs/req ratio',
      'p50 vs padded',
    ],
    [...new Set(cases.map((c) => c.concurrency))].flatMap((clients) => {
      const of = (caseName: string) => cases.find((c) => c.concurrency === clients && c.name === caseName);
      const [certificate, token, padded, interleaved] = [
        of('GET one pod')?.gateway,
        of('GET one pod, ServiceAccount token')?.gateway,
        of('GET one pod, token-sized header')?.gateway,
        of(INTERLEAVED),
      ];
      if (!certificate || !token || !padded || !interleaved) return [];
      return [
        [
          String(clients),
          formatRatio(interleaved.ratios.p50),
          formatRatio(interleaved.ratios.p99),
          formatRatio(token.p50Ms / certificate.p50Ms),
          formatRatio(certificate.throughputPerSec / token.throughputPerSec),
          formatRatio(token.cpuUsPerRequest! / certificate.cpuUsPerRequest!),
          formatRatio(token.p50Ms / padded.p50Ms),
        ],
      ];
    }),
  );
}
