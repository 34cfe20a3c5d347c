import type { TenantContext } from '../../translate/context.js';
import type { TranslatedRequest } from '../../translate/request.js';
import { grantNamespace, syncTenantGrants } from '../../tenants/tenant-grants.js';
import { parseJson } from './answer-down.js';
import type { GatewayClusterState } from '../upstream/gateway-cluster-state.js';
import { errorMessage, logger } from '../../log/log.js';
import { parseRequestInfo } from '../../apiserver/request-info.js';
import { storeKey } from '../../informer/key-func.js';
import { isRbacResource, rbacWritesOf, type RbacWrite } from '../auth/rbac-writes.js';
import { storedBindingsPath } from './stored-cluster-role-bindings.js';

const log = logger('gateway');

/** One upstream answer to a write: the path it went to (an object's, or a collection's) and its text. */
export interface WriteAnswer {
  path: string;
  text: string;
}

/**
 * What a successful write changes beyond itself: a binding or namespace changes the tenant's
 * grants, any RBAC object the tenant's decisions (request-authorizer.ts: until the cluster's RBAC
 * informers have seen the write, so the tenant's next request is decided by what it just wrote).
 *
 * The write itself is done and acknowledged upstream, so a grant sync that fails (the cluster
 * slow or gone mid-way) must not turn its answer into an error the client would retry: it is
 * logged, and the tenant controller's heal pass, whose informers saw the same write, makes the
 * grants right, as kube's RBAC catches up with a binding through its informers.
 */
export async function afterWrite(
  ctx: TenantContext,
  t: TranslatedRequest,
  cluster: GatewayClusterState,
  answers: readonly WriteAnswer[],
): Promise<void> {
  if (t.info.group === 'rbac.authorization.k8s.io')
    cluster.requestAuthorizer.wrote(
      ctx.tenantId,
      answers.flatMap((answer) => rbacWritesAt(ctx, answer)),
    );
  await syncGrants(ctx, t, cluster, answers[0]?.text ?? '').catch((err: unknown) =>
    log.warn('grants left to the heal pass', {
      tenant: ctx.tenantId,
      cluster: cluster.name,
      write: `${t.info.verb} ${t.info.resource}`,
      error: errorMessage(err),
    }),
  );
}

/** The RBAC writes an answer reports, by the upstream object they are of (a ClusterRoleBinding's: the RoleBinding it is stored as). */
function rbacWritesAt(ctx: TenantContext, answer: WriteAnswer): (RbacWrite | undefined)[] {
  const path = (storedBindingsPath(ctx, answer.path) ?? answer.path).split('?')[0];
  const info = parseRequestInfo('GET', path, new URLSearchParams());
  if (!info.isResourceRequest || !isRbacResource(info.resource)) return [undefined];
  return rbacWritesOf(info.resource, storeKey(info.namespace, info.name), parseJson(answer.text) ?? undefined);
}

async function syncGrants(
  ctx: TenantContext,
  t: TranslatedRequest,
  cluster: GatewayClusterState,
  answer: string,
): Promise<void> {
  if (t.info.group === 'rbac.authorization.k8s.io' && t.info.resource === 'clusterrolebindings')
    await syncTenantGrants(cluster.admin, ctx.tenantId, await cluster.authorizer.clusterRoleBindingsOf(ctx.tenantId));
  const namespace =
    t.info.group === '' && t.info.resource === 'namespaces' && t.info.verb === 'create'
      ? parseJson(answer)?.metadata?.name
      : undefined;
  if (typeof namespace === 'string') {
    await grantNamespace(
      cluster.admin,
      ctx.tenantId,
      namespace,
      await cluster.authorizer.clusterRoleBindingsOf(ctx.tenantId),
    );
  }
}
