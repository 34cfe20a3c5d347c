/**
 * Namespaces carry the tenant label upstream, forced on every write, so webhooks, quotas and the
 * admin can select a tenant's namespaces; the tenant never sees it. The apiserver's own
 * `kubernetes.io/metadata.name` label repeats the (prefixed) name and is translated like it.
 */
import { addPrefix, stripPrefix } from '../context.js';
import { forcedTenantLabel } from './tenant-label.js';
import { isObject, type Transform } from './transform.js';

export { TENANT_LABEL } from './tenant-label.js';

const NAME_LABEL = 'kubernetes.io/metadata.name';

export const namespaceConvertor: Transform = {
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
