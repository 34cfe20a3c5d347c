/**
 * The stage most gateway tests share within a file (docs/engineering.md, "Tiers"): one devcluster,
 * one gateway in front of it as its cluster `member1`, each in a temp dir, and the gateway's admin
 * API; tests make the tenants they need with `tenant(id)`. `stop()` undoes all of it, whatever
 * part of it started.
 */
import { readFile } from 'node:fs/promises';
import { startDevCluster, type DevCluster, type DevClusterOptions } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway, type GatewayOptions } from '../../gateway/server/gateway.js';
import { ApiClient } from './api-client.js';
import { createActiveTenant } from './tenants.js';
import { makeTempDir } from './temp-dir.js';

export interface Stage {
  upstream: DevCluster;
  /** The devcluster's own kubeconfig text. */
  upstreamKubeconfig: string;
  gateway: Gateway;
  /** The gateway's admin, through its admin kubeconfig. */
  admin: ApiClient;
  /** A temp dir of the stage's own, removed with it: where tenants' kubeconfigs are written. */
  dir: string;
  /** A new Active tenant (with `spec` when given), its kubeconfig written to `<dir>/<id>.kubeconfig`. */
  tenant(id: string, spec?: Record<string, unknown>): Promise<{ kubeconfigPath: string; kubeconfig: string }>;
  stop(): Promise<void>;
}

export interface StageOptions {
  /** Options of the devcluster's own (a CronJob clock, a bookmark interval). */
  devcluster?: Partial<DevClusterOptions>;
  /** Options of the gateway's own (the tenant cache, limits); its listen address, data dir and upstream are the stage's. */
  gateway?: Partial<GatewayOptions>;
}

/** `label` names the temp dirs. */
export async function startStage(label: string, options: StageOptions = {}): Promise<Stage> {
  const undo: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const step of undo.splice(0).reverse()) await step();
  };
  try {
    const upstreamDir = await makeTempDir(`${label}-upstream`);
    undo.push(upstreamDir.remove);
    const gatewayDir = await makeTempDir(`${label}-gateway`);
    undo.push(gatewayDir.remove);
    const upstream = await startDevCluster({ ...options.devcluster, listen: '127.0.0.1:0', dataDir: upstreamDir.dir });
    undo.push(() => upstream.stop());
    const upstreamKubeconfig = await readFile(upstream.kubeconfigPath, 'utf8');
    const gateway = await startGateway({
      ...options.gateway,
      listen: '127.0.0.1:0',
      dataDir: gatewayDir.dir,
      upstreams: [{ name: 'member1', kubeconfig: upstreamKubeconfig }],
    });
    undo.push(() => gateway.stop());
    const admin = await ApiClient.load(gateway.adminKubeconfigPath);
    undo.push(async () => admin.close());
    return {
      upstream,
      upstreamKubeconfig,
      gateway,
      admin,
      dir: gatewayDir.dir,
      tenant: (id, spec) => createActiveTenant(admin, id, gatewayDir.dir, spec),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
