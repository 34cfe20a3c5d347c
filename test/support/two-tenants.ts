/**
 * The stage of most isolation tests: one devcluster, one gateway in front of it, two Active
 * tenants with the real kubectl, and the devcluster's admin (with impersonation headers, any
 * identity upstream) to look behind the gateway's back.
 */
import { readFile } from 'node:fs/promises';
import { startDevCluster, type DevCluster, type DevClusterOptions } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from './api-client.js';
import { Kubectl } from './kubectl.js';
import { createActiveTenant } from './tenants.js';
import { makeTempDir } from './temp-dir.js';

export interface TwoTenants {
  upstream: DevCluster;
  /** The devcluster's own kubeconfig text. */
  upstreamKubeconfig: string;
  gateway: Gateway;
  /** The tenants' kubectl and kubeconfig text, in the order of their ids. */
  tenants: { kubectl: Kubectl; kubeconfig: string }[];
  member: ApiClient;
  stop(): Promise<void>;
}

/** `devcluster` adds options of the upstream's own (a CronJob clock). */
export async function startTwoTenants(
  label: string,
  ids: readonly [string, string],
  devcluster: Partial<DevClusterOptions> = {},
): Promise<TwoTenants> {
  const upstreamDir = await makeTempDir(`${label}-upstream`);
  const gatewayDir = await makeTempDir(`${label}-gateway`);
  const upstream = await startDevCluster({ ...devcluster, listen: '127.0.0.1:0', dataDir: upstreamDir.dir });
  const upstreamKubeconfig = await readFile(upstream.kubeconfigPath, 'utf8');
  const gateway = await startGateway({
    listen: '127.0.0.1:0',
    dataDir: gatewayDir.dir,
    upstreams: [{ name: 'member1', kubeconfig: upstreamKubeconfig }],
  });
  const admin = await ApiClient.load(gateway.adminKubeconfigPath);
  const tenants: TwoTenants['tenants'] = [];
  for (const id of ids) {
    const created = await createActiveTenant(admin, id, gatewayDir.dir);
    tenants.push({ kubectl: await Kubectl.create(created.kubeconfigPath), kubeconfig: created.kubeconfig });
  }
  admin.close();
  const member = await ApiClient.load(upstream.kubeconfigPath);
  return {
    upstream,
    upstreamKubeconfig,
    gateway,
    tenants,
    member,
    stop: async () => {
      member.close();
      for (const tenant of tenants) await tenant.kubectl.dispose();
      await gateway.stop();
      await upstream.stop();
      await upstreamDir.remove();
      await gatewayDir.remove();
    },
  };
}
