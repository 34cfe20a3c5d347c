/**
 * What tenants' spaces are made of on one cluster, followed through the cluster's shared informers
 * (the connection's, search/cached-object-informers.ts; the search cache, the namespace index and
 * the RBAC change feed read the same ones): the ClusterRoles (their names), the
 * ClusterRoleBindings, the tenant-labelled Namespaces, the grant RoleBindings and each tenant's
 * `kubernetes` Service (tenants/kubernetes-service.ts), each indexed by tenant. Every change is
 * told by the tenant it belongs to, a deletion as such, so the tenant controller heals just the
 * tenants something happened to. What a heal reads beyond the metadata
 * (a binding's roleRef and subjects, a namespace's deletionTimestamp) is parsed from the held
 * text of the tenant's few objects when it asks.
 *
 * Before, the heal pass listed all four collections every 3 s and on every deletion: at 300
 * tenants that was 300 MB of JSON parsed in a minute of moving them between clusters (each purge
 * deletes, and each deletion started a pass), the gateway's largest cost. Now a list is made once
 * per cluster and replica and again only when a watch cannot resume.
 */
import type { Json } from '../apiserver/json.js';
import type { CachedObject } from '../search/cached-object.js';
import { parsedObject, type CachedObjectInformers } from '../search/cached-object-informers.js';
import type { HandlerRegistration, SharedInformer } from '../informer/shared-informer.js';
import type { InformerResource } from '../informer/shared-informer-factory.js';
import type { IndexFunc } from '../informer/store-index.js';
import {
  byNamePrefix,
  byStoredBindingLabel,
  NAME_PREFIX_INDEX,
  STORED_BINDING_INDEX,
  TENANT_INDEX,
  tenantIndexFunc,
} from '../informer/tenant-index.js';
import { GRANT_NAME_PREFIX } from '../translate/kinds/rbac.js';
import { clusterRoleBindingsStoredAs } from '../translate/kinds/stored-cluster-role-binding.js';
import { hasPrefix, namespaceTenantId, tenantPrefix } from '../translate/context.js';
import { KUBERNETES_SERVICE, kubernetesServiceNamespace } from './kubernetes-service.js';

/** The reads of a cluster's tenant spaces the heal pass makes. */
export interface TenantSpaceView {
  hasClusterRole(name: string): boolean;
  /** The tenant's ClusterRoleBindings in their upstream form, from the RoleBindings they are stored as. */
  clusterRoleBindingsOf(tenantId: string): Json[];
  /** ClusterRoleBindings named `<tid>-…` still at the cluster scope (made before they were stored as RoleBindings). */
  unstoredClusterRoleBindingsOf(tenantId: string): Json[];
  /** The names of the tenant's namespaces (labelled with it, named under its prefix) not being deleted. */
  namespacesOf(tenantId: string): string[];
  /** The tenant's grant RoleBindings, keyed `<namespace>/<name>`. */
  grantsOf(tenantId: string): Map<string, Json>;
  /** Whether the tenant's `default` namespace holds its `kubernetes` Service. */
  hasKubernetesService(tenantId: string): boolean;
}

/** `deleted`: the change was a deletion, which the controller heals at once; others wait for its next pass. */
export type TenantSpaceChange = (tenantId: string, deleted: boolean) => void;

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces', namespaced: false } as const;
const SERVICES = { group: '', version: 'v1', resource: 'services', namespaced: true } as const;

const KUBERNETES_SERVICE_INDEX = 'tenant-kubernetes-service';

/** A tenant's `kubernetes` Service, under its tenant; every other Service in no set. */
function byKubernetesService(obj: CachedObject): string[] {
  const { name, namespace } = obj.metadata;
  if (name !== KUBERNETES_SERVICE || !namespace) return [];
  const tenantId = namespaceTenantId(namespace);
  return tenantId !== undefined && namespace === kubernetesServiceNamespace(tenantId) ? [tenantId] : [];
}
const rbac = (resource: string, namespaced: boolean) =>
  ({ group: 'rbac.authorization.k8s.io', version: 'v1', resource, namespaced }) as const;

/** One collection followed: its informer, the index its tenants are read by, and the handler while it runs. */
class Followed {
  private informer: SharedInformer<CachedObject> | undefined;
  private registration: HandlerRegistration | undefined;

