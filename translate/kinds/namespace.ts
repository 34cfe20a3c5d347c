/**
 * Namespaces carry the tenant label upstream, forced on every write, so webhooks, quotas and the
 * admin can select a tenant's namespaces; the tenant never sees it. The apiserver's own
 * `kubernetes.io/metadata.name` label repeats the (prefixed) name and is translated like it.
 */
import { isObject } from '../../apiserver/json.js';
import { addPrefix, stripPrefix } from '../context.js';
import type { Invariant } from './invariants.js';
import { forcedTenantLabel, TENANT_LABEL } from './tenant-label.js';
import { type Convertor } from './convertor.js';

const NAME_LABEL = 'kubernetes.io/metadata.name';

export const namespaceConvertor: Convertor = {
  up: (ctx, namespace) => {
    forcedTenantLabel.up(ctx, namespace);
    const labels = namespace.metadata.labels;
    if (typeof labels[NAME_LABEL] === 'string') labels[NAME_LABEL] = addPrefix(ctx, labels[NAME_LABEL]);
  },
  down: (ctx, namespace) => {
    forcedTenantLabel.down(ctx, namespace);
    const labels = namespace.metadata?.labels;
    if (isObject(labels) && typeof labels[NAME_LABEL] === 'string') {
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
    must: "must be the tenant's id",
    holds: (ctx, value) => value === ctx.tenantId,
    normalize: (ctx) => ctx.tenantId,
  },
];
