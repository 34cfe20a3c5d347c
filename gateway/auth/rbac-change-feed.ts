/**
 * The RBAC objects of one cluster as they change: Roles, RoleBindings, ClusterRoles and
 * ClusterRoleBindings, each followed by a SharedInformer (a list, then a watch) with the
 * gateway's credentials. Each change is told as the tenant it concerns: the tenant whose
 * namespace (`<tid>-…`) holds a Role or RoleBinding, or every tenant (`undefined`) for a
 * ClusterRole or ClusterRoleBinding, whose rules and subjects any namespace's bindings may reach.
 *
 * Only the metadata is kept: whether an object changed is all that is asked of it, so the
 * memory is a few hundred bytes per RBAC object whatever the rules hold.
 */
import type { RestClient } from '../../apiserver/client/rest-client.js';
import { isObject, type Json } from '../../apiserver/json.js';
import { RestListWatcher } from '../../informer/rest-list-watcher.js';
import { SharedInformer } from '../../informer/shared-informer.js';
import { isTenantId } from '../../tenants/tenant-resource.js';

const RBAC_V1 = '/apis/rbac.authorization.k8s.io/v1';
const RBAC_RESOURCES = ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'] as const;

/** A namespace no tenant owns (kube-system, the admin's): its RBAC objects grant tenant users nothing there. */
const NO_TENANT = null;
/** A namespace of a tenant is `<tid>-<name>`, the id six characters. */
const TENANT_ID_LENGTH = 6;

/** `undefined`: the change may concern every tenant. */
export type RbacChangeListener = (tenant: string | undefined) => void;

export class RbacChangeFeed {
  private readonly informers: SharedInformer[];

  constructor(client: RestClient, clusterName: string, onChange: RbacChangeListener) {
    this.informers = RBAC_RESOURCES.map((resource) => {
      const informer = new SharedInformer(new RestListWatcher(client, { groupVersionPath: RBAC_V1, resource }), {
        name: `${clusterName} ${resource}.rbac.authorization.k8s.io (authorization)`,
        transform: metadataOnly,
      });
      const changed = (obj: Json) => {
        const concerned = tenantConcerned(obj);
        if (concerned !== NO_TENANT) onChange(concerned);
      };
      informer.addEventHandler({
        onAdd: (obj, isInInitialList) => {
          if (!isInInitialList) changed(obj);
        },
        // A relist gives every object again as an update: one whose resourceVersion is the same did not change.
        onUpdate: (old, obj) => {
          if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) changed(obj);
        },
        onDelete: changed,
      });
      return informer;
    });
  }

  run(): void {
    for (const informer of this.informers) informer.run();
  }

  stop(): void {
    for (const informer of this.informers) informer.stop();
  }

  /** Resolves true once every informer has listed, false if stopped before. */
  async firstSync(): Promise<boolean> {
    const synced = await Promise.all(this.informers.map((informer) => informer.firstSync));
    return synced.every(Boolean);
  }

  /** Every informer listed and its watch has not failed since: no change can have gone untold. */
  isCurrent(): boolean {
    return this.informers.every((informer) => informer.isCurrent());
  }
}

function metadataOnly(obj: Json): Json {
  const meta: Json = isObject(obj.metadata) ? obj.metadata : {};
  return {
    metadata: { name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion },
  };
}

/** The tenant of the namespace an object is in; undefined (every tenant) for a cluster-scoped object. */
function tenantConcerned(obj: Json): string | undefined | null {
  const namespace = typeof obj.metadata?.namespace === 'string' ? obj.metadata.namespace : '';
  if (namespace === '') return undefined;
  const tenant = namespace.slice(0, TENANT_ID_LENGTH);
  return namespace[TENANT_ID_LENGTH] === '-' && isTenantId(tenant) ? tenant : NO_TENANT;
}
