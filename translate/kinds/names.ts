/**
 * How the name of a cluster-scoped object maps, by kind: usually `<p>name`; Namespaces are DNS
 * labels (63 upstream); CRDs carry the prefix on their group part. Used for an object's own name
 * and for every reference to one (ownerReferences, ObjectReferences).
 */
import { isSharedKind, type TenantContext } from '../context.js';
import { crdName } from './crd.js';
import { prefixed, type NameRule } from './convertor.js';

const clusterScopedName: NameRule = { ...prefixed, upstreamLimit: 253 };

const SPECIAL_NAMES: ReadonlyMap<string, NameRule> = new Map([
  ['/Namespace', { ...prefixed, upstreamLimit: 63 }],
  ['apiextensions.k8s.io/CustomResourceDefinition', crdName],
]);

/** The rule for the name of a cluster-scoped, non-shared kind (group in the tenant's view). */
export function nameRuleFor(group: string, kind: string): NameRule {
  return SPECIAL_NAMES.get(`${group}/${kind}`) ?? clusterScopedName;
}

/**
 * The rule for a reference to an object of this kind, or undefined when its name stays: namespaced
 * kinds, shared kinds, and kinds the discovery cache does not know.
 */
export function referencedNameRule(ctx: TenantContext, group: string, kind: string): NameRule | undefined {
  return ctx.kinds.kindIsNamespaced(group, kind) === false && !isSharedKind(group, kind)
    ? nameRuleFor(group, kind)
    : undefined;
}
