import type { IncomingMessage, ServerResponse } from 'node:http';
import { nonResourceAttributes, type Attributes } from '../apiserver/authorization/attributes.js';
import type { Decision, RbacAuthorizer } from '../apiserver/authorization/rbac-authorizer.js';
import { decodeObjectBody, readBody, sendJson } from '../apiserver/handlers/http-io.js';
import type { ApiServer } from '../apiserver/api-server.js';
import { timestamp } from '../apiserver/registry/generic-registry.js';
import type { ResourceRequestInfo } from '../apiserver/request-info.js';
import { ApiError, badRequest, statusOf } from '../apiserver/status.js';
import { goQuote } from '../apiserver/go-quote.js';
import { serviceAccountUser, type AuthenticatedUser } from './authentication.js';
import { API_AUDIENCES, type ServiceAccountTokens } from './service-account-tokens.js';

export interface ReviewContext {
  authorizer: RbacAuthorizer;
  authorize: (attributes: Attributes) => Decision;
  tokens: Map<string, AuthenticatedUser>;
  serviceAccounts: ServiceAccountTokens;
  api: ApiServer;
}

const REVIEWS = new Set([
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/subjectaccessreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  'authentication.k8s.io/selfsubjectreviews',
  'authentication.k8s.io/tokenreviews',
]);

/**
 * The resources kube-apiserver answers without storing anything: access reviews (decided by the
 * RBAC authorizer), SelfSubjectReview (`kubectl auth whoami`), TokenReview, and TokenRequest
 * (`serviceaccounts/<name>/token`, `kubectl create token`). Returns false for anything else.
 */
