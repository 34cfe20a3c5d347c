/**
 * The last check before the gateway sends a request with its own credentials (gateway/server/pipeline.ts):
 * what it names upstream is the tenant's. Deliberately not the conversion's code, so a gap there
 * is caught here.
 */
import { isSharedResource, TranslationError, type TenantContext } from './context.js';
import type { TranslatedRequest } from './request.js';

/**
 * What the gateway sends with its own credentials names only the tenant's: a namespace under
 * its prefix, a cluster-scoped name under its prefix (shared kinds are read-only by name). A
 * second check, independent of the conversion that put the prefix there.
 */
export function assertUnderPrefix(ctx: TenantContext, t: TranslatedRequest): void {
  // `/api/v1/…` or `/apis/<group>/<version>/…`, then `[namespaces/<ns>/]<resource>[/<name>…]`.
  const segments = t.path.split('/').map(decodeURIComponent);
  let at = segments[1] === 'api' ? 3 : 4;
  const namespace = t.namespaced && t.info.namespace ? segments[at + 1] : undefined;
  if (namespace !== undefined) at += 2;
  const name = t.info.name ? segments[at + 1] : undefined;
  const own = (value: string | undefined) =>
    value !== undefined && (value.startsWith(ctx.prefix) || value.includes(`.${ctx.prefix}`));
  const bad = t.namespaced
    ? Boolean(t.info.namespace) && !own(namespace)
    : name !== undefined && !isSharedResource(t.info.group, t.info.resource) && !own(name);
  if (bad)
    throw new TranslationError(
      403,
      'Forbidden',
      `${t.info.resource} "${t.info.name}" is forbidden: it is not under the tenant's prefix upstream`,
      { name: t.info.name, group: t.info.group, kind: t.info.resource },
    );
}
