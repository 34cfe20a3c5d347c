import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { ownerKeys } from './controller-ref.js';
import { joinKey, keyOf, type WatchedPrefix } from './reconcile-loop.js';

/**
 * The owners a workload controller knows (its Deployments, ReplicaSets…), by namespace, kept from
 * its own watch: which of them an orphan in a namespace may be adopted by, and whether a change in
 * a namespace can concern the controller at all (a namespace without owners costs nothing).
 */
export class OwnerIndex {
  private readonly namesByNamespace = new Map<string, Set<string>>();

  constructor(private readonly kind: string) {}

  /** The owners' own prefix: each change is remembered and reconciles that owner. */
  owners(prefix: string): WatchedPrefix {
    return {
      prefix,
      keysOf: (owner, deleted) => {
        this.remember(owner, deleted);
        return [keyOf(owner)];
      },
    };
  }

  /** A prefix of objects the owners control or may adopt: a change reconciles the owners it concerns. */
  dependents(prefix: string): WatchedPrefix {
    return {
      prefix,
      inNamespace: (namespace) => (this.namesByNamespace.get(namespace)?.size ?? 0) > 0,
      keysOf: (object) => ownerKeys(object, this.kind, (namespace) => this.namesIn(namespace)),
    };
  }

  /** Every owner's key. */
  keys(): string[] {
    return [...this.namesByNamespace].flatMap(([namespace, names]) =>
      [...names].map((name) => joinKey(namespace, name)),
    );
  }

  private namesIn(namespace: string): string[] {
    return [...(this.namesByNamespace.get(namespace) ?? [])];
  }

  private remember(owner: ApiObject, deleted: boolean): void {
    const namespace: string = owner.metadata.namespace;
    let names = this.namesByNamespace.get(namespace);
    if (!names) this.namesByNamespace.set(namespace, (names = new Set()));
    if (deleted) names.delete(owner.metadata.name);
    else names.add(owner.metadata.name);
  }
}
