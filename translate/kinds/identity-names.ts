/**
 * User and group names as upstream authenticates them: the tenant's users and groups carry the
 * prefix and service-account identities carry it on their namespace. Kubernetes' own `system:`
 * identities are every tenant's at once upstream, so a tenant's `system:authenticated` and
 * `system:serviceaccounts` become groups of its own (`<p>system:authenticated`, which the gateway
 * gives every tenant user), and the other `system:` names (system:masters, system:nodes,
 * system:unauthenticated, system:kube-scheduler, …) are the cluster's, not a tenant's to name.
 */
import { addPrefix, stripPrefix, TranslationError } from '../context.js';
import type { StringRule } from './convertor.js';

/** Kubernetes' prefixes of a ServiceAccount's user name and of its namespace's group. */
export const SERVICE_ACCOUNT_USER = 'system:serviceaccount:';
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts:';

/** Kubernetes' groups every identity of a kind carries, mapped to the tenant's own copy. */
export const TENANT_SCOPED_GROUPS: ReadonlySet<string> = new Set(['system:authenticated', 'system:serviceaccounts']);

function clusterIdentity(what: 'user' | 'group', name: string): TranslationError {
  return new TranslationError(
    403,
    'Forbidden',
    `the ${what} "${name}" is one of the cluster's own identities, which tenants cannot name (only system:authenticated, system:serviceaccounts, system:serviceaccounts:<namespace> and system:serviceaccount:<namespace>:<name> stand for the tenant's own)`,
  );
}

/** `system:serviceaccount:<ns>:<sa>` ↔ `system:serviceaccount:<p><ns>:<sa>`; other `system:` users are refused up, dropped down. */
export const userName: StringRule = {
  up: (ctx, name) => {
    const account = serviceAccountUser(name);
    if (account) return `${SERVICE_ACCOUNT_USER}${addPrefix(ctx, account.namespace)}:${account.name}`;
    if (name.startsWith('system:')) throw clusterIdentity('user', name);
    return addPrefix(ctx, name);
  },
  down: (ctx, name) => {
    const account = serviceAccountUser(name);
    if (account) {
      const namespace = stripPrefix(ctx, account.namespace);
      return namespace === null ? null : `${SERVICE_ACCOUNT_USER}${namespace}:${account.name}`;
    }
    const user = stripPrefix(ctx, name);
    return user === null || user.startsWith('system:') ? null : user;
  },
};

/**
 * `system:serviceaccounts:<ns>` ↔ `system:serviceaccounts:<p><ns>`; `system:authenticated` and
 * `system:serviceaccounts` ↔ `<p>system:authenticated`, `<p>system:serviceaccounts`; other
 * `system:` groups are refused up and dropped down.
 */
export const groupName: StringRule = {
  up: (ctx, name) => {
    if (isServiceAccountsOfNamespace(name))
      return SERVICE_ACCOUNTS_GROUP + addPrefix(ctx, name.slice(SERVICE_ACCOUNTS_GROUP.length));
    if (name.startsWith('system:') && !TENANT_SCOPED_GROUPS.has(name)) throw clusterIdentity('group', name);
    return addPrefix(ctx, name);
  },
  down: (ctx, name) => {
    if (isServiceAccountsOfNamespace(name)) {
      const namespace = stripPrefix(ctx, name.slice(SERVICE_ACCOUNTS_GROUP.length));
      return namespace === null ? null : SERVICE_ACCOUNTS_GROUP + namespace;
    }
    const group = stripPrefix(ctx, name);
    return group === null || (group.startsWith('system:') && !TENANT_SCOPED_GROUPS.has(group)) ? null : group;
  },
};

/**
 * The groups of an identity upstream authenticated (TokenReview, SelfSubjectReview): as
 * groupName, except that Kubernetes' own `system:authenticated` and `system:serviceaccounts`,
 * which upstream gives every such identity, are true of it in the tenant's view too.
 */
export const identityGroupName: StringRule = {
  up: groupName.up,
  down: (ctx, name) => (TENANT_SCOPED_GROUPS.has(name) ? name : groupName.down(ctx, name)),
};

/** `system:serviceaccounts:<ns>`: the group of one namespace's ServiceAccounts. */
export function isServiceAccountsOfNamespace(name: string): boolean {
  return name.startsWith(SERVICE_ACCOUNTS_GROUP) && name.length > SERVICE_ACCOUNTS_GROUP.length;
}

/** The parts of `system:serviceaccount:<ns>:<sa>`; undefined for any other name. */
export function serviceAccountUser(name: string): { namespace: string; name: string } | undefined {
  if (!name.startsWith(SERVICE_ACCOUNT_USER)) return undefined;
  // kube's SplitUsername: exactly a namespace and a name after the prefix.
  const parts = name.slice(SERVICE_ACCOUNT_USER.length).split(':');
  return parts.length === 2 && parts[0] !== '' && parts[1] !== '' ? { namespace: parts[0], name: parts[1] } : undefined;
}
