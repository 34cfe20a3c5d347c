import type { GenericRegistry } from '../../apiserver/registry/generic-registry.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { mutate } from '../../apiserver/registry/object-mutation.js';
import { labelSelectorFromObject } from '../../apiserver/selectors/label-selector.js';
import { AS_CONTROLLER } from './controller-manager.js';
import { joinKey } from './reconcile-loop.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** metav1.NewControllerRef: the reference a controller puts on what it creates. */
export function controllerRef(owner: ApiObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The ownerReference with `controller: true` (at most one, by validation), if any and, given `kind`, of that kind. */
export function controllerOf(object: ApiObject, kind?: string): OwnerReference | undefined {
  const ref: OwnerReference | undefined = (object.metadata.ownerReferences ?? []).find(
    (candidate: OwnerReference) => candidate.controller === true,
  );
  return kind === undefined || ref?.kind === kind ? ref : undefined;
}

/**
 * Keys of the owners a change to `object` concerns: its controller when it has one of `kind`,
 * else (an orphan, which may be adopted) every owner of `kind` in its namespace.
 */
export function ownerKeys(object: ApiObject, kind: string, ownersInNamespace: (namespace: string) => string[]) {
  const ref = controllerOf(object);
  const namespace = object.metadata.namespace ?? '';
  if (ref) return ref.kind === kind ? [joinKey(namespace, ref.name)] : [];
  return ownersInNamespace(namespace).map((name) => joinKey(namespace, name));
}

/**
 * kube's ControllerRefManager: of `candidates`, those the owner controls and its selector still
 * matches, plus orphans it matches (adopted: the owner is not being deleted); ones it controls
 * that no longer match are released (their reference dropped).
 */
export async function claim(
  owner: ApiObject,
  candidates: ApiObject[],
  registry: GenericRegistry,
): Promise<ApiObject[]> {
  const selector = labelSelectorFromObject(owner.spec?.selector);
  const claimed: ApiObject[] = [];
  for (const candidate of candidates) {
    const ref = controllerOf(candidate);
    const matches = !selector.empty && selector.matches(candidate.metadata.labels);
    if (ref) {
      if (ref.uid !== owner.metadata.uid) continue;
      if (matches || owner.metadata.deletionTimestamp) {
        claimed.push(candidate);
        continue;
      }
      await mutate(
        registry,
        candidate.metadata.namespace,
        candidate.metadata.name,
        (object) => {
          const refs: OwnerReference[] = object.metadata.ownerReferences ?? [];
          object.metadata.ownerReferences = refs.filter((r) => r.uid !== owner.metadata.uid);
          if (object.metadata.ownerReferences.length === 0) delete object.metadata.ownerReferences;
          return refs.length !== (object.metadata.ownerReferences?.length ?? 0);
        },
        AS_CONTROLLER,
      );
      continue;
    }
    if (!matches || owner.metadata.deletionTimestamp || candidate.metadata.deletionTimestamp) continue;
    let adopted: ApiObject | undefined;
    await mutate(
      registry,
      candidate.metadata.namespace,
      candidate.metadata.name,
      (object) => {
        if (controllerOf(object)) return false;
        object.metadata.ownerReferences = [...(object.metadata.ownerReferences ?? []), controllerRef(owner)];
        adopted = object;
        return true;
      },
      AS_CONTROLLER,
    );
    if (adopted) claimed.push(adopted);
  }
  return claimed;
}
