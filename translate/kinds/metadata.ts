/**
 * ObjectMeta, the same for every kind: the namespace of namespaced objects and the name (and
 * generateName) of cluster-scoped ones carry the prefix, shared kinds keep their names, owner
 * references and managedFields follow the referenced kinds and groups. Down, an object without
 * the prefix where it must carry it is foreign.
 */
import { isObject, type Json } from '../../apiserver/json.js';
import { addPrefix, isSharedKind, stripPrefix, type TenantContext } from '../context.js';
import { EACH, owned, ruled, type Invariant } from './invariants.js';
import { checkLength } from './name-limit.js';
import { nameRuleFor } from './names.js';
import { apiVersionRule, objectReference } from './object-reference.js';
import { all, each, prefixed, requiredStringAt } from './convertor.js';

/** An object's kind, its group in the tenant's view. */
export interface ObjectType {
  group: string;
  kind: string;
}

const references = all(
  each(['ownerReferences'], objectReference()),
  each(['managedFields'], requiredStringAt('apiVersion', apiVersionRule)),
);

/**
 * Kinds the discovery cache does not know (subresource bodies such as Scale or Eviction) are judged
 * by their namespace: every namespaced object has one upstream, and taking a namespace-less one
 * for cluster-scoped prefixes its name rather than leaving it unprotected.
 */
function isNamespaced(ctx: TenantContext, type: ObjectType, meta: Json): boolean {
  return ctx.kinds.kindIsNamespaced(type.group, type.kind) ?? typeof meta.namespace === 'string';
}

const present = (value: unknown): value is string => typeof value === 'string' && value !== '';

export function metadataUp(ctx: TenantContext, object: Json, type: ObjectType): void {
  const meta = object.metadata;
  if (!isObject(meta)) return;
  if (isNamespaced(ctx, type, meta)) {
    if (present(meta.namespace)) meta.namespace = addPrefix(ctx, meta.namespace);
  } else if (!isSharedKind(type.group, type.kind)) {
    const rule = nameRuleFor(type.group, type.kind);
    if (present(meta.name)) {
      checkLength(ctx, meta.name, rule.upstreamLimit, { ...type, field: 'metadata.name', name: meta.name });
      meta.name = rule.up(ctx, meta.name);
    }
    if (present(meta.generateName)) meta.generateName = addPrefix(ctx, meta.generateName);
  }
  references.up(ctx, meta);
}

/** false when the object is foreign. */
export function metadataDown(ctx: TenantContext, object: Json, type: ObjectType): boolean {
  const meta = object.metadata;
  if (!isObject(meta)) return true;
  if (isNamespaced(ctx, type, meta)) {
    if (present(meta.namespace)) {
      const namespace = stripPrefix(ctx, meta.namespace);
      if (namespace === null) return false;
      meta.namespace = namespace;
    }
  } else if (!isSharedKind(type.group, type.kind)) {
    if (present(meta.name)) {
      const name = nameRuleFor(type.group, type.kind).down(ctx, meta.name);
      if (name === null) return false;
      meta.name = name;
    }
    if (present(meta.generateName)) {
      const generateName = stripPrefix(ctx, meta.generateName);
      if (generateName === null) delete meta.generateName;
      else meta.generateName = generateName;
    }
  }
  return references.down(ctx, meta);
}

const ownerReferencesInvariant = owned(
  ['metadata', 'ownerReferences', EACH],
  objectReference(),
  "must refer to the tenant's own objects",
);

/**
 * The invariants of ObjectMeta, for every kind but the shared ones: a namespaced object lives in
 * one of the tenant's namespaces, a cluster-scoped one carries the prefix by its kind's name rule,
 * and its owners are the tenant's.
 */
export function metadataInvariants(namespaced: boolean, type: ObjectType): readonly Invariant[] {
  if (namespaced)
    return [
      ruled(['metadata', 'namespace'], prefixed, "must be one of the tenant's namespaces"),
      ownerReferencesInvariant,
    ];
  if (isSharedKind(type.group, type.kind)) return [];
  return [
    ruled(['metadata', 'name'], nameRuleFor(type.group, type.kind), 'must carry the tenant prefix'),
    ruled(['metadata', 'generateName'], prefixed, 'must carry the tenant prefix'),
    ownerReferencesInvariant,
  ];
}
