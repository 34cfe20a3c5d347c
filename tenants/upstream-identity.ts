/**
 * Who a tenant user is upstream (docs/design.md, "How the gateway talks upstream"): its
 * certificate's CN (`<tid>-<name>`, already prefixed), and each of its groups plus
 * `system:authenticated` under the tenant's prefix, since the tenant's bindings to
 * `system:authenticated` name `<tid>-system:authenticated` upstream
 * (translate/kinds/identity-names.ts). The tenant proxy impersonates this identity; a
 * SubjectAccessReview asks about it; a failover replays the tenant's namespaced objects as its
 * administrator's (eviction/replay-writes.ts).
 */
import { addPrefix, tenantPrefix } from '../translate/context.js';
import { tenantAdminUser } from './upstream-space.js';

export interface TenantUserIdentity {
  tenant: string;
  /** The certificate's CN, `<tid>-<name>`. */
  user: string;
  /** The certificate's groups, in the tenant's terms. */
  groups: readonly string[];
}

export interface UpstreamUser {
  user: string;
  groups: string[];
}

export function upstreamUser(identity: TenantUserIdentity): UpstreamUser {
  const tenant = tenantPrefix(identity.tenant);
  const groups = [...identity.groups, 'system:authenticated'].map((group) => addPrefix(tenant, group));
  return { user: identity.user, groups: [...new Set(groups)] };
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
