/**
 * The tenant a benchmark measures: created through the gateway's admin API (so the gateway
 * knows and admits it) and reached two ways — through the gateway with its own certificate, and
 * directly upstream as the gateway itself reaches it.
 */
import { RestClient } from '../../apiserver/client/rest-client.js';
import { createActiveTenant } from '../../test/support/tenants.js';
import { tenantAdminUser } from '../../tenants/upstream-space.js';
import type { BenchEnvironment } from './environment.js';
import { sleep } from './sleep.js';
import { targetOf, type Target } from './target.js';

export interface BenchTenant {
  id: string;
  /** The tenant's kubeconfig: the gateway's address, the tenant's client certificate. */
  gateway: Target;
  /**
   * The direct path: the same devcluster with its admin certificate plus `Impersonate-User:
   * <tid>-admin`, the header the gateway sends, so upstream authentication, impersonation and
   * RBAC cost the same on both paths and the ratio is the gateway's own cost.
   */
  direct: Target;
}

const READY_TIMEOUT_MS = 10_000;

export async function createBenchTenant(env: BenchEnvironment, id: string): Promise<BenchTenant> {
  const admin = RestClient.fromKubeconfig(env.gatewayAdminKubeconfig);
  try {
    const { kubeconfig } = await createActiveTenant(admin, id, env.dir);
    await untilAdmitted(kubeconfig);
    return {
      id,
      gateway: targetOf(kubeconfig),
      direct: { ...env.upstreamAdmin, headers: { 'impersonate-user': tenantAdminUser(id) } },
    };
  } finally {
    admin.close();
  }
}

/** The gateway learns of an Active tenant by watch: wait until it lets the tenant in. */
async function untilAdmitted(kubeconfig: string): Promise<void> {
  const client = RestClient.fromKubeconfig(kubeconfig);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    for (;;) {
      const res = await client.request('GET', '/api/v1/namespaces/default');
      if (res.status === 200) return;
      if (Date.now() > deadline)
        throw new Error(
          `the gateway did not admit the tenant within ${READY_TIMEOUT_MS / 1000} s: ${res.status} ${res.text.slice(0, 300)}`,
        );
      await sleep(20);
    }
  } finally {
    client.close();
  }
}
