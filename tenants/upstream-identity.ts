/**
 * Who a tenant user is upstream (docs/design.md, "How the gateway talks upstream"): its
 * certificate's CN (`<tid>-<name>`, already prefixed) or its ServiceAccount's name (the
 * namespace prefixed: `system:serviceaccount:<tid>-<ns>:<name>`), and each of its groups plus
 * `system:authenticated` under the tenant's prefix, since the tenant's bindings to
 * `system:authenticated` name `<tid>-system:authenticated` upstream
 * (translate/kinds/identity-names.ts). The tenant proxy impersonates this identity; a
 * SubjectAccessReview asks about it; a failover replays the tenant's namespaced objects as its
 * administrator's (eviction/replay-writes.ts).
 */
import { addPrefix, stripPrefix, tenantPrefix } from '../translate/context.js';
import {
  isServiceAccountsOfNamespace,
  SERVICE_ACCOUNT_USER,
  SERVICE_ACCOUNTS_GROUP,
  serviceAccountUser,
} from '../translate/kinds/identity-names.js';
import { tenantAdminUser } from './upstream-space.js';

export interface TenantUserIdentity {
  tenant: string;
  /** The name upstream: the certificate's CN, `<tid>-<name>`, or the ServiceAccount's. */
  user: string;
  /** The groups, in the tenant's terms. */
  groups: readonly string[];
}

export interface UpstreamUser {
  user: string;
  groups: string[];
}

export function upstreamUser(identity: TenantUserIdentity): UpstreamUser {
  const tenant = tenantPrefix(identity.tenant);
  const groups = [...identity.groups, 'system:authenticated'].map((group) =>
    // A ServiceAccount's namespace group names the namespace, which carries the prefix upstream.
    isServiceAccountsOfNamespace(group)
      ? SERVICE_ACCOUNTS_GROUP + addPrefix(tenant, group.slice(SERVICE_ACCOUNTS_GROUP.length))
      : addPrefix(tenant, group),
  );
  return { user: identity.user, groups: [...new Set(groups)] };
}

/**
 * A tenant user's name in the tenant's terms: a ServiceAccount's `system:serviceaccount:<ns>:<name>`
 * with its namespace as the tenant names it; a certificate's CN as it is.
 */
export function tenantUserName(identity: { tenant: string; user: string }): string {
  const account = serviceAccountUser(identity.user);
  const own = account && stripPrefix(tenantPrefix(identity.tenant), account.namespace);
  return account && own ? `${SERVICE_ACCOUNT_USER}${own}:${account.name}` : identity.user;
}

/**
 * The tenant's own administrator as the tenant proxy sends its requests: User `<tid>-admin`, whose
 * certificate (the kubeconfig the tenant controller issues) names no group.
 */
export function tenantAdminIdentity(tenantId: string): UpstreamUser {
  return upstreamUser({ tenant: tenantId, user: tenantAdminUser(tenantId), groups: [] });
}

/** An upstream user as impersonation headers: each group its own `Impersonate-Group` line. */
export function impersonationHeaders(user: UpstreamUser): {
  'impersonate-user': string;
  'impersonate-group': string[];
} {
  return { 'impersonate-user': user.user, 'impersonate-group': user.groups };
}
