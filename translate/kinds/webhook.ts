/**
 * Admission webhook configurations. Upstream a webhook sees the whole cluster, so a tenant's is
 * narrowed to the tenant's namespaces: a `kubezoo.io/tenant In [<tid>]` requirement AND-ed into
 * its namespaceSelector and every rule scoped to namespaced resources (which a namespaceSelector
 * can filter; cluster-scoped ones it cannot).
 */
import { isObject } from '../../apiserver/json.js';
import { EACH, type Invariant } from './invariants.js';
import { isTenantRequirement, TENANT_LABEL, tenantOnlySelector, withTenantRequirement } from './tenant-label.js';
import { all, at, each, type Convertor } from './convertor.js';
import { webhookClientConfig, webhookClientConfigInvariants } from './webhook-client-config.js';

/** The selector is made when absent: without one a webhook sees every namespace. */
const onlyTenantNamespaces: Convertor = {
  up: (ctx, webhook) =>
    tenantOnlySelector.up(
      ctx,
      isObject(webhook.namespaceSelector) ? webhook.namespaceSelector : (webhook.namespaceSelector = {}),
    ),
  down: (ctx, webhook) =>
    !isObject(webhook.namespaceSelector) || tenantOnlySelector.down(ctx, webhook.namespaceSelector),
};

/** Down the scope stays `Namespaced`: that is what the webhook really matches. */
const namespacedRules: Convertor = {
  up: (_ctx, webhook) => {
    if (Array.isArray(webhook.rules)) for (const rule of webhook.rules) if (isObject(rule)) rule.scope = 'Namespaced';
  },
  down: () => true,
};

/** MutatingWebhookConfiguration, ValidatingWebhookConfiguration. */
export const webhookConfigurationConvertor = each(
  ['webhooks'],
  all(at(['clientConfig'], webhookClientConfig), onlyTenantNamespaces, namespacedRules),
);

/**
 * As stored: every webhook's namespaceSelector requires the tenant's label (requirements are
 * AND-ed, so one of them is enough) and every rule is `Namespaced`; both are normalized, since
 * the gateway always sets them so. Its client config must be the tenant's service.
 */
export const webhookConfigurationInvariants: readonly Invariant[] = [
  {
    path: ['webhooks', EACH, 'namespaceSelector'],
    must: `must require the label ${TENANT_LABEL} In [<tenant>]`,
    holds: (ctx, selector) =>
      isObject(selector) &&
      Array.isArray(selector.matchExpressions) &&
      selector.matchExpressions.some((requirement: unknown) => isTenantRequirement(ctx, requirement)),
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
