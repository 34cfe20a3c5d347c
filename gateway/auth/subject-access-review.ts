/**
 * One `authorization.k8s.io/v1` SubjectAccessReview, created with the gateway's credentials:
 * whether the cluster's authorizers let a user do one thing. Every name is the upstream one.
 */
import { expectStatus } from '../../apiserver/client/rest-client.js';
import type { UpstreamApi } from '../../tenants/tenant-grants.js';
import type { UpstreamUser } from '../../tenants/upstream-identity.js';

export const SUBJECT_ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

/** A SubjectAccessReview's `spec.resourceAttributes`; `namespace` `""` is every namespace, or the cluster scope. */
export interface ResourceAttributes {
  verb: string;
  group: string;
  resource: string;
  namespace: string;
  name: string;
}

/** The review's `status.allowed`; a review the cluster does not answer with 201 is an error, not a denial. */
export async function reviewAccess(api: UpstreamApi, subject: UpstreamUser, a: ResourceAttributes): Promise<boolean> {
  const res = await api.request('POST', SUBJECT_ACCESS_REVIEWS, {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      user: subject.user,
      groups: subject.groups,
      resourceAttributes: {
        verb: a.verb,
        group: a.group,
        resource: a.resource,
        ...(a.namespace ? { namespace: a.namespace } : {}),
        ...(a.name ? { name: a.name } : {}),
      },
    },
  });
  return expectStatus(res, 'creating a SubjectAccessReview', 201).body?.status?.allowed === true;
}
