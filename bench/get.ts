/**
 * `get`: GET of one realistic Pod by 1, 16 and 64 concurrent clients, on the direct path and
 * through the gateway: the fixed cost the gateway adds to every request (TLS termination,
 * authentication, translation up and down, a second hop).
 */
import { measureBoth, roundsFor } from './harness/compare.js';
import { withEnvironment, type BenchOptions } from './harness/environment.js';
import { UpstreamWriter } from './harness/fixtures.js';
import { podName } from './harness/pods.js';
import { caseOf, report, type CaseResult } from './harness/results.js';
import { createBenchTenant } from './harness/tenant.js';

const TENANT = 'benget';
const CLIENTS = [1, 16, 64];

export async function benchGet(options: BenchOptions): Promise<number> {
  const shape = (concurrency: number) => ({ concurrency, warmup: options.quick ? 50 : 500, durationMs: options.quick ? 1500 : 5000 });
  const { result, run } = await withEnvironment(options, async (env) => {
    const tenant = await createBenchTenant(env, TENANT);
    const upstream = new UpstreamWriter(env.upstreamAdmin);
    await upstream.createPods([`${TENANT}-default`], 1);
    await upstream.close();
    const cases: CaseResult[] = [];
    for (const clients of CLIENTS) {
      const { direct, gateway } = await measureBoth(
        `GET one pod, ${clients} client${clients === 1 ? '' : 's'}`,
        tenant,
        [{ method: 'GET', path: `/api/v1/namespaces/${TENANT}-default/pods/${podName(0)}` }],
        [{ method: 'GET', path: `/api/v1/namespaces/default/pods/${podName(0)}` }],
        shape(clients),
        roundsFor(options),
      );
      cases.push(caseOf('GET one pod', clients, direct, gateway));
    }
    return cases;
  });
  return report('get', options.quick, result, run);
}
