/**
 * `list`: one client listing all pods of one namespace holding 1k and 10k realistic Pods, as JSON
 * and as a Table (what `kubectl get pods` asks for), with resourceVersion "" (kubectl's: as fresh
 * as the cluster) and "0" (an informer's first list: any state the server has), on the direct path
 * and through the gateway, which answers from its cache (Pods are cached for tenants by default):
 * "0" at once, "" once the cache is shown to be as fresh as the cluster, else forwarded
 * (docs/gateway.md, "Tenant reads from the cache").
 */
import { measureBoth } from './harness/compare.js';
import { withEnvironment, type BenchOptions } from './harness/environment.js';
import { UpstreamWriter } from './harness/fixtures.js';
import { caseOf, progress, report, type CaseResult } from './harness/results.js';
import { createBenchTenant } from './harness/tenant.js';

const TENANT = 'benlst';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

export async function benchList(options: BenchOptions): Promise<number> {
  const sizes = options.quick
    ? [
        { namespace: 'small', pods: 50, iterations: 3 },
        { namespace: 'large', pods: 200, iterations: 2 },
      ]
    : [
        { namespace: 'small', pods: 1000, iterations: 40 },
        { namespace: 'large', pods: 10_000, iterations: 10 },
      ];
  const { result, run } = await withEnvironment(options, async (env) => {
    const tenant = await createBenchTenant(env, TENANT);
    const upstream = new UpstreamWriter(env.upstreamAdmin);
    for (const { namespace, pods } of sizes) {
      progress(`creating ${pods} pods in ${TENANT}-${namespace}`);
      await upstream.createTenantNamespace(TENANT, namespace);
      await upstream.createPods([`${TENANT}-${namespace}`], pods);
    }
    await upstream.close();
    const cases: CaseResult[] = [];
    for (const { namespace, pods, iterations } of sizes) {
      for (const [format, accept, query] of [
        ['JSON', 'application/json', ''],
        ['Table', TABLE, ''],
        ['JSON, resourceVersion=0', 'application/json', '?resourceVersion=0'],
        ['Table, resourceVersion=0', TABLE, '?resourceVersion=0'],
      ] as const) {
        const label = `list ${pods.toLocaleString('en-US')} pods, ${format}`;
        const { direct, gateway } = await measureBoth(
          label,
          tenant,
          [
            {
              method: 'GET',
              path: `/api/v1/namespaces/${TENANT}-${namespace}/pods${query}`,
              accept,
              expectItems: pods,
            },
          ],
          [{ method: 'GET', path: `/api/v1/namespaces/${namespace}/pods${query}`, accept, expectItems: pods }],
          { concurrency: 1, warmup: 2, iterations },
          // Two alternating runs per side (a 10k list takes seconds); one checks a quick run.
          options.quick ? 1 : 2,
        );
        cases.push(caseOf(label, 1, direct, gateway));
      }
    }
    return cases;
  });
  return report('list', options.quick, result, run);
}
