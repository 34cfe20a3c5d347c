/**
 * `get`: GET of one realistic Pod by 1, 16 and 64 concurrent clients, on the direct path and
 * through the gateway: the fixed cost the gateway adds to every request (TLS termination,
 * authentication, translation up and down, a second hop). Beside it, the same GETs through a
 * bare TLS proxy that only forwards bytes (harness/bare-proxy.ts): the part of the cost that is
 * the second hop itself, the floor for any gateway that forwards the request.
 */
import { readFile } from 'node:fs/promises';
import { measureBoth, roundsFor } from './harness/compare.js';
import { withEnvironment, type BenchOptions } from './harness/environment.js';
import { UpstreamWriter } from './harness/fixtures.js';
import { podName } from './harness/pods.js';
import { startBareProxyProcess, stopProcess } from './harness/processes.js';
import { caseOf, report, type CaseResult } from './harness/results.js';
import { targetOf } from './harness/target.js';
import { createBenchTenant } from './harness/tenant.js';

const TENANT = 'benget';
const CLIENTS = [1, 16, 64];

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
    const bareProxy = await startBareProxyProcess(env.devcluster.kubeconfigPath, env.dir);
    try {
      const bare = {
        ...tenant,
        gateway: targetOf(await readFile(bareProxy.kubeconfigPath, 'utf8'), tenant.direct.headers),
      };
      const upstreamPath = `/api/v1/namespaces/${TENANT}-default/pods/${podName(0)}`;
      const cases: CaseResult[] = [];
      for (const clients of CLIENTS) {
        const name = `GET one pod, ${clients} client${clients === 1 ? '' : 's'}`;
        const { direct, gateway } = await measureBoth(
          name,
          tenant,
          [{ method: 'GET', path: upstreamPath }],
          [{ method: 'GET', path: `/api/v1/namespaces/default/pods/${podName(0)}` }],
          shape(clients),
          roundsFor(options),
        );
        cases.push(caseOf('GET one pod', clients, direct, gateway));
        const floor = await measureBoth(
          `${name}, bare proxy`,
          bare,
          [{ method: 'GET', path: upstreamPath }],
          [{ method: 'GET', path: upstreamPath }],
          shape(clients),
          roundsFor(options),
        );
        cases.push(caseOf('GET one pod, bare TLS proxy (floor)', clients, floor.direct, floor.gateway));
      }
      return cases;
    } finally {
      await stopProcess(bareProxy.child);
    }
  });
  return report('get', options.quick, result, run);
}
