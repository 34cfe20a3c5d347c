/**
 * Admission webhook configurations. Upstream a webhook sees the whole cluster, so a tenant's is
 * narrowed to the tenant's namespaces: a `kubezoo.io/tenant In [<tid>]` requirement AND-ed into
 * its namespaceSelector and every rule scoped to namespaced resources (which a namespaceSelector
 * can filter; cluster-scoped ones it cannot).
 */
import { tenantOnlySelector } from './tenant-label.js';
import { all, at, each, isObject, type Transform } from './transform.js';
import { webhookClientConfig } from './webhook-client-config.js';

/** The selector is made when absent: without one a webhook sees every namespace. */
const onlyTenantNamespaces: Transform = {
  up: (ctx, webhook) => tenantOnlySelector.up(ctx, isObject(webhook.namespaceSelector) ? webhook.namespaceSelector : (webhook.namespaceSelector = {})),
  down: (ctx, webhook) => !isObject(webhook.namespaceSelector) || tenantOnlySelector.down(ctx, webhook.namespaceSelector),
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
