/**
 * A typed reference by `apiGroup` (no version), `kind`, `name` and, for TypedObjectReference, an
 * optional `namespace` (PVC `dataSource`, `dataSourceRef`): the group is the tenant's view of it
 * (its CRD groups prefixed upstream), the namespace is prefixed, and the name is prefixed when the
 * referenced kind is cluster-scoped (by that kind's name rule).
 */
import type { Json } from '../../apiserver/json.js';
import { addPrefix, groupDown, groupUp, stripPrefix, type TenantContext } from '../context.js';
import { referencedNameRule } from './names.js';
import type { StringRule, Convertor } from './convertor.js';

/** The rule for a reference's name, given its group (tenant's view); none when the name stays as it is. */
export type ReferenceNameRule = (ctx: TenantContext, ref: Json, group: string) => StringRule | undefined;

/** A typed reference whose name is converted by `nameRuleOf` (IngressClass parameters decide by their scope). */
export function typedReferenceWith(nameRuleOf: ReferenceNameRule): Convertor {
  return {
    up: (ctx, ref) => {
      const group = typeof ref.apiGroup === 'string' ? ref.apiGroup : '';
      const nameRule = nameRuleOf(ctx, ref, group);
      if (nameRule && typeof ref.name === 'string' && ref.name !== '') ref.name = nameRule.up(ctx, ref.name);
      if (typeof ref.namespace === 'string' && ref.namespace !== '') ref.namespace = addPrefix(ctx, ref.namespace);
      if (group !== '') ref.apiGroup = groupUp(ctx, group);
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
      const nameRule = nameRuleOf(ctx, ref, typeof ref.apiGroup === 'string' ? ref.apiGroup : '');
      if (nameRule && typeof ref.name === 'string' && ref.name !== '') {
        const name = nameRule.down(ctx, ref.name);
        if (name === null) return false;
        ref.name = name;
      }
      return true;
    },
  };
}

export const typedReference = typedReferenceWith((ctx, ref, group) =>
  typeof ref.kind === 'string' ? referencedNameRule(ctx, group, ref.kind) : undefined,
);
