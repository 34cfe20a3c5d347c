/**
 * The one authorizer of a tenant's requests on one cluster (the authorization stage of
 * gateway/server/pipeline.ts), for forwarded requests and reads from the cache alike: a request
 * is allowed exactly when the cluster would allow it (docs/isolation.md, "Reads from the cache are
 * authorized as the upstream would").
 *
 * - In one of the tenant's namespaces, the cluster decides: a forwarded request is sent as the
 *   tenant user (tenant-credentials.ts) and the cluster decides on it; a read the gateway answers
 *   from its cache is asked of the cluster as a SubjectAccessReview about the tenant user as the
 *   pipeline impersonates it (tenants/upstream-identity.ts), with the upstream namespace and group.
 * - At the cluster scope (a cluster-scoped kind, a namespaced kind across all namespaces), and for
 *   a request in a namespace the cluster refused where the tenant's grants may not have reached it
 *   yet, the gateway decides (tenant-authorizer.ts): by the tenant's own RBAC, so `-A` needs a
 *   cluster-wide grant, as in kube.
 *
 * One freshness rule for every decision made or asked here, whichever path asks
 * (docs/architecture.md, "The freshness rule"): a decision is kept per (user, groups, verb,
 * group, resource, subresource, namespace, name, who decides) for at most a short TTL, only while
 * the cluster's RBAC change feed is current (rbac-change-feed.ts: before its first list, while a
 * watch is down, nothing is kept and each request asks), and dropped as soon as the feed reports a
 * change that may concern it — a tenant's decisions when a Role or RoleBinding in its namespaces
 * changes, every tenant's when a ClusterRole or ClusterRoleBinding does — or the tenant writes an
 * RBAC object through this replica (`wrote`). One per cluster per replica, kept with the
 * cluster's state (gateway/upstream/gateway-cluster-state.ts).
 */
import type { RestClient } from '../../apiserver/client/rest-client.js';
import { forbiddenMessage, type Decision } from '../../apiserver/authorization/rbac-authorizer.js';
import { addPrefix, ADMIN_GROUPS, groupUp, type TenantContext } from '../../translate/context.js';
import { DecisionCache } from './decision-cache.js';
import type { RbacChangeFeed } from './rbac-change-feed.js';
import type { RbacWrite } from './rbac-writes.js';
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

/** One request, in the tenant's terms. */
export interface RequestQuestion {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  /** `""`: across all namespaces, or a cluster-scoped kind. */
  namespace: string;
  /** The object's name, for a get (or a watch of one object). */
  name?: string;
}

/** A user asked about: a request's, or the one a SubjectAccessReview names, whose groups are all there is (no `system:authenticated` added). */
export type ReviewedIdentity = TenantUserIdentity & { exactGroups?: boolean };

/** The question of a read from the cache. */
export type CachedReadQuestion = RequestQuestion & { verb: 'get' | 'list' | 'watch' };

/** What of a cluster the decisions need: its name, the gateway's client, its RBAC informers and its cluster-scope authorizer (which reads them). */
export interface AuthorizingCluster {
  name: string;
  admin: RestClient;
  rbac: RbacChangeFeed;
  authorizer: TenantAuthorizer;
}

export interface RequestAuthorizerOptions {
  ttlMs?: number;
  maxDecisions?: number;
}

export class RequestAuthorizer {
  private readonly decisions: DecisionCache<Decision>;
  private readonly changes: RbacChangeFeed;

  constructor(
    private readonly cluster: AuthorizingCluster,
    options: RequestAuthorizerOptions = {},
  ) {
    this.changes = cluster.rbac;
    this.decisions = new DecisionCache({
      maxEntries: options.maxDecisions ?? DEFAULT_MAX_DECISIONS,
      ttlMs: options.ttlMs ?? DEFAULT_DECISION_TTL_MS,
      canKeep: () => this.changes.isCurrent(),
    });
  }

