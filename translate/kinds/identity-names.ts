/**
 * User and group names as upstream authenticates them: the tenant's users and groups carry the
 * prefix, service-account identities carry it on their namespace, and the other `system:` names
 * (system:authenticated, system:masters, …) are Kubernetes' own and stay.
 */
import { addPrefix, stripPrefix } from '../context.js';
import type { StringRule } from './transform.js';

const SERVICE_ACCOUNT_USER = 'system:serviceaccount:';
const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts:';

/** `system:serviceaccount:<ns>:<sa>` ↔ `system:serviceaccount:<p><ns>:<sa>`; other `system:` users stay. */
export const userName: StringRule = {
  up: (ctx, name) => {
    const account = serviceAccountUser(name);
    if (account) return `${SERVICE_ACCOUNT_USER}${addPrefix(ctx, account.namespace)}:${account.name}`;
    return name.startsWith('system:') ? name : addPrefix(ctx, name);
  },
  down: (ctx, name) => {
    const account = serviceAccountUser(name);
    if (account) {
      const namespace = stripPrefix(ctx, account.namespace);
      return namespace === null ? null : `${SERVICE_ACCOUNT_USER}${namespace}:${account.name}`;
    }
    return name.startsWith('system:') ? name : stripPrefix(ctx, name);
  },
};

/** `system:serviceaccounts:<ns>` ↔ `system:serviceaccounts:<p><ns>`; other `system:` groups stay. */
export const groupName: StringRule = {
  up: (ctx, name) => {
    if (name.startsWith(SERVICE_ACCOUNTS_GROUP) && name.length > SERVICE_ACCOUNTS_GROUP.length) return SERVICE_ACCOUNTS_GROUP + addPrefix(ctx, name.slice(SERVICE_ACCOUNTS_GROUP.length));
    return name.startsWith('system:') ? name : addPrefix(ctx, name);
  },
  down: (ctx, name) => {
    if (name.startsWith(SERVICE_ACCOUNTS_GROUP) && name.length > SERVICE_ACCOUNTS_GROUP.length) {
      const namespace = stripPrefix(ctx, name.slice(SERVICE_ACCOUNTS_GROUP.length));
      return namespace === null ? null : SERVICE_ACCOUNTS_GROUP + namespace;
    }
    return name.startsWith('system:') ? name : stripPrefix(ctx, name);
  },
};

/** The parts of `system:serviceaccount:<ns>:<sa>`; undefined for any other name. */
function serviceAccountUser(name: string): { namespace: string; name: string } | undefined {
  if (!name.startsWith(SERVICE_ACCOUNT_USER)) return undefined;
  const rest = name.slice(SERVICE_ACCOUNT_USER.length);
  const colon = rest.indexOf(':');
  return colon > 0 ? { namespace: rest.slice(0, colon), name: rest.slice(colon + 1) } : undefined;
}
