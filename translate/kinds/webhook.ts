/**
 * Admission webhook configurations. Upstream a webhook sees the whole cluster, so a tenant's is
 * narrowed to the tenant's namespaces: a `kubezoo.io/tenant In [<tid>]` requirement AND-ed into
 * its namespaceSelector and every rule scoped to namespaced resources (which a namespaceSelector
 * can filter; cluster-scoped ones it cannot).
 */
import type { TenantContext } from '../context.js';
import { TENANT_LABEL } from './namespace.js';
import { all, at, each, isObject, type Json, type Transform } from './transform.js';
import { webhookClientConfig } from './webhook-client-config.js';

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

const onlyTenantNamespaces: Transform = {
  up: (ctx, webhook) => {
    const selector: Json = isObject(webhook.namespaceSelector) ? webhook.namespaceSelector : (webhook.namespaceSelector = {});
    const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
    selector.matchExpressions = [...expressions, { key: TENANT_LABEL, operator: 'In', values: [ctx.tenantId] }];
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
