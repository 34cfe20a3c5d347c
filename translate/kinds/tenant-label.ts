/**
 * The tenant label `kubezoo.io/tenant=<tid>` upstream: forced onto the objects other selectors
 * must be able to tell apart by tenant (Namespaces, ClusterRoles) and hidden from the tenant; and
 * the requirement `kubezoo.io/tenant In [<tid>]` AND-ed into a tenant's label selectors that
 * upstream would otherwise match every tenant's objects (webhook namespaceSelectors, ClusterRole
 * aggregation selectors), removed again down so the tenant sees the selector it wrote.
 */
import { isObject, type Json } from '../../apiserver/json.js';
import { TranslationError, type TenantContext } from '../context.js';
import { type Convertor } from './convertor.js';

export const TENANT_LABEL = 'kubezoo.io/tenant';

/** Up: the label `key` set to the tenant id (another value is 403); down: the label removed. */
export function forcedLabel(key: string): Convertor {
  return {
    up: (ctx, object) => {
      const meta = isObject(object.metadata) ? object.metadata : (object.metadata = {});
      const labels = isObject(meta.labels) ? meta.labels : (meta.labels = {});
      if (Object.hasOwn(labels, key) && labels[key] !== ctx.tenantId) {
        throw new TranslationError(
          403,
          'Forbidden',
          `the label ${key} is set by the gateway and must be "${ctx.tenantId}" or absent`,
        );
      }
      labels[key] = ctx.tenantId;
    },
    down: (_ctx, object) => {
      const labels = object.metadata?.labels;
      if (isObject(labels) && Object.hasOwn(labels, key)) {
        delete labels[key];
        if (Object.keys(labels).length === 0) delete object.metadata.labels;
      }
      return true;
    },
  };
}

/** The tenant label, forced. */
export const forcedTenantLabel: Convertor = forcedLabel(TENANT_LABEL);

export function isTenantRequirement(ctx: TenantContext, requirement: unknown): boolean {
  return (
    isObject(requirement) &&
    requirement.key === TENANT_LABEL &&
    requirement.operator === 'In' &&
    Array.isArray(requirement.values) &&
    requirement.values.length === 1 &&
    requirement.values[0] === ctx.tenantId
  );
}

/** A LabelSelector narrowed to objects labelled for this tenant. */
export const tenantOnlySelector: Convertor = {
  up: (ctx, selector) => {
    const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
    selector.matchExpressions = [...expressions, { key: TENANT_LABEL, operator: 'In', values: [ctx.tenantId] }];
  },
  down: (ctx, selector: Json) => {
    if (!Array.isArray(selector.matchExpressions)) return true;
    // The last one is ours (appended up): a tenant's own identical requirement before it survives.
    const ours = selector.matchExpressions.findLastIndex((requirement: unknown) =>
      isTenantRequirement(ctx, requirement),
    );
    if (ours >= 0) {
      selector.matchExpressions.splice(ours, 1);
      if (selector.matchExpressions.length === 0) delete selector.matchExpressions;
    }
    return true;
  },
};

/** The selector with the tenant's requirement AND-ed in, as a new object (an invariant's normalization). */
export function withTenantRequirement(ctx: TenantContext, selector: unknown): Json {
  const narrowed: Json = isObject(selector) ? { ...selector } : {};
  tenantOnlySelector.up(ctx, narrowed);
  return narrowed;
}
