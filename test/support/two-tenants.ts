/**
 * The stage of most isolation tests: the shared stage (stage.ts), two Active tenants with the
 * real kubectl, and the devcluster's admin (with impersonation headers, any identity upstream) to
 * look behind the gateway's back.
 */
import type { DevCluster, DevClusterOptions } from '../../devcluster/devcluster.js';
import type { Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from './api-client.js';
import { Kubectl } from './kubectl.js';
import { startStage } from './stage.js';

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
  const stage = await startStage(label, { devcluster });
  const tenants: TwoTenants['tenants'] = [];
  for (const id of ids) {
    const created = await stage.tenant(id);
    tenants.push({ kubectl: await Kubectl.create(created.kubeconfigPath), kubeconfig: created.kubeconfig });
  }
  const member = await ApiClient.load(stage.upstream.kubeconfigPath);
  return {
    upstream: stage.upstream,
    upstreamKubeconfig: stage.upstreamKubeconfig,
    gateway: stage.gateway,
    tenants,
    member,
    stop: async () => {
      member.close();
      for (const tenant of tenants) await tenant.kubectl.dispose();
      await stage.stop();
    },
  };
}
