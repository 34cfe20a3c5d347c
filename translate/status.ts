import { groupDown, stripPrefix, type TenantContext } from './context.js';
import { textDown } from './objects.js';

/**
 * An upstream Status down: its message, the name and group in its details and every cause lose
 * the tenant's prefix, so kubectl prints the tenant's own names (`pods "web" not found`).
 */
export function statusDown(ctx: TenantContext, status: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = { ...status };
  if (typeof out.message === 'string')
    out.message = textDown(ctx, out.reason === 'Forbidden' ? withoutRbacReason(out.message) : out.message);
  if (out.details && typeof out.details === 'object') {
    const details = { ...out.details };
    if (typeof details.group === 'string') details.group = groupDown(ctx, details.group) ?? '';
    // Only cluster-scoped names carry the prefix upstream: a namespaced object the tenant named
    // `<tid>-x` is `<tid>-x` upstream too, and must keep that name.
    const namespaced = ctx.kinds.resourceIsNamespaced(details.group ?? '', String(details.kind ?? ''));
    if (typeof details.name === 'string' && namespaced !== true)
      details.name = stripPrefix(ctx, details.name) ?? textDown(ctx, details.name);
    if (Array.isArray(details.causes)) {
      details.causes = details.causes.map((cause: Record<string, any>) => ({
        ...cause,
        ...(typeof cause.message === 'string' ? { message: textDown(ctx, cause.message) } : {}),
        ...(typeof cause.field === 'string' ? { field: textDown(ctx, cause.field) } : {}),
      }));
    }
    out.details = details;
  }
  return out;
}

/**
 * kube's RBAC appends to a denial the bindings it could not resolve (`: RBAC: [clusterrole "x"
 * not found, …]`), which upstream name roles that are not the tenant's; the tenant is told
 * what it cannot do, not why upstream.
 */
function withoutRbacReason(message: string): string {
  const at = message.indexOf(': RBAC: ');
  return at < 0 ? message : message.slice(0, at);
}
