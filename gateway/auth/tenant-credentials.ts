/**
 * The authorization stage of a tenant's request (gateway/server/pipeline.ts): who it runs as
 * upstream (docs/isolation.md, "Least privilege upstream"), the gateway's own decision where it
 * runs as the gateway, and whether the cache may answer a read the gateway answers itself. Every
 * decision is the cluster's one authorizer's (request-authorizer.ts), under its one freshness rule.
 */
import { impersonationHeaders, upstreamUser } from '../../tenants/upstream-identity.js';
import { TranslationError } from '../../translate/context.js';
import { assertUnderPrefix } from '../../translate/prefix-check.js';
import type { UpstreamResponse } from '../../clusters/cluster-connection.js';
import type { WholeUpstreamResponse } from '../../clusters/upstream-connection.js';
import type { CacheDecision, TenantIdentity, TenantRequest, UpstreamHeaders } from '../server/tenant-request.js';

/** Self reviews are about the caller: they run as the tenant user whatever their scope. */
const SELF_REVIEWS = new Set([
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  'authentication.k8s.io/selfsubjectreviews',
]);

/**
 * Sets the credentials the request goes upstream with. Inside one of the tenant's namespaces: the
 * tenant user, whom upstream RBAC confines to the tenant's namespaces — the cluster decides. At
 * the cluster scope (a cluster-scoped kind, a namespaced kind across all namespaces) and in a
 * namespace that does not exist, the tenant holds no rights upstream: the gateway decides by the
 * tenant's own RBAC, as kube-apiserver would, and sends the request with its own credentials —
 * only ever under the tenant's prefix (`assertUnderPrefix`), and fanned out only over the
 * tenant's namespaces. A read its route answers from the cache (`fromCache`) gets the cache's
 * decision besides, and goes to the cluster with these credentials when the cache may not answer.
 */
export async function authorizeUpstream(r: TenantRequest, fromCache = false): Promise<void> {
  const { t } = r;
  if (SELF_REVIEWS.has(`${t.info.group}/${t.info.resource}`) || (t.namespaced && t.info.namespace)) {
    r.headers = { ...impersonation(r.identity) };
  } else {
    await authorizeHere(r);
    r.headers = {};
  }
  if (fromCache) r.cacheDecision = await cacheDecision(r);
}

/**
 * Whether the cache may answer a read: only what the cluster would allow (docs/isolation.md, "Reads
 * from the cache are authorized as the upstream would"): the cluster's decision in one of the
 * tenant's namespaces, the gateway's at the cluster scope. A read denied goes to the cluster, which
 * refuses it in its own words or — in a namespace whose grants it has not seen yet — gets it sent
 * as the gateway where the tenant's own RBAC allows it (`sendAsTenant`); so does one whose cluster
 * could not be asked, and the forwarded read says why, in kube's words.
 */
async function cacheDecision(r: TenantRequest): Promise<CacheDecision> {
  const { t } = r;
  try {
    const decision = await r.cluster.requestAuthorizer.authorize(r.ctx, r.identity, {
      verb: t.info.verb,
      group: t.info.group,
      resource: t.info.resource,
      namespace: t.info.namespace,
      name: t.info.name || undefined,
    });
    return decision.allowed ? 'allowed' : 'denied';
  } catch {
    return 'unavailable';
  }
}

/** The gateway's decision by the tenant's RBAC; a denial is kube's 403, an allowed request must name only the tenant's. */
async function authorizeHere(r: TenantRequest): Promise<void> {
  const { t } = r;
  const decision = await r.cluster.requestAuthorizer.decideHere(r.ctx, r.identity, {
    verb: t.info.verb,
    group: t.info.group,
    resource: t.info.resource,
    subresource: t.info.subresource,
    namespace: t.info.namespace,
    name: t.info.name,
  });
  if (!decision.allowed)
    throw new TranslationError(403, 'Forbidden', decision.message ?? 'forbidden', {
      name: t.info.name,
      group: t.info.group,
      kind: t.info.resource,
    });
  assertUnderPrefix(r.ctx, t);
}

/**
 * Sends one upstream request (built by `call` with the headers to use), first with the request's
 * headers. A request in a namespace runs as the tenant user. Upstream refuses it where the tenant
 * has no grants: a namespace that does not exist (yet), one made a moment ago whose grants the
 * cluster's authorizer has not seen, one whose grants were deleted and not yet healed. Where the
 * tenant's own RBAC allows the request all the same, kube-apiserver would have let it through (to
 * a 404, an empty list, …): the gateway sends it again as itself, under the tenant's prefix only.
 */
export async function sendAsTenant<Answer extends UpstreamResponse | WholeUpstreamResponse>(
  r: TenantRequest,
  call: (headers: UpstreamHeaders) => Promise<Answer>,
): Promise<Answer> {
  const { t, headers } = r;
  const first = await call(headers);
  if (first.status !== 403 || !('impersonate-user' in headers) || !t.namespaced || !t.info.namespace) return first;
  try {
    await authorizeHere(r);
  } catch {
    return first;
  }
  if ('body' in first) first.body.resume();
  const { 'impersonate-user': _user, 'impersonate-group': _groups, ...asGateway } = headers;
  return call(asGateway);
}

/** Each identity's headers, made once: an identity is made once per connection (client-certificate.ts). */
const impersonations = new WeakMap<TenantIdentity, UpstreamHeaders>();

/** The tenant user's upstream identity (tenants/upstream-identity.ts) as headers: each group its own Impersonate-Group line. */
export function impersonation(identity: TenantIdentity): UpstreamHeaders {
  let headers = impersonations.get(identity);
  if (!headers) impersonations.set(identity, (headers = impersonationHeaders(upstreamUser(identity))));
  return headers;
}