export async function handleReview(
  req: IncomingMessage,
  res: ServerResponse,
  info: ResourceRequestInfo,
  user: AuthenticatedUser,
  ctx: ReviewContext,
): Promise<boolean> {
  const isToken = info.group === '' && info.resource === 'serviceaccounts' && info.subresource === 'token';
  if (!isToken && !REVIEWS.has(`${info.group}/${info.resource}`)) return false;
  if (info.verb !== 'create') return false;
  const body = decodeObjectBody(await readBody(req), req.headers['content-type']) as Record<string, any>;
  if (!body || typeof body !== 'object') throw badRequest('the body of the request must be an object');
  const spec = body.spec ?? {};
  const answer = (status: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    sendJson(req, res, 201, {
      ...body,
      apiVersion: `${info.group ? `${info.group}/` : ''}${info.version}`,
      metadata: { ...(body.metadata ?? {}), creationTimestamp: null },
      ...extra,
      status,
    });
  // TokenRequest is served under core v1's serviceaccounts but belongs to authentication.k8s.io.

  if (isToken) {
    const account = await ctx.api.registryOf('', 'serviceaccounts')!.get(info.namespace, info.name);
    const seconds = Number(spec.expirationSeconds ?? 3600);
    const exp = Math.floor(Date.now() / 1000) + seconds;
    const pod = await boundPod(ctx.api, info.namespace, info.name, spec.boundObjectRef);
    // kube fills in the API's own audiences when none are asked for, and says so in the answer's spec.
    const audiences = stringList(spec.audiences, 'spec.audiences') ?? [...API_AUDIENCES];
    const token = ctx.serviceAccounts.issue({
      namespace: info.namespace,
      name: info.name,
      uid: account.metadata.uid,
      exp,
      audiences,
      ...(pod ? { pod } : {}),
    });
    answer(
      { token, expirationTimestamp: new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') },
      {
        kind: 'TokenRequest',
        apiVersion: 'authentication.k8s.io/v1',
        // kube answers a TokenRequest named as the account it is for, in its namespace, made now.
        metadata: {
          ...(body.metadata ?? {}),
          name: info.name,
          namespace: info.namespace,
          creationTimestamp: timestamp(),
        },
        spec: { ...spec, audiences },
      },
    );
    return true;
  }
  switch (info.resource) {
    case 'selfsubjectreviews':
      answer({
        userInfo: {
          username: user.name,
          groups: user.groups,
          ...(user.uid ? { uid: user.uid } : {}),
          ...(user.extra ? { extra: user.extra } : {}),
        },
      });
      return true;
    case 'tokenreviews': {
      // A review names the audiences it accepts (none: the API's own); the token must be for one
      // of them, and the answer says which. Static tokens are the API's own, as kube's token file.
      const audiences = stringList(spec.audiences, 'spec.audiences') ?? [...API_AUDIENCES];
      const known = audiences.some((a) => API_AUDIENCES.includes(a))
        ? ctx.tokens.get(String(spec.token ?? ''))
        : undefined;
      const claims = known ? null : ctx.serviceAccounts.verify(String(spec.token ?? ''), audiences);
      const reviewed = known ?? (claims ? serviceAccountUser(claims) : null);
      answer(
        reviewed
          ? {
              authenticated: true,
              user: {
                username: reviewed.name,
                uid: reviewed.uid,
                groups: [...new Set([...reviewed.groups, 'system:authenticated'])],
                ...(reviewed.extra ? { extra: reviewed.extra } : {}),
              },
              audiences: claims?.audiences ?? audiences.filter((a) => API_AUDIENCES.includes(a)),
            }
          : { authenticated: false, audiences: [], error: 'token not recognised' },
      );
      return true;
    }
    case 'selfsubjectrulesreviews': {
      const rules = ctx.authorizer.rulesFor(
        { name: user.name, groups: user.groups, extra: user.extra },
        String(spec.namespace ?? ''),
      );
      answer({
        resourceRules: rules.resourceRules,
        nonResourceRules: rules.nonResourceRules,
        incomplete: rules.incomplete,
      });
      return true;
    }
    default: {
      const subject =
        info.resource === 'selfsubjectaccessreviews'
          ? { name: user.name, groups: user.groups, extra: user.extra }
          : { name: String(spec.user ?? ''), groups: spec.groups ?? [], extra: spec.extra };
      const resource = spec.resourceAttributes;
      const nonResource = spec.nonResourceAttributes;
      if (!resource && !nonResource)
        throw badRequest(
          'spec: Invalid value: exactly one of nonResourceAttributes or resourceAttributes must be specified',
        );
      const attributes: Attributes = resource
        ? {
            user: subject,
            verb: resource.verb ?? '',
            isResourceRequest: true,
            namespace: info.resource === 'localsubjectaccessreviews' ? info.namespace : (resource.namespace ?? ''),
            apiGroup: resource.group ?? '',
            resource: resource.resource ?? '',
            subresource: resource.subresource ?? '',
            name: resource.name ?? '',
            path: '',
          }
        : nonResourceAttributes(subject, nonResource.verb ?? '', nonResource.path ?? '');
      const decision = ctx.authorize(attributes);
      // kube-apiserver gives no reason for a plain denial, so kubectl prints just "no".
      answer(decision.allowed ? { allowed: true, reason: decision.reason } : { allowed: false });
      return true;
    }
  }
}

/**
 * The pod a TokenRequest binds its token to (`kubectl create token --bound-object-kind Pod`, the
 * kubelet's request for a pod's token volume), checked as kube checks it: the pod exists in the
 * account's namespace, runs as that account, and has the uid given if one is. Other kinds
 * (Secret, Node) are not bound here.
 */
async function boundPod(
  api: ApiServer,
  namespace: string,
  account: string,
  ref: Record<string, any> | undefined,
): Promise<{ name: string; uid: string } | null> {
  if (!ref || ref.kind !== 'Pod') return null;
  const pod = await api.registryOf('', 'pods')!.get(namespace, String(ref.name ?? ''));
  if (pod.spec?.serviceAccountName !== account)
    throw badRequest(
      `cannot bind token for serviceaccount ${goQuote(account)} to pod running with different serviceaccount name.`,
    );
  if (ref.uid && ref.uid !== pod.metadata.uid)
    throw new ApiError(
      statusOf(
        409,
        'Conflict',
        `Operation cannot be fulfilled on Pod ${goQuote(pod.metadata.name)}: the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
        { name: pod.metadata.name, kind: 'Pod' },
      ),
    );
  return { name: pod.metadata.name, uid: pod.metadata.uid };
}

/** A list of strings in a review's spec, or undefined when it is absent or empty; anything else is kube's 400. */
function stringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
    throw badRequest(`${field}: Invalid value: must be a list of strings`);
  return value.length ? (value as string[]) : undefined;
}
