/**
 * A WebhookClientConfig (admission webhooks, CRD conversion webhooks): the service it calls lives
 * in one of the tenant's namespaces; a URL could reach anything the apiserver can, so tenants may
 * not use one.
 */
import { TranslationError } from '../context.js';
import { absent, ruled, type Invariant } from './invariants.js';
import { all, optional, prefixed, requiredStringAt, type Convertor } from './convertor.js';

const noUrl: Convertor = {
  up: (_ctx, config) => {
    if (typeof config.url === 'string')
      throw new TranslationError(403, 'Forbidden', 'webhooks by URL are not allowed for tenants');
  },
  down: () => true,
};

export const webhookClientConfig: Convertor = all(noUrl, optional('service', requiredStringAt('namespace', prefixed)));

/** A WebhookClientConfig at `path`, as stored. */
export const webhookClientConfigInvariants = (path: readonly string[]): Invariant[] => [
  absent([...path, 'url'], 'must be empty: webhooks by URL are not allowed for tenants'),
  ruled([...path, 'service', 'namespace'], prefixed, "must name one of the tenant's namespaces"),
];
