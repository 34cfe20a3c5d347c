/**
 * Whether a tenant user may read (get, list, watch) what the gateway would serve from its cache
 * rather than the cluster: a cached read must be allowed exactly when the cluster would allow the
 * same read (docs/isolation.md, "Reads from the cache are authorized as the upstream would").
 *
 * - In one of the tenant's namespaces, the cluster decides: a SubjectAccessReview about the
 *   tenant user as the tenant proxy impersonates it (tenants/upstream-identity.ts), with the
 *   upstream namespace and group.
 * - Across all namespaces, or of a cluster-scoped kind, the gateway decides as it does for such
 *   requests sent upstream (tenant-authorizer.ts): by the tenant's own ClusterRoles and
 *   ClusterRoleBindings, so `-A` needs a cluster-wide grant, as in kube.
 *
 * One per cluster per replica. Decisions are kept per (user, groups, verb, group, resource,
 * namespace, name) for a short TTL, and dropped as soon as the cluster's RBAC objects change
 * (rbac-change-feed.ts): a tenant's decisions when a Role or RoleBinding in its namespaces does,
 * every tenant's when a ClusterRole or ClusterRoleBinding does. While the feed is not current
 * (before its first list, while a watch is down) nothing is kept: each read asks.
 */
import type { RestClient } from '../../apiserver/client/rest-client.js';
import { forbiddenMessage, type Decision } from '../../apiserver/authorization/rbac-authorizer.js';
import { addPrefix, ADMIN_GROUPS, groupUp, type TenantContext } from '../../translate/context.js';
import { DecisionCache } from './decision-cache.js';
import { RbacChangeFeed } from './rbac-change-feed.js';
import { reviewAccess, type ResourceAttributes } from './subject-access-review.js';
import { tenantUserInfo, type TenantAuthorizer } from './tenant-authorizer.js';
import { upstreamUser, type TenantUserIdentity } from '../../tenants/upstream-identity.js';

/**
 * kube-apiserver's webhook authorizer keeps allowed answers 5 min and denied ones 30 s because
 * nothing tells it of a change; here the RBAC watch does, and the TTL only bounds how long a
 * change the cluster's own authorizer had not yet applied when it was asked can linger.
 */
export const DEFAULT_DECISION_TTL_MS = 10_000;
/** A few hundred bytes each: a few MB at most. */
export const DEFAULT_MAX_DECISIONS = 10_000;

/** One read, in the tenant's terms. */
export interface CachedReadQuestion {
  verb: 'get' | 'list' | 'watch';
  group: string;
  resource: string;
  /** `""`: across all namespaces, or a cluster-scoped kind. */
  namespace: string;
  /** The object's name, for a get (or a watch of one object). */
  name?: string;
}

/** What of a cluster the decisions need: its name, the gateway's client, and its cluster-scope authorizer. */
export interface AuthorizingCluster {
  name: string;
  admin: RestClient;
  authorizer: TenantAuthorizer;
}

export interface CachedReadAuthorizerOptions {
  ttlMs?: number;
  maxDecisions?: number;
}

export class CachedReadAuthorizer {
  private readonly decisions: DecisionCache<Decision>;
  private readonly changes: RbacChangeFeed;

  constructor(
    private readonly cluster: AuthorizingCluster,
    options: CachedReadAuthorizerOptions = {},
  ) {
    this.changes = new RbacChangeFeed(cluster.admin, cluster.name, (tenant) => {
      if (tenant === undefined) cluster.authorizer.invalidate();
      this.decisions.forget(tenant);
    });
    this.decisions = new DecisionCache({
      maxEntries: options.maxDecisions ?? DEFAULT_MAX_DECISIONS,
      ttlMs: options.ttlMs ?? DEFAULT_DECISION_TTL_MS,
      canKeep: () => this.changes.isCurrent(),
    });
  }

  /** Starts following the cluster's RBAC objects. */
  start(): void {
    this.changes.run();
  }

  stop(): void {
    this.changes.stop();
  }

  /** Resolves true once the RBAC objects are listed (decisions can be kept from then on), false if stopped before. */
  synced(): Promise<boolean> {
    return this.changes.firstSync();
  }

  /** Decisions kept now. */
  get size(): number {
    return this.decisions.size;
  }

  /** The decision; a denial carries kube-apiserver's 403 message in the tenant's terms. */
  async authorize(ctx: TenantContext, identity: TenantUserIdentity, question: CachedReadQuestion): Promise<Decision> {
    if (identity.tenant !== ctx.tenantId) throw new Error(`user ${identity.user} is not of tenant ${ctx.tenantId}`);
    const name = question.name ?? '';
    const namespaced = ctx.kinds.resourceIsNamespaced(question.group, question.resource);
    const inNamespace = namespaced !== false && question.namespace !== '';
    // kube asks about the namespace a request names; a cluster-scoped kind has none, but a Namespace is its own.
    const namespace = inNamespace
      ? question.namespace
      : namespaced === false && question.group === '' && question.resource === 'namespaces'
        ? name
        : '';
    const attributes = { ...question, namespace, name };
    // The admin's own groups are never the tenant's to read, whatever its RBAC says of them.
    if (ADMIN_GROUPS.has(attributes.group)) return denied(ctx, identity, attributes);
    const key = JSON.stringify([
      identity.user,
      [...identity.groups].sort(),
      attributes.verb,
      attributes.group,
      attributes.resource,
      attributes.namespace,
      attributes.name,
      inNamespace,
    ]);
    return this.decisions.decide(ctx.tenantId, key, () =>
      inNamespace ? this.askCluster(ctx, identity, attributes) : this.decideHere(ctx, identity, attributes),
    );
  }

  /** A SubjectAccessReview about the tenant user, every name in it the upstream one. */
  private async askCluster(ctx: TenantContext, identity: TenantUserIdentity, a: ResourceAttributes): Promise<Decision> {
    const allowed = await reviewAccess(this.cluster.admin, upstreamUser(identity), {
      ...a,
      group: groupUp(ctx, a.group),
      namespace: addPrefix(ctx, a.namespace),
    });
    // The review's reason names upstream bindings: it is not the tenant's to read.
    return allowed ? { allowed: true, reason: '' } : denied(ctx, identity, a);
  }

  /** By the tenant's own RBAC, as the gateway decides its cluster-scope requests. */
  private decideHere(ctx: TenantContext, identity: TenantUserIdentity, a: ResourceAttributes): Promise<Decision> {
    return this.cluster.authorizer.authorize(
      ctx,
      { tenant: identity.tenant, user: identity.user, groups: [...identity.groups] },
      requestAttributes(a),
    );
  }
}

function denied(ctx: TenantContext, identity: TenantUserIdentity, a: ResourceAttributes): Decision {
  const user = tenantUserInfo(ctx, { tenant: identity.tenant, user: identity.user, groups: [...identity.groups] });
  return {
    allowed: false,
    reason: '',
    message: forbiddenMessage({ user, ...requestAttributes(a) }),
  };
}

/** A read's attributes as the RBAC authorizer takes them: a resource request without a subresource. */
function requestAttributes(a: ResourceAttributes) {
  return {
    verb: a.verb,
    isResourceRequest: true as const,
    namespace: a.namespace,
    apiGroup: a.group,
    resource: a.resource,
    subresource: '',
    name: a.name,
    path: '',
  };
}
