import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../../apiserver/handlers/http-io.js';
import type { ResourceInfo } from '../../apiserver/resources/resource-info.js';
import { tenantUserName } from '../../tenants/upstream-identity.js';
import type { Identity } from './authenticate.js';

export const SELF_SUBJECT_REVIEW_PATH = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

export const SELF_SUBJECT_REVIEW_RESOURCE: ResourceInfo = {
  group: 'authentication.k8s.io',
  version: 'v1',
  resource: 'selfsubjectreviews',
  kind: 'SelfSubjectReview',
  listKind: 'SelfSubjectReviewList',
  singular: 'selfsubjectreview',
  namespaced: false,
  verbs: ['create'],
  shortNames: [],
  categories: [],
  subresources: [],
  builtin: true,
};

/** kube-apiserver adds it to every authenticated user's groups, and `auth whoami` shows it. */
const AUTHENTICATED_GROUP = 'system:authenticated';

/** The key that names a tenant beside its user: whoami's `extra`, and the audit log's annotation. */
export const TENANT_KEY = 'paddock.io/tenant';

/** A user's groups as kube reports them (`auth whoami`, the audit log): the certificate's, and `system:authenticated`. */
export function authenticatedGroups(identity: Identity): string[] {
  return identity.groups.includes(AUTHENTICATED_GROUP) ? identity.groups : [...identity.groups, AUTHENTICATED_GROUP];
}

/** A user's name as kube reports it to the user (`auth whoami`, a refusal): a tenant's in its own terms. */
export function shownUserName(identity: Identity): string {
  return identity.kind === 'tenant' ? tenantUserName(identity) : identity.user;
}

/**
 * `kubectl auth whoami`: who the gateway thinks the caller is. The request body carries nothing
 * (and comes as protobuf from kubectl), so it is not read; the answer is JSON.
 */
export function answerSelfSubjectReview(req: IncomingMessage, res: ServerResponse, identity: Identity): void {
  req.resume();
  const groups = authenticatedGroups(identity);
  const extra = identity.kind === 'tenant' ? { ...identity.extra, [TENANT_KEY]: [identity.tenant] } : undefined;
  const username = shownUserName(identity);
  sendJson(req, res, 201, {
    kind: 'SelfSubjectReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { creationTimestamp: null },
    status: { userInfo: { username, groups, ...(extra ? { extra } : {}) } },
  });
}
