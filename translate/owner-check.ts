/**
 * Owner references that block their owner's deletion must name an object of the tenant's
 * (docs/isolation.md, "Owner references stay inside the tenant"). A dependent with
 * `blockOwnerDeletion: true` and a finalizer of its own holds its owner's foreground deletion for
 * as long as it likes, and the cluster's garbage collector counts it by uid alone, wherever the
 * dependent is: a tenant that learnt another's uid could hold that tenant's deletions. So a
 * reference the tenant newly sets blocking (kube's OwnerReferencesPermissionEnforcement judges
 * the same ones) must name an object the gateway finds, with that uid, where the tenant's owner
 * would be: in the dependent's own namespace, or cluster-scoped under the tenant's prefix.
 *
 * Pure: what to look up and what the answers mean; the gateway looks (gateway/proxy/owner-lookup.ts).
 * Everything here is in upstream terms: the references of the converted object.
 */
import { isObject, type Json } from '../apiserver/json.js';
import { groupOfApiVersion, versionOfApiVersion } from '../apiserver/api-version.js';
import { addPrefix, groupDown, isSharedKind, TranslationError, type TenantContext } from './context.js';
import { nameRuleFor } from './kinds/names.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  blockOwnerDeletion?: boolean;
}

/** A resource of the upstream's discovery: its plural and scope. */
export interface OwnerResource {
  resource: string;
  namespaced: boolean;
}

/** Where the object a reference names must be to be the tenant's: the upstream path of one GET. */
export interface OwnerPlace {
  group: string;
  version: string;
  resource: string;
  /** The dependent's namespace upstream for a namespaced owner, '' for a cluster-scoped one. */
  namespace: string;
  name: string;
}

/** The references of an object that set `blockOwnerDeletion` (well-formed ones; the upstream refuses the rest). */
export function blockingOwnerReferences(object: Json): OwnerReference[] {
  const refs: unknown = isObject(object.metadata) ? object.metadata.ownerReferences : undefined;
  if (!Array.isArray(refs)) return [];
  return refs.filter(
    (ref): ref is OwnerReference =>
      isObject(ref) &&
      ref.blockOwnerDeletion === true &&
      typeof ref.apiVersion === 'string' &&
      typeof ref.kind === 'string' &&
      typeof ref.name === 'string' &&
      typeof ref.uid === 'string',
  );
}

/**
 * Those of `refs` the write newly makes blocking: kube's newBlockingOwnerDeletionRefs, by uid. A
 * reference already blocking on the stored object stays allowed, so an update never breaks on
 * one made before (or whose owner has gone since).
 */
export function newlyBlocking(refs: OwnerReference[], stored: Json | undefined): OwnerReference[] {
  if (!stored) return refs;
  const before = blockingOwnerReferences(stored).map((ref) => ref.uid);
  return refs.filter((ref) => !before.includes(ref.uid));
}

/**
 * Where the owner a reference names would be if it were the tenant's — `dependentNamespace` is the
 * dependent's namespace as the tenant names it ('' for a cluster-scoped dependent); null when no object of the
 * tenant can be it: a kind the upstream does not serve, a namespaced owner of a cluster-scoped
 * dependent (which kube's collector cannot resolve either), a kind every tenant shares (Nodes), a
 * custom group not the tenant's, or a cluster-scoped name without the tenant's prefix.
 */
export function ownerPlace(
  ctx: TenantContext,
  ref: OwnerReference,
  dependentNamespace: string,
  resource: OwnerResource | undefined,
): OwnerPlace | null {
  if (!resource) return null;
  const group = groupOfApiVersion(ref.apiVersion);
  const version = versionOfApiVersion(ref.apiVersion);
  const where = { group, version, resource: resource.resource, name: ref.name };
  if (resource.namespaced)
    return dependentNamespace === '' ? null : { ...where, namespace: addPrefix(ctx, dependentNamespace) };
  const tenantGroup = groupDown(ctx, group);
  if (tenantGroup === null || isSharedKind(tenantGroup, ref.kind)) return null;
  return nameRuleFor(tenantGroup, ref.kind).down(ctx, ref.name) === null ? null : { ...where, namespace: '' };
}

/** Whether the object found at the reference's place (undefined: none) is the owner it names. */
export function isNamedOwner(ref: OwnerReference, found: Json | undefined): boolean {
  return isObject(found?.metadata) && found.metadata.uid === ref.uid;
}

/** The refusal, in kube's words for a forbidden write (`<kind> "<name>" is forbidden: …`), naming the reference. */
export function ownerReferenceRefused(
  type: { group: string; kind: string; name?: string },
  ref: OwnerReference,
): TranslationError {
  const what = type.name ? `${type.kind} "${type.name}"` : type.kind;
  return new TranslationError(
    403,
    'Forbidden',
    `${what} is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to an object that is not the tenant's (${ref.kind} with uid ${ref.uid})`,
    { name: type.name, group: type.group, kind: type.kind },
  );
}
