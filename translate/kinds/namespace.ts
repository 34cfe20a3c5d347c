/**
 * Namespaces carry the tenant label upstream, forced on every write, so webhooks, quotas and the
 * admin can select a tenant's namespaces; the tenant never sees it. The apiserver's own
 * `kubernetes.io/metadata.name` label repeats the (prefixed) name and is translated like it.
 */
import { addPrefix, stripPrefix, TranslationError } from '../context.js';
import type { Invariant } from './invariants.js';
import { isObject, type Transform } from './transform.js';

export const TENANT_LABEL = 'kubezoo.io/tenant';
const NAME_LABEL = 'kubernetes.io/metadata.name';

export const namespaceConvertor: Transform = {
  up: (ctx, namespace) => {
    const meta = isObject(namespace.metadata) ? namespace.metadata : (namespace.metadata = {});
    const labels = isObject(meta.labels) ? meta.labels : (meta.labels = {});
    if (Object.hasOwn(labels, TENANT_LABEL) && labels[TENANT_LABEL] !== ctx.tenantId) {
      throw new TranslationError(403, 'Forbidden', `the label ${TENANT_LABEL} is set by the gateway and must be "${ctx.tenantId}" or absent`);
    }
    labels[TENANT_LABEL] = ctx.tenantId;
    if (typeof labels[NAME_LABEL] === 'string') labels[NAME_LABEL] = addPrefix(ctx, labels[NAME_LABEL]);
  },
  down: (ctx, namespace) => {
    const labels = namespace.metadata?.labels;
    if (!isObject(labels)) return true;
    if (Object.hasOwn(labels, TENANT_LABEL)) {
      delete labels[TENANT_LABEL];
      if (Object.keys(labels).length === 0) delete namespace.metadata.labels;
    }
    if (typeof labels[NAME_LABEL] === 'string') {
      const name = stripPrefix(ctx, labels[NAME_LABEL]);
      if (name === null) delete labels[NAME_LABEL];
      else labels[NAME_LABEL] = name;
    }
    return true;
  },
};

/** Its name carries the prefix (metadata); the label is what selects it as the tenant's, upstream. */
export const namespaceInvariants: readonly Invariant[] = [
  {
    path: ['metadata', 'labels', TENANT_LABEL],
    must: 'must be the tenant\'s id',
    holds: (ctx, value) => value === ctx.tenantId,
    normalize: (ctx) => ctx.tenantId,
  },
];
