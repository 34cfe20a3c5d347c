/** Upstream prose (Status and Event messages) in the tenant's words. */
import type { TenantContext } from '../context.js';
import type { Convertor } from './convertor.js';

/** Characters that continue a name: the prefix only counts where a name starts. */
const NAME_CHAR = 'A-Za-z0-9_-';

/**
 * Strips this tenant's prefix wherever it starts a name (`namespaces "<p>dev"`,
 * `system:serviceaccount:<p>dev:sa`, `crontabs.<p>stable.example.com`), but not inside one, so a
 * tenant's own `<p>x` (upstream `<p><p>x`) keeps its second prefix. A dormant role name
 * (`ClusterRole/<tid>:view` in a binding's Table row) loses its `<tid>:` the same way.
 */
export function textDown(ctx: TenantContext, text: string): string {
  return text.replace(new RegExp(`(?<![${NAME_CHAR}])${ctx.tenantId}[-:]`, 'g'), '');
}

/** A prose field: unchanged up (the tenant's own words), textDown down. */
export function textAt(key: string): Convertor {
  return {
    up: () => {},
    down: (ctx, node) => {
      if (typeof node[key] === 'string') node[key] = textDown(ctx, node[key]);
      return true;
    },
  };
}
