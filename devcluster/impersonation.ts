import type { IncomingMessage } from 'node:http';
import type { Attributes } from '../apiserver/authorization/attributes.js';
import { forbiddenMessage, type Decision } from '../apiserver/authorization/rbac-authorizer.js';
import { ApiError, badRequest, statusOf } from '../apiserver/status.js';
import type { AuthenticatedUser } from './authentication.js';

type Authorize = (attributes: Attributes) => Decision;

/**
 * kube-apiserver's impersonation filter: `Impersonate-User`, one `Impersonate-Group` line per
 * group and `Impersonate-Extra-<key>` headers make the request run as that user, if the caller
 * may `impersonate` each of them (users, groups, serviceaccounts, userextras). Returns the
 * caller itself when nothing is impersonated.
 */
export function impersonate(req: IncomingMessage, user: AuthenticatedUser, authorize: Authorize): AuthenticatedUser {
  const headers = req.headersDistinct;
  const target = headers['impersonate-user']?.[0];
  const groups = (headers['impersonate-group'] ?? [])
    .flatMap((g) => g.split(','))
    .map((g) => g.trim())
    .filter(Boolean);
  const extra: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(headers)) {
    if (name.startsWith('impersonate-extra-') && values)
      extra[decodeURIComponent(name.slice('impersonate-extra-'.length))] = values;
  }
  if (!target) {
    if (groups.length || Object.keys(extra).length)
      throw badRequest('requested impersonation of groups or extras without impersonating a user');
    return user;
  }
  const check = (
    attributes: Omit<Attributes, 'user' | 'verb' | 'isResourceRequest' | 'path' | 'subresource'> & {
      subresource?: string;
    },
  ) => {
    const full: Attributes = {
      user,
      verb: 'impersonate',
      isResourceRequest: true,
      path: '',
      subresource: '',
      ...attributes,
    };
    const decision = authorize(full);
    if (!decision.allowed)
      throw new ApiError(
        statusOf(403, 'Forbidden', decision.message ?? forbiddenMessage(full), {
          name: attributes.name,
          group: attributes.apiGroup,
          kind: attributes.resource,
        }),
      );
  };
  const serviceAccount = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(target);
  if (serviceAccount)
    check({ namespace: serviceAccount[1], apiGroup: '', resource: 'serviceaccounts', name: serviceAccount[2] });
  else check({ namespace: '', apiGroup: '', resource: 'users', name: target });
  for (const group of groups) check({ namespace: '', apiGroup: '', resource: 'groups', name: group });
  for (const [key, values] of Object.entries(extra)) {
    for (const value of values)
      check({
        namespace: '',
        apiGroup: 'authentication.k8s.io',
        resource: 'userextras',
        subresource: key,
        name: value,
      });
  }
  const impersonatedGroups = serviceAccount
    ? ['system:serviceaccounts', `system:serviceaccounts:${serviceAccount[1]}`, ...groups]
    : groups;
  return {
    name: target,
    groups: [...new Set([...impersonatedGroups, ...(target === 'system:anonymous' ? [] : ['system:authenticated'])])],
    ...(Object.keys(extra).length ? { extra } : {}),
  };
}
