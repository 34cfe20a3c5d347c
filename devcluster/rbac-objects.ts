import type { RbacObjects } from '../apiserver/authorization/rbac-authorizer.js';
import { parseRegistryKey } from '../apiserver/registry/object-store.js';
import type { Store } from '../store/index.js';
import { WatchLoop } from '../store/watch-loop.js';

const KINDS: Record<string, keyof RbacObjects> = {
  roles: 'roles',
  rolebindings: 'roleBindings',
  clusterroles: 'clusterRoles',
  clusterrolebindings: 'clusterRoleBindings',
};

/**
 * The RBAC objects the authorizer decides with, kept current from one watch over the RBAC group,
 * so a new RoleBinding applies to the very next request without a store read per decision.
 */
export class RbacObjectCache {
  private readonly byKey = new Map<string, { kind: keyof RbacObjects; object: any }>();
  private snapshot: RbacObjects | undefined;
  private readonly loop: WatchLoop;

  constructor(store: Store) {
    this.loop = new WatchLoop(
      store,
      '/registry/rbac.authorization.k8s.io/',
      {
        onList: (items) => {
          this.byKey.clear();
          for (const kv of items) this.put(kv.key, kv.value);
        },
        onEvent: (event) => {
          if (event.type === 'delete') this.byKey.delete(event.key);
          else this.put(event.key, event.value);
          this.snapshot = undefined;
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

  objects(): RbacObjects {
    if (!this.snapshot) {
      const snapshot: RbacObjects = { roles: [], roleBindings: [], clusterRoles: [], clusterRoleBindings: [] };
      for (const { kind, object } of this.byKey.values()) snapshot[kind].push(object);
      this.snapshot = snapshot;
    }
    return this.snapshot;
  }

  private put(key: string, value: string): void {
    const kind = KINDS[parseRegistryKey(key)?.resource ?? ''];
    if (kind) this.byKey.set(key, { kind, object: JSON.parse(value) });
    this.snapshot = undefined;
  }
}
