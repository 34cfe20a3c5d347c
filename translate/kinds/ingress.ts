/**
 * Ingresses name their (cluster-scoped, prefixed) IngressClass. An IngressClass's `parameters`
 * name an object of the tenant's: with scope `Namespace` its namespace is prefixed; with scope
 * `Cluster` (the default) its name is, by the kind's name rule where the kind is known. The group
 * is the tenant's view of it, as everywhere.
 */
import type { Json } from '../../apiserver/json.js';
import type { TenantContext } from '../context.js';
import { ruled, owned, type Invariant } from './invariants.js';
import { referencedNameRule } from './names.js';
import { at, optional, prefixed, stringAt, type StringRule } from './convertor.js';
import { typedReferenceWith } from './typed-reference.js';

export const ingressConvertor = at(['spec'], stringAt('ingressClassName', prefixed));

/** The rule for the parameters' name: none when they live in a namespace (the namespace says whose). */
function parametersNameRule(ctx: TenantContext, parameters: Json, group: string): StringRule | undefined {
  if (parameters.scope === 'Namespace') return undefined;
  const kind = typeof parameters.kind === 'string' ? parameters.kind : undefined;
  return (kind === undefined ? undefined : referencedNameRule(ctx, group, kind)) ?? prefixed;
}

const ingressClassParameters = typedReferenceWith(parametersNameRule);

/** networking.k8s.io IngressClass. */
export const ingressClassConvertor = at(['spec'], optional('parameters', ingressClassParameters));

export const ingressInvariants: readonly Invariant[] = [
  ruled(['spec', 'ingressClassName'], prefixed, "must name one of the tenant's IngressClasses"),
];

export const ingressClassInvariants: readonly Invariant[] = [
  owned(['spec', 'parameters'], ingressClassParameters, "must name one of the tenant's objects"),
];
