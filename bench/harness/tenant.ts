/**
 * The tenant a benchmark measures: created through the gateway's admin API (so the gateway
 * knows and admits it) and reached two ways — through the gateway with its own certificate, and
 * directly upstream as the gateway itself reaches it.
 */
import { expectStatus, RestClient } from '../../apiserver/client/rest-client.js';
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
    const asTenant = RestClient.fromKubeconfig(kubeconfig);
    try {
      await untilAdmitted(asTenant);
    } finally {
      asTenant.close();
    }
    return {
      id,
      gateway: targetOf(kubeconfig),
      direct: { ...env.upstreamAdmin, headers: { 'impersonate-user': tenantAdminUser(id) } },
    };
  } finally {
    admin.close();
  }
}

/**
 * A target that presents the token of the tenant's ServiceAccount `name` (made in `default`, bound
 * there to the tenant's cluster-admin, its token from a TokenRequest through the gateway) instead
 * of the tenant's certificate: the gateway's other kind of credential.
 */
export async function serviceAccountTarget(tenant: BenchTenant, name: string): Promise<Target> {
  const { origin, ca, cert, key } = tenant.gateway;
  const client = new RestClient(new URL(origin), { ca, cert, key });
  try {
    const made = await client.request('POST', '/api/v1/namespaces/default/serviceaccounts', {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name },
    });
    expectStatus(made, `ServiceAccount ${name}`, 201);
    const bound = await client.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name, namespace: 'default' }],
    });
    expectStatus(bound, `RoleBinding ${name}`, 201);
    const issued = await client.request('POST', `/api/v1/namespaces/default/serviceaccounts/${name}/token`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {},
    });
    expectStatus(issued, `token of ${name}`, 201);
    const headers = { authorization: `Bearer ${String(issued.body.status.token)}` };
    const asAccount = new RestClient(new URL(origin), { ca, token: issued.body.status.token as string });
    try {
      await untilAdmitted(asAccount, `ServiceAccount ${name}`);
    } finally {
      asAccount.close();
    }
    return { origin, ca, cert: '', key: '', headers };
  } finally {
    client.close();
  }
}

/** The gateway learns of an Active tenant by watch (and of a new grant by the cluster's): wait until it lets `client` in. */
async function untilAdmitted(client: RestClient, who = 'the tenant'): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const res = await client.request('GET', '/api/v1/namespaces/default/pods');
    if (res.status === 200) return;
    if (Date.now() > deadline)
      throw new Error(
        `the gateway did not admit ${who} within ${READY_TIMEOUT_MS / 1000} s: ${res.status} ${res.text.slice(0, 300)}`,
      );
    await sleep(20);
  }
}
