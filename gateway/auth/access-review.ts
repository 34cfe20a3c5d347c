/**
 * `kubectl auth can-i` (a SelfSubjectAccessReview), and a SubjectAccessReview, answered by the
 * gateway for resource questions: upstream the tenant's identities hold rights only inside the tenant's namespaces
 * (docs/isolation.md), so the cluster would say "no" to `can-i list namespaces` or `can-i get
 * pods -A` where the gateway, deciding by the tenant's own RBAC, says yes; and "yes" to writes of
 * shared kinds (nodes) that the gateway refuses. The answer here is the gateway's own decision:
 * the same evaluation its requests get (tenant-authorizer.ts), then its own refusals.
 * Non-resource questions (`can-i get /healthz`) go upstream as before.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../../apiserver/handlers/http-io.js';
import { isObject, type Json } from '../../apiserver/json.js';
import { decodeKubernetesProtobuf } from '../../apiserver/protobuf/decode.js';
import {
  addPrefix,
  ADMIN_GROUPS,
  isSharedResource,
  TranslationError,
  type TenantContext,
} from '../../translate/context.js';
import { groupName, SERVICE_ACCOUNT_USER, userName } from '../../translate/kinds/identity-names.js';
import type { RequestAuthorizer } from './request-authorizer.js';
import type { TenantUser } from './tenant-authorizer.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const READ_VERBS = new Set(['get', 'list', 'watch']);

/** The review's JSON form, from a JSON or protobuf body; undefined when it is neither. */
export function accessReviewOf(contentType: string, raw: Buffer): Json | undefined {
  try {
    if (contentType === PROTOBUF) return decodeKubernetesProtobuf(raw).object;
    const parsed = JSON.parse(raw.toString('utf8'));
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Answers the review when it asks about a resource; false when it is the upstream's to answer.
 * A SelfSubjectAccessReview is about the caller; a SubjectAccessReview (which the caller was
 * allowed to create) about the user and groups it names, in the tenant's terms.
 */
export async function answerAccessReview(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: TenantContext,
  caller: TenantUser,
  authorizer: Pick<RequestAuthorizer, 'decideHere'>,
  kind: 'SelfSubjectAccessReview' | 'SubjectAccessReview',
  review: Json,
): Promise<boolean> {
  const attributes = review.spec?.resourceAttributes;
  if (typeof attributes !== 'object' || attributes === null) return false;
  let who = caller;
  if (kind === 'SubjectAccessReview') {
    const user = typeof review.spec.user === 'string' ? review.spec.user : '';
    const groups = Array.isArray(review.spec.groups)
      ? review.spec.groups.filter((group: unknown): group is string => typeof group === 'string')
      : [];
    // The names a binding may hold, and no others: the cluster's own identities (system:masters,
    // which RBAC grants everything) are 403 here as in a binding's subjects (docs/isolation.md).
    for (const group of groups) groupName.up(ctx, group);
    userName.up(ctx, user);
    // A ServiceAccount's user name is the same in both views; every other user carries the prefix.
    who = {
      tenant: ctx.tenantId,
      user: user.startsWith(SERVICE_ACCOUNT_USER) ? user : addPrefix(ctx, user),
      groups,
      exactGroups: true,
    };
  }
  const text = (key: string) => (typeof attributes[key] === 'string' ? attributes[key] : '');
  const group = text('group');
  const resource = text('resource');
  const verb = text('verb');
  const status = await decide(ctx, who, authorizer, {
    verb,
    group,
    resource,
    subresource: text('subresource'),
    name: text('name'),
    namespace: text('namespace'),
  });
  sendJson(req, res, 201, {
    kind,
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec: review.spec,
    status,
  });
  return true;
}

async function decide(
  ctx: TenantContext,
  who: TenantUser,
  authorizer: Pick<RequestAuthorizer, 'decideHere'>,
  a: { verb: string; group: string; resource: string; subresource: string; name: string; namespace: string },
): Promise<Json> {
  if (ADMIN_GROUPS.has(a.group))
    return { allowed: false, denied: true, reason: `tenants cannot use the API group "${a.group}"` };
  if (isSharedResource(a.group, a.resource) && !READ_VERBS.has(a.verb))
    return { allowed: false, denied: true, reason: `${a.resource} are shared by all tenants and read-only` };
  try {
    // The cluster's one authorizer, by the tenant's own RBAC: the namespace it asks kube about is its to choose.
    const decision = await authorizer.decideHere(ctx, who, {
      verb: a.verb,
      group: a.group,
      resource: a.resource,
      subresource: a.subresource,
      namespace: a.namespace,
      name: a.name,
    });
    return decision.allowed
      ? { allowed: true, reason: decision.reason }
      : { allowed: false, ...(decision.reason ? { reason: decision.reason } : {}) };
  } catch (err) {
    if (err instanceof TranslationError) throw err;
    return { allowed: false, evaluationError: (err as Error).message };
  }
}
