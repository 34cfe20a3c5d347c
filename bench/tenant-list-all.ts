/**
 * `tenant-list-all`: one tenant's `kubectl get pods -A` on a cluster shared by 1,000 tenants of
 * 100 Pods each. The gateway answers from its cache, reading only the tenant's run of keys (or,
 * when the cache cannot be shown fresh enough, fans out over the tenant's own namespaces), so it
 * should cost about what a direct list of the tenant's one namespace costs, and far less than
 * the cluster-wide list a naive proxy would make and filter: both comparisons, in one run; and the
 * same with resourceVersion "0", which the cache answers at once.
 */
import { measureBoth, roundsFor } from './harness/compare.js';
import { withEnvironment, type BenchOptions } from './harness/environment.js';
import { createTenantSpaces, UpstreamWriter } from './harness/fixtures.js';
import { runLoad, summarize } from './harness/load.js';
import { caseOf, progress, report } from './harness/results.js';
import { createBenchTenant } from './harness/tenant.js';
import { addPrefix, tenantPrefix } from '../translate/context.js';

const TENANT = 'benall';

export async function benchTenantListAll(options: BenchOptions): Promise<number> {
  const tenants = options.quick ? 20 : 1000;
  const podsEach = options.quick ? 10 : 100;
  const total = tenants * podsEach;
  const { result, run } = await withEnvironment(options, async (env) => {
    const tenant = await createBenchTenant(env, TENANT);
    const neighbours = Array.from({ length: tenants - 1 }, (_, i) => `n${String(i).padStart(5, '0')}`);
    const started = performance.now();
    progress(`creating ${neighbours.length} more tenants' spaces upstream`);
    await createTenantSpaces(env, neighbours);
    progress(
      `creating ${total.toLocaleString('en-US')} pods, ${podsEach} in each tenant's default namespace (${((performance.now() - started) / 1000).toFixed(0)} s so far)`,
    );
    const upstream = new UpstreamWriter(env.upstreamAdmin);
    await upstream.createPods(
      [TENANT, ...neighbours].map((id) => addPrefix(tenantPrefix(id), 'default')),
      podsEach,
    );
    await upstream.close();
    progress(`fixtures ready in ${((performance.now() - started) / 1000).toFixed(0)} s`);

    const shape = { concurrency: 1, warmup: 5, iterations: options.quick ? 20 : 48 };
    const { direct, gateway } = await measureBoth(
      'pods -A',
      tenant,
      [{ method: 'GET', path: `/api/v1/namespaces/${TENANT}-default/pods`, expectItems: podsEach }],
      [{ method: 'GET', path: '/api/v1/pods', expectItems: podsEach }],
      shape,
      roundsFor(options),
    );
    const { direct: directAny, gateway: gatewayAny } = await measureBoth(
      'pods -A, resourceVersion=0',
      tenant,
      [{ method: 'GET', path: `/api/v1/namespaces/${TENANT}-default/pods?resourceVersion=0`, expectItems: podsEach }],
      [{ method: 'GET', path: '/api/v1/pods?resourceVersion=0', expectItems: podsEach }],
      shape,
      roundsFor(options),
    );
    progress('cluster-wide list: direct');
    // As the cluster's admin: a tenant's identity has no cluster-wide right upstream (docs/isolation.md).
    const clusterWide = summarize([
      await runLoad(env.upstreamAdmin, [{ method: 'GET', path: '/api/v1/pods', expectItems: total }], {
        concurrency: 1,
        warmup: 1,
        iterations: options.quick ? 5 : 3,
      }),
    ]);
    return [
      caseOf(`tenant pods -A vs direct list of its namespace`, 1, direct, gateway),
      caseOf(`the same, resourceVersion=0`, 1, directAny, gatewayAny),
      caseOf(
        `tenant pods -A vs direct cluster-wide list (${total.toLocaleString('en-US')} pods)`,
        1,
        clusterWide,
        gateway,
      ),
    ];
  });
  return report('tenant-list-all', options.quick, result, run);
}
