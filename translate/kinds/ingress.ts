/**
 * Ingresses name their (cluster-scoped, prefixed) IngressClass. An IngressClass's `parameters`
 * name an object of the tenant's: with scope `Namespace` its namespace is prefixed; with scope
 * `Cluster` (the default) its name is, by the kind's name rule where the kind is known. The group
 * is the tenant's view of it, as everywhere.
 */
import { addPrefix, groupDown, groupUp, stripPrefix, type TenantContext } from '../context.js';
import { ruled, owned, type Invariant } from './invariants.js';
import { referencedNameRule } from './names.js';
import { at, optional, prefixed, stringAt, type Json, type StringRule, type Transform } from './transform.js';

export const ingressConvertor = at(['spec'], stringAt('ingressClassName', prefixed));

/** The rule for the parameters' name: none when they live in a namespace (the namespace says whose). */
function parametersNameRule(ctx: TenantContext, parameters: Json, group: string): StringRule | undefined {
  if (parameters.scope === 'Namespace') return undefined;
  const kind = typeof parameters.kind === 'string' ? parameters.kind : undefined;
  return (kind === undefined ? undefined : referencedNameRule(ctx, group, kind)) ?? prefixed;
}

const ingressClassParameters: Transform = {
  up: (ctx, parameters) => {
    const group = typeof parameters.apiGroup === 'string' ? parameters.apiGroup : '';
    const nameRule = parametersNameRule(ctx, parameters, group);
    if (nameRule && typeof parameters.name === 'string' && parameters.name !== '') parameters.name = nameRule.up(ctx, parameters.name);
    if (typeof parameters.namespace === 'string' && parameters.namespace !== '') parameters.namespace = addPrefix(ctx, parameters.namespace);
    if (group !== '') parameters.apiGroup = groupUp(ctx, group);
  },
  down: (ctx, parameters) => {
    if (typeof parameters.apiGroup === 'string' && parameters.apiGroup !== '') {
      const group = groupDown(ctx, parameters.apiGroup);
      if (group === null) return false;
      parameters.apiGroup = group;
    }
    if (typeof parameters.namespace === 'string' && parameters.namespace !== '') {
      const namespace = stripPrefix(ctx, parameters.namespace);
      if (namespace === null) return false;
      parameters.namespace = namespace;
    }
    const nameRule = parametersNameRule(ctx, parameters, typeof parameters.apiGroup === 'string' ? parameters.apiGroup : '');
    if (nameRule && typeof parameters.name === 'string' && parameters.name !== '') {
      const name = nameRule.down(ctx, parameters.name);
      if (name === null) return false;
      parameters.name = name;
    }
    return true;
  },
};

/** networking.k8s.io IngressClass. */
export const ingressClassConvertor = at(['spec'], optional('parameters', ingressClassParameters));

export const ingressInvariants: readonly Invariant[] = [ruled(['spec', 'ingressClassName'], prefixed, "must name one of the tenant's IngressClasses")];

export const ingressClassInvariants: readonly Invariant[] = [owned(['spec', 'parameters'], ingressClassParameters, "must name one of the tenant's objects")];
