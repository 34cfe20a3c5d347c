/**
 * Who a tenant user is upstream (docs/design.md, "How the gateway talks upstream"): its
 * certificate's CN (`<tid>-<name>`, already prefixed), and each of its groups plus
 * `system:authenticated` under the tenant's prefix, since the tenant's bindings to
 * `system:authenticated` name `<tid>-system:authenticated` upstream
 * (translate/kinds/identity-names.ts). The tenant proxy impersonates this identity; a
 * SubjectAccessReview asks about it.
 */
import { addPrefix, tenantPrefix } from '../translate/context.js';

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
