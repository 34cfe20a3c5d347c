/**
 * The gateway the failover tests run: member clusters probed every 300 ms, taken for failed or
 * back after 1 s, NoExecute taint eviction on; resolved once every member is Ready.
 */
import { readFile } from 'node:fs/promises';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from './api-client.js';
import { waitUntil } from './eventually.js';

const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';

/** The status of a cluster's Ready condition, as the admin reads it (undefined before the first probe). */
export async function clusterReady(admin: ApiClient, cluster: string): Promise<string | undefined> {
  const conditions: { type: string; status: string }[] =
    (await admin.request('GET', `${CLUSTERS}/${cluster}`)).body?.status?.conditions ?? [];
  return conditions.find((c) => c.type === 'Ready')?.status;
}

export async function startFailoverGateway(
  dataDir: string,
  members: Record<string, { kubeconfigPath: string }>,
  resourceEvictionRate = 10,
): Promise<{ gateway: Gateway; admin: ApiClient }> {
  const gateway = await startGateway({
    listen: '127.0.0.1:0',
    dataDir,
    upstreams: await Promise.all(
      Object.entries(members).map(async ([name, m]) => ({
        name,
        kubeconfig: await readFile(m.kubeconfigPath, 'utf8'),
      })),
    ),
    clusterStatusUpdateFrequencyMs: 300,
    clusterFailureThresholdMs: 1000,
    clusterSuccessThresholdMs: 1000,
    enableNoExecuteTaintEviction: true,
    eviction: { resourceEvictionRate },
  });
  const admin = await ApiClient.load(gateway.adminKubeconfigPath);
  await waitUntil('every member cluster Ready', async () =>
    (await Promise.all(Object.keys(members).map((name) => clusterReady(admin, name)))).every((s) => s === 'True'),
  );
  return { gateway, admin };
}
