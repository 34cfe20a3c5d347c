/**
 * Fixtures are written straight to the devcluster with its admin certificate, many requests at
 * a time, laid out as the gateway lays tenants out (namespaces `<tid>-<name>` labelled
 * `kubezoo.io/tenant=<tid>`), so a benchmark does not wait on the gateway to fill the cluster.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Pool } from 'undici';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { addPrefix, tenantPrefix } from '../../translate/context.js';
import { TENANT_LABEL } from '../../translate/kinds/tenant-label.js';
import { desiredGrants } from '../../tenants/tenant-grants.js';
import { adminBinding, ensureTenantSpace } from '../../tenants/upstream-space.js';
import type { BenchEnvironment } from './environment.js';
import { realisticPod } from './pods.js';
import type { Target } from './target.js';

/** Enough in flight to keep the devcluster's single thread busy while its log fsyncs. */
const WRITERS = 32;

export class UpstreamWriter {
  private readonly pool: Pool;

  constructor(private readonly target: Target) {
    this.pool = new Pool(target.origin, {
      connections: WRITERS,
      connect: { ca: target.ca, cert: target.cert, key: target.key },
    });
  }

  async create(path: string, object: Record<string, unknown>): Promise<void> {
    const res = await this.pool.request({
      method: 'POST',
      path,
      headers: { ...this.target.headers, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(object),
    });
    const text = await res.body.text();
    if (res.statusCode !== 201) throw new Error(`creating ${path}: ${res.statusCode} ${text.slice(0, 300)}`);
  }

  /** A namespace of the tenant's beyond the four it starts with, with the grant of its admin there, as the gateway makes it. */
  async createTenantNamespace(tenantId: string, name: string): Promise<void> {
    const namespace = addPrefix(tenantPrefix(tenantId), name);
    await this.create('/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace, labels: { [TENANT_LABEL]: tenantId } },
    });
    for (const grant of desiredGrants(tenantId, [adminBinding(tenantId)], [namespace]).values())
      await this.create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings`, grant);
  }

  /**
   * `perNamespace` realistic pods in each of these upstream namespaces, once each namespace's
   * `default` ServiceAccount exists: its controller makes it after the namespace, and until then
   * the cluster refuses pods (403, as kube's ServiceAccount admission does; kube's e2e waits too).
   */
  async createPods(namespaces: string[], perNamespace: number): Promise<void> {
    await inParallel(namespaces.length, WRITERS, (i) => this.defaultServiceAccount(namespaces[i]));
    await inParallel(namespaces.length * perNamespace, WRITERS, (i) => {
      const namespace = namespaces[Math.floor(i / perNamespace)];
      return this.create(`/api/v1/namespaces/${namespace}/pods`, realisticPod(namespace, i % perNamespace));
    });
  }

  private async defaultServiceAccount(namespace: string): Promise<void> {
    for (const started = Date.now(); ; await delay(20)) {
      const res = await this.pool.request({
        method: 'GET',
        path: `/api/v1/namespaces/${namespace}/serviceaccounts/default`,
        headers: { ...this.target.headers, accept: 'application/json' },
      });
      const text = await res.body.text();
      if (res.statusCode === 200) return;
      if (res.statusCode !== 404 || Date.now() - started > 30_000)
        throw new Error(`waiting for ${namespace}'s default ServiceAccount: ${res.statusCode} ${text.slice(0, 300)}`);
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * Tenants that exist only upstream, with the gateway's own code for a tenant's space (its four
 * namespaces, its ClusterRole and binding): the neighbours that make a cluster crowded.
 */
export async function createTenantSpaces(env: BenchEnvironment, ids: string[]): Promise<void> {
  const client = RestClient.fromKubeconfig(env.upstreamAdminKubeconfig);
  try {
    await inParallel(ids.length, WRITERS, (i) => ensureTenantSpace(client, ids[i]));
  } finally {
    client.close();
  }
}

export async function inParallel(count: number, concurrency: number, op: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await op(next++);
    }),
  );
}
