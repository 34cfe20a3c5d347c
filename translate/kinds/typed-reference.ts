/**
 * A typed reference by `apiGroup` (no version), `kind`, `name` and, for TypedObjectReference, an
 * optional `namespace` (PVC `dataSource`, `dataSourceRef`): the group is the tenant's view of it
 * (its CRD groups prefixed upstream), the namespace is prefixed, and the name is prefixed when the
 * referenced kind is cluster-scoped (by that kind's name rule).
 */
import { addPrefix, groupDown, groupUp, stripPrefix } from '../context.js';
import { referencedNameRule } from './names.js';
import type { Transform } from './transform.js';

export const typedReference: Transform = {
  up: (ctx, ref) => {
    const group = typeof ref.apiGroup === 'string' ? ref.apiGroup : '';
    const nameRule = typeof ref.kind === 'string' ? referencedNameRule(ctx, group, ref.kind) : undefined;
    if (nameRule && typeof ref.name === 'string' && ref.name !== '') ref.name = nameRule.up(ctx, ref.name);
    if (typeof ref.namespace === 'string' && ref.namespace !== '') ref.namespace = addPrefix(ctx, ref.namespace);
    if (typeof ref.apiGroup === 'string' && ref.apiGroup !== '') ref.apiGroup = groupUp(ctx, ref.apiGroup);
  },
  down: (ctx, ref) => {
    if (typeof ref.apiGroup === 'string' && ref.apiGroup !== '') {
      const group = groupDown(ctx, ref.apiGroup);
      if (group === null) return false;
      ref.apiGroup = group;
    }
    if (typeof ref.namespace === 'string' && ref.namespace !== '') {
      const namespace = stripPrefix(ctx, ref.namespace);
      if (namespace === null) return false;
      ref.namespace = namespace;
    }
    const group = typeof ref.apiGroup === 'string' ? ref.apiGroup : '';
    const nameRule = typeof ref.kind === 'string' ? referencedNameRule(ctx, group, ref.kind) : undefined;
    if (nameRule && typeof ref.name === 'string' && ref.name !== '') {
      const name = nameRule.down(ctx, ref.name);
      if (name === null) return false;
      ref.name = name;
    }
    return true;
  },
};
