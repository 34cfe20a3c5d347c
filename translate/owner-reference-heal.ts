/**
 * Which owner references of a dependent the gateway drops when the cluster reports it naming an
 * object in another namespace (an `OwnerRefInvalidNamespace` event; docs/isolation.md, "Owner
 * references stay inside the tenant"). Written directly upstream, such a reference with
 * `blockOwnerDeletion` holds the foreground deletion of whatever object has its uid, another
 * tenant's included, since the cluster's garbage collector counts blocking dependents by uid.
 *
 * A reference is kept when it resolves as the collector resolves it (kube's `isDangling`): the
 * object of its kind, with its name and uid, is in the dependent's namespace (a namespaced kind) or
 * cluster-scoped. Any other reference names no owner the dependent can have — the collector
 * itself drops it, or deletes the dependent, once it gets to it — so dropping it changes nothing
 * but the wait it imposes on the object that has its uid elsewhere. A kind the cluster does not
 * serve names no object.
 *
 * Pure: where to look and what the answers mean, in upstream terms; the gateway looks
 * (tenants/owner-reference-heal.ts).
 */
import { isObject, type Json } from '../apiserver/json.js';
import { groupOfApiVersion, versionOfApiVersion } from '../apiserver/api-version.js';
import type { OwnerPlace, OwnerReference, OwnerResource } from './owner-check.js';

/** What the gateway found for one owner reference. */
export interface OwnerReferenceLookup {
  /** The resource serving the reference's kind at its apiVersion; undefined when the cluster serves none. */
  resource: OwnerResource | undefined;
  /** The object at the reference's place (`collectorOwnerPlace`); undefined when none is there. */
  found: Json | undefined;
}

/** A JSON patch operation (RFC 6902), as the patch below uses them. */
export type JsonPatchOperation =
  | { op: 'test'; path: string; value: unknown }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

/** The dependent's references as written: each a well-formed reference or something the cluster would have refused. */
export function ownerReferencesOf(dependent: Json): unknown[] {
  const refs: unknown = isObject(dependent.metadata) ? dependent.metadata.ownerReferences : undefined;
  return Array.isArray(refs) ? refs : [];
}

/** Whether an entry of `ownerReferences` is a reference the collector can judge (the cluster refuses others). */
export function isOwnerReference(ref: unknown): ref is OwnerReference {
  return (
    isObject(ref) &&
    typeof ref.apiVersion === 'string' &&
    typeof ref.kind === 'string' &&
    typeof ref.name === 'string' &&
    typeof ref.uid === 'string'
  );
}

/**
 * Where the collector looks for a reference's owner: in the dependent's namespace for a
 * namespaced kind, cluster-scoped otherwise; null when nothing can be there (a kind not served).
 */
export function collectorOwnerPlace(
  ref: OwnerReference,
  dependentNamespace: string,
  resource: OwnerResource | undefined,
): OwnerPlace | null {
  if (!resource) return null;
  return {
    group: groupOfApiVersion(ref.apiVersion),
    version: versionOfApiVersion(ref.apiVersion),
    resource: resource.resource,
    namespace: resource.namespaced ? dependentNamespace : '',
    name: ref.name,
  };
}

/**
 * The indexes in `refs` of the references to drop: those whose lookup found no object with the
 * reference's name and uid at the collector's place. `lookups` holds one entry per reference (undefined
 * for an entry that is no reference: left as it is).
 */
export function unresolvedOwnerReferences(
  refs: readonly unknown[],
  dependentNamespace: string,
  lookups: readonly (OwnerReferenceLookup | undefined)[],
): number[] {
  const drop: number[] = [];
  refs.forEach((ref, index) => {
    const lookup = lookups[index];
    if (!isOwnerReference(ref) || !lookup) return;
    if (!resolves(ref, dependentNamespace, lookup)) drop.push(index);
  });
  return drop;
}

function resolves(ref: OwnerReference, dependentNamespace: string, { resource, found }: OwnerReferenceLookup): boolean {
  if (!resource || !isObject(found?.metadata)) return false;
  const { uid, name, namespace = '' } = found.metadata as { uid?: unknown; name?: unknown; namespace?: unknown };
  return uid === ref.uid && name === ref.name && namespace === (resource.namespaced ? dependentNamespace : '');
}

/**
 * The JSON patch that drops the references at `drop` from the dependent as read: it applies only
 * to that version (a `test` of its resourceVersion), so a reference added or changed meanwhile is
 * never lost; the references left are written back as they were read.
 */
export function dropOwnerReferencesPatch(dependent: Json, drop: readonly number[]): JsonPatchOperation[] {
  const refs = ownerReferencesOf(dependent);
  const kept = refs.filter((_, index) => !drop.includes(index));
  const resourceVersion: unknown = isObject(dependent.metadata) ? dependent.metadata.resourceVersion : undefined;
  return [
    { op: 'test', path: '/metadata/resourceVersion', value: resourceVersion },
    kept.length === 0
      ? { op: 'remove', path: '/metadata/ownerReferences' }
      : { op: 'replace', path: '/metadata/ownerReferences', value: kept },
  ];
}
