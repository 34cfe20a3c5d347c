import { hasPrefix, TranslationError, type TenantContext } from '../../translate/context.js';
import { TENANT_LABEL } from '../../translate/kinds/tenant-label.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { UpstreamConnection } from '../../clusters/upstream-connection.js';
import type { GatewayClusterState } from '../upstream/gateway-cluster-state.js';
import { tenantClaim } from '../../clusters/upstream-seats.js';

/** The label selector that finds a tenant's namespaces upstream. */
const tenantNamespaceSelector = (ctx: TenantContext) => `${TENANT_LABEL}=${ctx.tenantId}`;

/**
 * The tenant's upstream namespace names, in name order, for a cross-namespace list or watch: from
 * the cluster's namespace index (namespace-index.ts) when it is in sync, else asked of the cluster.
 */
export async function tenantNamespaceNames(
  ctx: TenantContext,
  cluster: GatewayClusterState,
  metrics: GatewayMetrics,
): Promise<string[]> {
  return (
    cluster.namespaceIndex.namespacesOf(ctx.tenantId) ?? (await tenantNamespaces(ctx, cluster.connection, metrics))
  );
}

/**
 * A tenant's namespaces upstream, found by their tenant label — read with the gateway's own
 * credentials, as are the per-namespace reads of a cross-namespace request after it: the gateway
 * has authorized that request against the tenant's own RBAC first (tenant-authorizer.ts).
 */
async function tenantNamespaces(
  ctx: TenantContext,
  upstream: UpstreamConnection,
  metrics: GatewayMetrics,
): Promise<string[]> {
  const response = await metrics.upstream(upstream.name, 'list', (seated) =>
    upstream.request(
      'GET',
      `/api/v1/namespaces?labelSelector=${encodeURIComponent(tenantNamespaceSelector(ctx))}`,
      { accept: 'application/json' },
      undefined,
      undefined,
      { ...tenantClaim(ctx.tenantId), seated },
    ),
  );
  const text = await response.body.text();
  let list: { items?: { metadata: { name: string } }[] } | undefined;
  try {
    list = JSON.parse(text);
  } catch {
    list = undefined;
  }
  if (response.status !== 200 || !list)
    throw new TranslationError(503, 'ServiceUnavailable', "could not list the tenant's namespaces");
  const names = (list.items ?? [])
    .map((ns) => ns.metadata.name)
    .filter((name) => hasPrefix(ctx, name))
    .sort();
  metrics.objectsRead.inc({ cluster: upstream.name }, names.length);
  return names;
}

/** The collection path of a namespaced resource in one namespace, from its all-namespaces path. */
export function namespacedPath(allNamespacesPath: string, namespace: string): string {
  const slash = allNamespacesPath.lastIndexOf('/');
  return `${allNamespacesPath.slice(0, slash)}/namespaces/${encodeURIComponent(namespace)}${allNamespacesPath.slice(slash)}`;
}