  constructor(
    private readonly resource: InformerResource,
    private readonly index: string,
    private readonly tenantsOf: IndexFunc<CachedObject>,
  ) {}

  run(informers: CachedObjectInformers, changed: TenantSpaceChange): void {
    if (this.registration) return;
    const informer = informers.informerFor(this.resource);
    informer.addIndexers({ [this.index]: this.tenantsOf });
    const tell = (obj: CachedObject, deleted: boolean) => {
      for (const tenantId of this.tenantsOf(obj)) changed(tenantId, deleted);
    };
    this.registration = informer.addEventHandler({
      onAdd: (obj) => tell(obj, false),
      // A relist gives every object again as an update: one whose resourceVersion is the same did not change.
      onUpdate: (old, obj) => {
        if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) tell(obj, false);
      },
      onDelete: (obj) => tell(obj, true),
    });
    this.informer = informer;
  }

  stop(): void {
    this.registration?.remove();
    this.registration = undefined;
    this.informer = undefined;
  }

  isCurrent(): boolean {
    return this.informer?.isCurrent() ?? false;
  }

  get(key: string): CachedObject | undefined {
    return this.informer?.indexer.getByKey(key);
  }

  of(tenantId: string): CachedObject[] {
    return this.informer?.indexer.byIndex(this.index, tenantId) ?? [];
  }
}

export class TenantSpaceInformers implements TenantSpaceView {
  private readonly clusterRoles = new Followed(rbac('clusterroles', false), NAME_PREFIX_INDEX, byNamePrefix);
  private readonly clusterRoleBindings = new Followed(
    rbac('clusterrolebindings', false),
    NAME_PREFIX_INDEX,
    byNamePrefix,
  );
  private readonly namespaces = new Followed(NAMESPACES, TENANT_INDEX, tenantIndexFunc);
  private readonly grants = new Followed(rbac('rolebindings', true), TENANT_INDEX, tenantIndexFunc);
  private readonly storedBindings = new Followed(
    rbac('rolebindings', true),
    STORED_BINDING_INDEX,
    byStoredBindingLabel,
  );
  private readonly kubernetesServices = new Followed(SERVICES, KUBERNETES_SERVICE_INDEX, byKubernetesService);

  constructor(
    private readonly informers: CachedObjectInformers,
    private readonly changed: TenantSpaceChange,
  ) {}

  private get all(): Followed[] {
    return [
      this.clusterRoles,
      this.clusterRoleBindings,
      this.namespaces,
      this.grants,
      this.storedBindings,
      this.kubernetesServices,
    ];
  }

  run(): void {
    for (const followed of this.all) followed.run(this.informers, this.changed);
  }

  stop(): void {
    for (const followed of this.all) followed.stop();
  }

  /** Every collection listed and its watch unbroken: a heal from a view behind the cluster could undo a change it has not seen. */
  isCurrent(): boolean {
    return this.all.every((followed) => followed.isCurrent());
  }

  hasClusterRole(name: string): boolean {
    return this.clusterRoles.get(name) !== undefined;
  }

  clusterRoleBindingsOf(tenantId: string): Json[] {
    return clusterRoleBindingsStoredAs(tenantPrefix(tenantId), this.storedBindings.of(tenantId).map(parsedObject));
  }

  unstoredClusterRoleBindingsOf(tenantId: string): Json[] {
    return this.clusterRoleBindings.of(tenantId).map(parsedObject);
  }

  namespacesOf(tenantId: string): string[] {
    const tenant = tenantPrefix(tenantId);
    return this.namespaces
      .of(tenantId)
      .filter((namespace) => hasPrefix(tenant, namespace.metadata.name))
      .filter((namespace) => !parsedObject(namespace).metadata?.deletionTimestamp)
      .map((namespace) => namespace.metadata.name);
  }

  hasKubernetesService(tenantId: string): boolean {
    return this.kubernetesServices.of(tenantId).length > 0;
  }

  grantsOf(tenantId: string): Map<string, Json> {
    const grants = new Map<string, Json>();
    for (const grant of this.grants.of(tenantId))
      if (grant.metadata.name.startsWith(GRANT_NAME_PREFIX))
        grants.set(`${grant.metadata.namespace}/${grant.metadata.name}`, parsedObject(grant));
    return grants;
  }
}