  /** Starts following the cluster's RBAC objects. */
  start(): void {
    // A change in a tenant's namespaces may be to its ClusterRoleBindings, stored in its kube-system: its decisions go.
    this.changes.run((tenant) => this.decisions.forget(tenant));
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

  /**
   * The decision about a request the gateway answers itself (a read from the cache): the cluster's
   * in one of the tenant's namespaces, the gateway's at the cluster scope. A denial carries
   * kube-apiserver's 403 message in the tenant's terms.
   */
  async authorize(ctx: TenantContext, identity: TenantUserIdentity, question: RequestQuestion): Promise<Decision> {
    const namespaced = ctx.kinds.resourceIsNamespaced(question.group, question.resource);
    return this.decide(
      ctx,
      identity,
      question,
      namespaced !== false && question.namespace !== '' ? 'cluster' : 'gateway',
    );
  }

  /**
   * The gateway's own decision by the tenant's RBAC, wherever the request is: a request it sends
   * with its own credentials (at the cluster scope, or in a namespace the cluster refused while
   * the tenant's grants had not reached it). `namespace` is the one kube's authorizer is asked
   * about: a Namespace object's own, `""` at the cluster scope.
   */
  async decideHere(ctx: TenantContext, identity: ReviewedIdentity, question: RequestQuestion): Promise<Decision> {
    return this.decide(ctx, identity, question, 'gateway');
  }

  /**
   * The tenant wrote RBAC objects through this replica (tenant-authorizer.ts waits for the
   * informers to see them; undefined: a write whose answer named nothing to wait for): its
   * decisions go.
   */
  wrote(tenant: string, writes: readonly (RbacWrite | undefined)[]): void {
    this.cluster.authorizer.wrote(tenant, writes);
    this.decisions.forget(tenant);
  }

  private decide(
    ctx: TenantContext,
    identity: ReviewedIdentity,
    question: RequestQuestion,
    decider: 'cluster' | 'gateway',
  ): Promise<Decision> {
    if (identity.tenant !== ctx.tenantId) throw new Error(`user ${identity.user} is not of tenant ${ctx.tenantId}`);
    const name = question.name ?? '';
    // kube asks about the namespace a request names; a cluster-scoped kind has none, but a Namespace is its own.
    const namespace =
      question.namespace !== '' &&
      (decider === 'cluster' || ctx.kinds.resourceIsNamespaced(question.group, question.resource) !== false)
        ? question.namespace
        : question.group === '' && question.resource === 'namespaces'
          ? name
          : '';
    const attributes = { ...question, subresource: question.subresource ?? '', namespace, name };
    // The admin's own groups are never the tenant's to read, whatever its RBAC says of them.
    if (ADMIN_GROUPS.has(attributes.group)) return Promise.resolve(denied(ctx, identity, attributes));
    const key = JSON.stringify([
      identity.user,
      [...identity.groups].sort(),
      identity.exactGroups === true,
      attributes.verb,
      attributes.group,
      attributes.resource,
      attributes.subresource,
      attributes.namespace,
      attributes.name,
      decider,
    ]);
    return this.decisions.decide(ctx.tenantId, key, () =>
      decider === 'cluster' ? this.askCluster(ctx, identity, attributes) : this.byTenantRbac(ctx, identity, attributes),
    );
  }

  /** A SubjectAccessReview about the tenant user, every name in it the upstream one. */
  private async askCluster(ctx: TenantContext, identity: ReviewedIdentity, a: QuestionAttributes): Promise<Decision> {
    const allowed = await reviewAccess(this.cluster.admin, upstreamUser(identity), {
      ...a,
      group: groupUp(ctx, a.group),
      namespace: addPrefix(ctx, a.namespace),
    });
    // The review's reason names upstream bindings: it is not the tenant's to read.
    return allowed ? { allowed: true, reason: '' } : denied(ctx, identity, a);
  }

  /** By the tenant's own RBAC (tenant-authorizer.ts). */
  private byTenantRbac(ctx: TenantContext, identity: ReviewedIdentity, a: QuestionAttributes): Promise<Decision> {
    return this.cluster.authorizer.authorize(
      ctx,
      { tenant: identity.tenant, user: identity.user, groups: [...identity.groups], exactGroups: identity.exactGroups },
      requestAttributes(a),
    );
  }
}

/** A question with every attribute set: the namespace kube's authorizer is asked about. */
type QuestionAttributes = ResourceAttributes & { subresource: string };

function denied(ctx: TenantContext, identity: ReviewedIdentity, a: QuestionAttributes): Decision {
  const user = tenantUserInfo(ctx, {
    tenant: identity.tenant,
    user: identity.user,
    groups: [...identity.groups],
    exactGroups: identity.exactGroups,
  });
  return {
    allowed: false,
    reason: '',
    message: forbiddenMessage({ user, ...requestAttributes(a) }),
  };
}

/** A question's attributes as the RBAC authorizer takes them: a resource request. */
function requestAttributes(a: QuestionAttributes) {
  return {
    verb: a.verb,
    isResourceRequest: true as const,
    namespace: a.namespace,
    apiGroup: a.group,
    resource: a.resource,
    subresource: a.subresource,
    name: a.name,
    path: '',
  };
}
