/**
 * What tenants' spaces are made of on one cluster, followed by informers (informer/shared-informer.ts):
 * the ClusterRoles (their names), the ClusterRoleBindings, the tenant-labelled Namespaces and the
 * grant RoleBindings, each kept as much as the heal pass reads (upstream-space.ts). Every change
 * is told by the tenant it belongs to, a deletion as such, so the tenant controller heals just
 * the tenants something happened to.
 *
 * Before, the heal pass listed all four collections every 3 s and on every deletion: at 300
 * tenants that was 300 MB of JSON parsed in a minute of moving them between clusters (each purge
 * deletes, and each deletion started a pass), the gateway's largest cost. Now a list is made once
 * per leadership and again only when a watch cannot resume.
 */
import type { RestClient } from '../apiserver/client/rest-client.js';
import type { Json } from '../apiserver/json.js';
import { RestListWatcher } from '../informer/rest-list-watcher.js';
import { SharedInformer } from '../informer/shared-informer.js';
import { TENANT_INDEX, tenantIndexFunc } from '../informer/tenant-index.js';
import { GRANT_NAME_PREFIX } from '../translate/kinds/rbac.js';
import { TENANT_LABEL } from '../translate/kinds/tenant-label.js';
import { hasPrefix, tenantPrefix } from '../translate/context.js';

const RBAC_V1 = '/apis/rbac.authorization.k8s.io/v1';

/** The reads of a cluster's tenant spaces the heal pass makes. */
export interface TenantSpaceView {
  hasClusterRole(name: string): boolean;
  /** The ClusterRoleBindings named `<tid>-…`. */
  clusterRoleBindingsOf(tenantId: string): Json[];
  /** The names of the tenant's namespaces (labelled with it, named under its prefix) not being deleted. */
  namespacesOf(tenantId: string): string[];
  /** The tenant's grant RoleBindings, keyed `<namespace>/<name>`. */
  grantsOf(tenantId: string): Map<string, Json>;
}

/** `deleted`: the change was a deletion, which the controller heals at once; others wait for its next pass. */
export type TenantSpaceChange = (tenantId: string, deleted: boolean) => void;

/** The index of cluster-scoped names by the tenant whose prefix they carry (`<tid>-…`; a tenant id has no `-`). */
function byNamePrefix(obj: Json): string[] {
  const name = String(obj.metadata?.name ?? '');
  const dash = name.indexOf('-');
  return dash > 0 && dash < name.length - 1 ? [name.slice(0, dash)] : [];
}

export class TenantSpaceInformers implements TenantSpaceView {
  private readonly clusterRoles: SharedInformer<Json>;
  private readonly clusterRoleBindings: SharedInformer<Json>;
  private readonly namespaces: SharedInformer<Json>;
  private readonly grants: SharedInformer<Json>;

  constructor(client: RestClient, changed: TenantSpaceChange) {
    const informer = (
      resource: string,
      groupVersionPath: string,
      tenantOf: (obj: Json) => string[],
      transform: (obj: Json) => Json,
      labelSelector?: string,
    ) => {
      const made = new SharedInformer<Json>(
        new RestListWatcher(client, { groupVersionPath, resource, labelSelector }),
        {
          name: `tenant spaces: ${resource}`,
          indexers: { [TENANT_INDEX]: tenantOf },
          transform,
        },
      );
      const tell = (obj: Json, deleted: boolean) => {
        for (const tenantId of tenantOf(obj)) changed(tenantId, deleted);
      };
      made.addEventHandler({
        onAdd: (obj) => tell(obj, false),
        onUpdate: (_, obj) => tell(obj, false),
        onDelete: (obj) => tell(obj, true),
      });
      return made;
    };
    this.clusterRoles = informer('clusterroles', RBAC_V1, byNamePrefix, ({ metadata }) => ({
      metadata: { name: metadata.name },
    }));
    this.clusterRoleBindings = informer('clusterrolebindings', RBAC_V1, byNamePrefix, (binding) => ({
      metadata: {
        name: binding.metadata.name,
        labels: binding.metadata.labels,
        annotations: binding.metadata.annotations,
      },
      roleRef: binding.roleRef,
      subjects: binding.subjects,
    }));
    this.namespaces = informer(
      'namespaces',
      '/api/v1',
      tenantIndexFunc,
      ({ metadata }) => ({
        metadata: { name: metadata.name, labels: metadata.labels, deletionTimestamp: metadata.deletionTimestamp },
      }),
      TENANT_LABEL,
    );
    this.grants = informer(
      'rolebindings',
      RBAC_V1,
      tenantIndexFunc,
      (binding) => ({
        metadata: {
          name: binding.metadata.name,
          namespace: binding.metadata.namespace,
          labels: binding.metadata.labels,
        },
        roleRef: binding.roleRef,
        subjects: binding.subjects,
      }),
      TENANT_LABEL,
    );
  }

  private get all(): SharedInformer<Json>[] {
    return [this.clusterRoles, this.clusterRoleBindings, this.namespaces, this.grants];
  }

  run(): void {
    for (const informer of this.all) informer.run();
  }

  stop(): void {
    for (const informer of this.all) informer.stop();
  }

  /** Every collection listed and its watch unbroken: a heal from a view behind the cluster could undo a change it has not seen. */
  isCurrent(): boolean {
    return this.all.every((informer) => informer.isCurrent());
  }

  hasClusterRole(name: string): boolean {
    return this.clusterRoles.indexer.getByKey(name) !== undefined;
  }

  clusterRoleBindingsOf(tenantId: string): Json[] {
    return this.clusterRoleBindings.indexer.byIndex(TENANT_INDEX, tenantId);
  }

  namespacesOf(tenantId: string): string[] {
    const tenant = tenantPrefix(tenantId);
    return this.namespaces.indexer
      .byIndex(TENANT_INDEX, tenantId)
      .filter((namespace) => !namespace.metadata.deletionTimestamp && hasPrefix(tenant, namespace.metadata.name))
      .map((namespace) => namespace.metadata.name as string);
  }

  grantsOf(tenantId: string): Map<string, Json> {
    const grants = new Map<string, Json>();
    for (const grant of this.grants.indexer.byIndex(TENANT_INDEX, tenantId))
      if (String(grant.metadata.name).startsWith(GRANT_NAME_PREFIX))
        grants.set(`${grant.metadata.namespace}/${grant.metadata.name}`, grant);
    return grants;
  }
}
