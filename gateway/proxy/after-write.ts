import type { TenantContext } from '../../translate/context.js';
import type { TranslatedRequest } from '../../translate/request.js';
import { grantNamespace, syncTenantGrants } from '../../tenants/tenant-grants.js';
import { parseJson } from './answer-down.js';
import type { UpstreamConnection } from '../upstream/upstream-connection.js';
import type { RequestAuthorizer } from '../auth/request-authorizer.js';

/**
 * What a successful write changes beyond itself: a binding or namespace changes the tenant's
 * grants, any RBAC object the tenant's decisions (request-authorizer.ts: before the cluster's
 * RBAC watch reports it, so the tenant's next request is decided by what it just wrote).
 */
export async function afterWrite(
  ctx: TenantContext,
  t: TranslatedRequest,
  upstream: UpstreamConnection,
  authorizer: RequestAuthorizer,
  answer: string,
): Promise<void> {
  const rbac = t.info.group === 'rbac.authorization.k8s.io';
  if (rbac) authorizer.invalidate(ctx.tenantId);
  if (rbac && t.info.resource === 'clusterrolebindings')
    await syncTenantGrants(upstream.admin, ctx.tenantId, await upstream.authorizer.clusterRoleBindingsOf(ctx.tenantId));
  const namespace =
    t.info.group === '' && t.info.resource === 'namespaces' && t.info.verb === 'create'
      ? parseJson(answer)?.metadata?.name
      : undefined;
  if (typeof namespace === 'string') {
    await grantNamespace(
      upstream.admin,
      ctx.tenantId,
      namespace,
      await upstream.authorizer.clusterRoleBindingsOf(ctx.tenantId),
    );
  }
}
