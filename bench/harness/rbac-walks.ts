/**
 * What every tenant adds to each request upstream: the cluster's ClusterRoleBindings, and how many
 * of them the devcluster's RBAC read per request of a tenant's administrator in its own namespace
 * (granted there by a RoleBinding, so read after every ClusterRoleBinding, as kube reads them),
 * from `paddock_devcluster_rbac_clusterrolebindings_walked` on the devcluster's /metrics.
 */
import { RestClient } from '../../apiserver/client/rest-client.js';
import { addPrefix, tenantPrefix } from '../../translate/context.js';
import { tenantAdminUser } from '../../tenants/upstream-space.js';
import type { BenchEnvironment } from './environment.js';

const WALKED = 'paddock_devcluster_rbac_clusterrolebindings_walked';
/** Requests the figure is the mean of: the only ones RBAC decides meanwhile, the gateway's own being system:masters'. */
const REQUESTS = 20;

export interface RbacWalk {
  clusterRoleBindings: number;
  /** The mean over REQUESTS lists of `<tid>-default`'s ConfigMaps as `<tid>-admin`, the gateway's impersonation. */
  walkedPerRequest: number;
}

export async function readRbacWalk(
  env: Pick<BenchEnvironment, 'upstreamAdminKubeconfig'>,
  tenantId: string,
): Promise<RbacWalk> {
  const admin = RestClient.fromKubeconfig(env.upstreamAdminKubeconfig);
  try {
    const read = async (path: string) => {
      const res = await admin.request('GET', path);
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text.slice(0, 300)}`);
      return res;
    };
    const walked = async () => {
      const lines = (await read('/metrics')).text.split('\n');
      const value = (name: string) => Number(lines.find((line) => line.startsWith(`${name} `))?.split(' ')[1] ?? NaN);
      return { sum: value(`${WALKED}_sum`), count: value(`${WALKED}_count`) };
    };
    const namespace = addPrefix(tenantPrefix(tenantId), 'default');
    const before = await walked();
    for (let i = 0; i < REQUESTS; i++) {
      const res = await admin.request('GET', `/api/v1/namespaces/${namespace}/configmaps`, undefined, {
        'Impersonate-User': tenantAdminUser(tenantId),
      });
      if (res.status !== 200)
        throw new Error(`listing ${namespace}'s ConfigMaps as its admin: ${res.status} ${res.text.slice(0, 300)}`);
    }
    const after = await walked();
    return {
      clusterRoleBindings: (await read('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings')).body.items.length,
      walkedPerRequest: (after.sum - before.sum) / (after.count - before.count),
    };
  } finally {
    admin.close();
  }
}
