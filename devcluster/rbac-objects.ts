import { RbacIndex, type RbacKind } from '../apiserver/authorization/rbac-index.js';
import { parseRegistryKey } from '../apiserver/registry/object-store.js';
import type { Store } from '../store/index.js';
import { WatchLoop } from '../store/watch-loop.js';

const KINDS: Record<string, RbacKind> = {
  roles: 'roles',
  rolebindings: 'roleBindings',
  clusterroles: 'clusterRoles',
  clusterrolebindings: 'clusterRoleBindings',
};

/**
 * The RBAC objects the authorizer decides with, kept current from one watch over the RBAC group,
 * so a new RoleBinding applies to the very next request without a store read per decision. Each
 * event updates the index in place: no decision copies or scans every namespace's bindings.
 */
export class RbacObjectCache {
  readonly index = new RbacIndex();
  private readonly loop: WatchLoop;

  constructor(store: Store) {
    this.loop = new WatchLoop(
      store,
      '/registry/rbac.authorization.k8s.io/',
      {
        onList: (items) => {
          this.index.clear();
          for (const kv of items) this.put(kv.key, kv.value);
        },
        onEvent: (event) => {
          if (event.type === 'delete') this.index.delete(event.key);
          else this.put(event.key, event.value);
        },
      },
      'RBAC cache',
    );
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private put(key: string, value: string): void {
    const kind = KINDS[parseRegistryKey(key)?.resource ?? ''];
    if (kind) this.index.set(key, kind, JSON.parse(value));
  }
}
