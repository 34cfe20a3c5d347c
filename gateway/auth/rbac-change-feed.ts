/**
 * The RBAC objects of one cluster as they change: Roles, RoleBindings, ClusterRoles and
 * ClusterRoleBindings, each followed by a handler on the cluster's shared informer of it (the
 * connection's, cached-object-informers.ts; the search cache and the tenant spaces read the same
 * ones). Each change is told as the tenant it concerns: the tenant whose namespace (`<tid>-…`)
 * holds a Role or RoleBinding, or every tenant (`undefined`) for a ClusterRole or
 * ClusterRoleBinding, whose rules and subjects any namespace's bindings may reach.
 *
 * Nothing is kept here: whether an object changed (its resourceVersion) and where it is are all
 * that is asked of it, and the informer holds the objects once for every consumer.
 */
import type { CachedObject } from '../../search/cached-object.js';
import type { CachedObjectInformers } from '../../search/cached-object-informers.js';
import type { HandlerRegistration, SharedInformer } from '../../informer/shared-informer.js';
import { isTenantId } from '../../tenants/tenant-resource.js';

const RBAC_RESOURCES = ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'] as const;

/** A namespace no tenant owns (kube-system, the admin's): its RBAC objects grant tenant users nothing there. */
const NO_TENANT = null;
/** A namespace of a tenant is `<tid>-<name>`, the id six characters. */
const TENANT_ID_LENGTH = 6;

/** `undefined`: the change may concern every tenant. */
export type RbacChangeListener = (tenant: string | undefined) => void;

export class RbacChangeFeed {
  private readonly informers: SharedInformer<CachedObject>[] = [];
  private readonly registrations: HandlerRegistration[] = [];

  constructor(
    private readonly cluster: CachedObjectInformers,
    private readonly onChange: RbacChangeListener,
  ) {}

  run(): void {
    if (this.informers.length) return;
    for (const resource of RBAC_RESOURCES) {
      const informer = this.cluster.informerFor({
        group: 'rbac.authorization.k8s.io',
        version: 'v1',
        resource,
        namespaced: resource === 'roles' || resource === 'rolebindings',
      });
      const changed = (obj: CachedObject) => {
        const concerned = tenantConcerned(obj);
        if (concerned !== NO_TENANT) this.onChange(concerned);
      };
      const registration = informer.addEventHandler({
        onAdd: (obj, isInInitialList) => {
          if (!isInInitialList) changed(obj);
        },
        // A relist gives every object again as an update: one whose resourceVersion is the same did not change.
        onUpdate: (old, obj) => {
          if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) changed(obj);
        },
        onDelete: changed,
      });
      this.informers.push(informer);
      this.registrations.push(registration);
    }
  }

  stop(): void {
    for (const registration of this.registrations) registration.remove();
    this.registrations.length = 0;
  }

  /** Resolves true once every informer has listed, false if stopped before. */
  async firstSync(): Promise<boolean> {
    const synced = await Promise.all(this.informers.map((informer) => informer.firstSync));
    return synced.length > 0 && synced.every(Boolean);
  }

  /** Every informer listed and its watch has not failed since: no change can have gone untold. */
  isCurrent(): boolean {
    return this.registrations.length > 0 && this.informers.every((informer) => informer.isCurrent());
  }
}

/** The tenant of the namespace an object is in; undefined (every tenant) for a cluster-scoped object. */
function tenantConcerned(obj: CachedObject): string | undefined | null {
  const namespace = obj.metadata.namespace ?? '';
  if (namespace === '') return undefined;
  const tenant = namespace.slice(0, TENANT_ID_LENGTH);
  return namespace[TENANT_ID_LENGTH] === '-' && isTenantId(tenant) ? tenant : NO_TENANT;
}
