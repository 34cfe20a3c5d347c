/**
 * The RBAC objects of one cluster as they change, and as they are now: Roles, RoleBindings,
 * ClusterRoles and ClusterRoleBindings, each followed by a handler on the cluster's shared
 * informer of it (the connection's, cached-object-informers.ts; the search cache and the tenant
 * spaces read the same ones). Each change is told as the tenant it concerns: the tenant whose
 * namespace (`<tid>-…`) holds a Role or RoleBinding, or every tenant (`undefined`) for a
 * ClusterRole or ClusterRoleBinding, whose rules and subjects any namespace's bindings may reach.
 * The gateway's own RBAC decisions (tenant-authorizer.ts) read a tenant's objects from the same
 * informers, by the indexes added here, and learn from them whether a write has been seen
 * (rbac-writes.ts).
 *
 * Nothing is kept here: the informers hold the objects once for every consumer.
 */
import type { CachedObject } from '../../search/cached-object.js';
import type { CachedObjectInformers } from '../../search/cached-object-informers.js';
import type { HandlerRegistration, SharedInformer } from '../../informer/shared-informer.js';
import type { Indexers } from '../../informer/store-index.js';
import { NAMESPACE_INDEX, metaNamespaceIndexFunc } from '../../informer/namespace-index.js';
import {
  byNamePrefix,
  byStoredBindingLabel,
  NAME_PREFIX_INDEX,
  STORED_BINDING_INDEX,
} from '../../informer/tenant-index.js';
import { isTenantId } from '../../tenants/tenant-resource.js';
import { RBAC_RESOURCES, type RbacResource, type RbacWriteWitness } from './rbac-writes.js';

/** What the gateway's decisions look objects up by, per resource. */
const INDEXERS: Record<RbacResource, Indexers<CachedObject>> = {
  roles: { [NAMESPACE_INDEX]: metaNamespaceIndexFunc },
  rolebindings: { [NAMESPACE_INDEX]: metaNamespaceIndexFunc, [STORED_BINDING_INDEX]: byStoredBindingLabel },
  clusterroles: { [NAME_PREFIX_INDEX]: byNamePrefix },
  clusterrolebindings: {},
};

/** A namespace no tenant owns (kube-system, the admin's): its RBAC objects grant tenant users nothing there. */
const NO_TENANT = null;
/** A namespace of a tenant is `<tid>-<name>`, the id six characters. */
const TENANT_ID_LENGTH = 6;

/** `undefined`: the change may concern every tenant. */
export type RbacChangeListener = (tenant: string | undefined) => void;

export class RbacChangeFeed implements RbacWriteWitness {
  private readonly informers = new Map<RbacResource, SharedInformer<CachedObject>>();
  private readonly registrations: HandlerRegistration[] = [];

  constructor(private readonly cluster: CachedObjectInformers) {}

  /** Follows the cluster's RBAC objects, telling each change to `onChange`. */
  run(onChange: RbacChangeListener): void {
    if (this.informers.size) return;
    for (const resource of RBAC_RESOURCES) {
      const informer = this.cluster.informerFor({
        group: 'rbac.authorization.k8s.io',
        version: 'v1',
        resource,
        namespaced: resource === 'roles' || resource === 'rolebindings',
      });
      informer.addIndexers(INDEXERS[resource]);
      const changed = (obj: CachedObject) => {
        const concerned = tenantConcerned(obj);
        if (concerned !== NO_TENANT) onChange(concerned);
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
      this.informers.set(resource, informer);
      this.registrations.push(registration);
    }
  }

  stop(): void {
    for (const registration of this.registrations) registration.remove();
    this.registrations.length = 0;
    this.informers.clear();
  }

  /** Resolves true once every informer has listed, false if stopped before. */
  async firstSync(): Promise<boolean> {
    const synced = await Promise.all([...this.informers.values()].map((informer) => informer.firstSync));
    return synced.length > 0 && synced.every(Boolean);
  }

  /** Every informer listed and its watch has not failed since: no change can have gone untold. */
  isCurrent(): boolean {
    return this.registrations.length > 0 && [...this.informers.values()].every((informer) => informer.isCurrent());
  }

  /** The ClusterRoles named under the tenant's prefix. */
  clusterRolesOf(tenant: string): CachedObject[] {
    return this.byIndex('clusterroles', NAME_PREFIX_INDEX, tenant);
  }

  /** The RoleBindings the tenant's ClusterRoleBindings are stored as. */
  storedBindingsOf(tenant: string): CachedObject[] {
    return this.byIndex('rolebindings', STORED_BINDING_INDEX, tenant);
  }

  /** The Roles or RoleBindings of one upstream namespace. */
  inNamespace(resource: 'roles' | 'rolebindings', namespace: string): CachedObject[] {
    return this.byIndex(resource, NAMESPACE_INDEX, namespace);
  }

  lastSyncResourceVersion(resource: RbacResource): string {
    return this.informers.get(resource)?.lastSyncResourceVersion() ?? '';
  }

  uidOf(resource: RbacResource, key: string): string | undefined {
    return this.informers.get(resource)?.indexer.getByKey(key)?.metadata.uid;
  }

  private byIndex(resource: RbacResource, index: string, value: string): CachedObject[] {
    return this.informers.get(resource)?.indexer.byIndex(index, value) ?? [];
  }
}

/** The tenant of the namespace an object is in; undefined (every tenant) for a cluster-scoped object. */
function tenantConcerned(obj: CachedObject): string | undefined | null {
  const namespace = obj.metadata.namespace ?? '';
  if (namespace === '') return undefined;
  const tenant = namespace.slice(0, TENANT_ID_LENGTH);
  return namespace[TENANT_ID_LENGTH] === '-' && isTenantId(tenant) ? tenant : NO_TENANT;
}
