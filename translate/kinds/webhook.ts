/**
 * Admission webhook configurations. Upstream a webhook sees the whole cluster, so a tenant's is
 * narrowed to the tenant's namespaces: a `kubezoo.io/tenant In [<tid>]` requirement AND-ed into
 * its namespaceSelector and every rule scoped to namespaced resources (which a namespaceSelector
 * can filter; cluster-scoped ones it cannot).
 */
import type { TenantContext } from '../context.js';
import { EACH, type Invariant } from './invariants.js';
import { TENANT_LABEL } from './namespace.js';
import { all, at, each, isObject, type Json, type Transform } from './transform.js';
import { webhookClientConfig, webhookClientConfigInvariants } from './webhook-client-config.js';

function isTenantRequirement(ctx: TenantContext, requirement: unknown): boolean {
  return (
    isObject(requirement) &&
    requirement.key === TENANT_LABEL &&
    requirement.operator === 'In' &&
    Array.isArray(requirement.values) &&
    requirement.values.length === 1 &&
    requirement.values[0] === ctx.tenantId
  );
}

/** The namespaceSelector with the tenant's requirement AND-ed in (a new object). */
function withTenantRequirement(ctx: TenantContext, selector: unknown): Json {
  const narrowed: Json = isObject(selector) ? { ...selector } : {};
  const expressions = Array.isArray(narrowed.matchExpressions) ? narrowed.matchExpressions : [];
  narrowed.matchExpressions = [...expressions, { key: TENANT_LABEL, operator: 'In', values: [ctx.tenantId] }];
  return narrowed;
}

const onlyTenantNamespaces: Transform = {
  up: (ctx, webhook) => {
    webhook.namespaceSelector = withTenantRequirement(ctx, webhook.namespaceSelector);
  },
  down: (ctx, webhook) => {
    const selector = webhook.namespaceSelector;
    if (!isObject(selector) || !Array.isArray(selector.matchExpressions)) return true;
    // The last one is ours (appended up): a tenant's own identical requirement before it survives.
    const ours = selector.matchExpressions.findLastIndex((requirement: unknown) => isTenantRequirement(ctx, requirement));
    if (ours >= 0) {
      selector.matchExpressions.splice(ours, 1);
      if (selector.matchExpressions.length === 0) delete selector.matchExpressions;
    }
    return true;
  },
};

/** Down the scope stays `Namespaced`: that is what the webhook really matches. */
const namespacedRules: Transform = {
  up: (_ctx, webhook) => {
    if (Array.isArray(webhook.rules)) for (const rule of webhook.rules) if (isObject(rule)) rule.scope = 'Namespaced';
  },
  down: () => true,
};

/** MutatingWebhookConfiguration, ValidatingWebhookConfiguration. */
export const webhookConfigurationConvertor = each(['webhooks'], all(at(['clientConfig'], webhookClientConfig), onlyTenantNamespaces, namespacedRules));

/**
 * As stored: every webhook's namespaceSelector requires the tenant's label (requirements are
 * AND-ed, so one of them is enough) and every rule is `Namespaced`; both are normalized, since
 * the gateway always sets them so. Its client config must be the tenant's service.
 */
export const webhookConfigurationInvariants: readonly Invariant[] = [
  {
    path: ['webhooks', EACH, 'namespaceSelector'],
    must: `must require the label ${TENANT_LABEL} In [<tenant>]`,
    holds: (ctx, selector) => isObject(selector) && Array.isArray(selector.matchExpressions) && selector.matchExpressions.some((requirement: unknown) => isTenantRequirement(ctx, requirement)),
    normalize: withTenantRequirement,
  },
  {
    path: ['webhooks', EACH, 'rules', EACH, 'scope'],
    must: 'must be Namespaced: a namespaceSelector cannot confine cluster-scoped requests',
    holds: (_ctx, scope) => scope === 'Namespaced',
    normalize: () => 'Namespaced',
  },
  ...webhookClientConfigInvariants(['webhooks', EACH, 'clientConfig']),
];
