/**
 * The gateway's own authorization of what the upstream no longer decides for tenants: requests
 * at the cluster scope (cluster-scoped kinds, and namespaced kinds across all namespaces). The
 * tenant's identities hold no cluster-wide rights upstream (tenants/tenant-grants.ts), so these
 * requests are decided here, by kube's RBAC rules (apiserver/authorization/rbac-authorizer.ts)
 * over the tenant's own ClusterRoles and ClusterRoleBindings in the tenant's view (the bindings read
 * from its `<tid>-kube-system`, where they are stored: translate/kinds/stored-cluster-role-binding.ts), and then sent
 * with the gateway's credentials. A request about one namespace object (`namespaces/<ns>`) also
 * counts the Roles and RoleBindings in that namespace, as kube does.
 *
 * The objects are read from the cluster's shared informers (rbac-change-feed.ts), as kube's own
 * RBAC authorizer reads its listers: a decision costs no request upstream. They are read from the
 * cluster instead while the informers are not current (before their first list, while a watch is
 * down), and, for one tenant, a resource it wrote through this replica until the informer of it
 * has seen the write (rbac-writes.ts): its next request is decided by what it just wrote.
 */
import { RbacAuthorizer, type Decision, type RbacObjects } from '../../apiserver/authorization/rbac-authorizer.js';
import { RbacIndex } from '../../apiserver/authorization/rbac-index.js';
import type { Attributes } from '../../apiserver/authorization/attributes.js';
import { expectStatus } from '../../apiserver/client/rest-client.js';
import type { Json } from '../../apiserver/json.js';
import { objectDown } from '../../translate/objects.js';
import { addPrefix, hasPrefix, stripPrefix, tenantPrefix, type TenantContext } from '../../translate/context.js';
import { clusterRoleBindingsStoredAs } from '../../translate/kinds/stored-cluster-role-binding.js';
import { listClusterRoleBindings, type UpstreamApi } from '../../tenants/tenant-grants.js';
import { tenantUserName } from '../../tenants/upstream-identity.js';
import { parsedObject } from '../../search/cached-object-informers.js';
import type { RbacChangeFeed } from './rbac-change-feed.js';
import { PendingRbacWrites, type RbacResource, type RbacWrite } from './rbac-writes.js';

const RBAC = 'rbac.authorization.k8s.io';
const RBAC_V1 = `/apis/${RBAC}/v1`;

export interface TenantUser {
  tenant: string;
  /** The certificate's CN, `<tid>-<name>`. */
  user: string;
  /** The certificate's groups, in the tenant's terms. */
  groups: string[];
  /** The groups are all there is (a SubjectAccessReview's): no `system:authenticated` added. */
  exactGroups?: boolean;
}

/** What is asked, in the tenant's terms (namespace `""` for the cluster scope). */
export type TenantAttributes = Omit<Attributes, 'user'>;

export class TenantAuthorizer {
  private readonly pending = new PendingRbacWrites();

  /** `rbac`: the cluster's RBAC informers; without them (or while they are not current), every read is the cluster's. */
  constructor(
    private readonly api: UpstreamApi,
    private readonly rbac?: RbacChangeFeed,
  ) {}

  /** The tenant wrote RBAC objects through this replica (undefined: one whose answer named nothing to wait for). */
  wrote(tenantId: string, writes: readonly (RbacWrite | undefined)[]): void {
    this.pending.add(tenantId, writes);
  }

  /** The tenant's ClusterRoleBindings in their upstream form, from the RoleBindings they are stored as (translate/kinds/stored-cluster-role-binding.ts). */
  async clusterRoleBindingsOf(tenantId: string): Promise<Json[]> {
    const rbac = this.informersFor(tenantId, 'rolebindings');
    return rbac
      ? clusterRoleBindingsStoredAs(tenantPrefix(tenantId), rbac.storedBindingsOf(tenantId).map(parsedObject))
      : listClusterRoleBindings(this.api, tenantId);
  }

  async authorize(ctx: TenantContext, who: TenantUser, attributes: TenantAttributes): Promise<Decision> {
    const objects = RbacIndex.of(await this.objectsOf(ctx, attributes.namespace));
    return new RbacAuthorizer(() => objects).authorize({ ...attributes, user: tenantUserInfo(ctx, who) });
  }

  /** The tenant's RBAC objects in its own terms; Roles and RoleBindings only of `namespace`, if any. */
  private async objectsOf(ctx: TenantContext, namespace: string): Promise<RbacObjects> {
    const [clusterRoles, clusterRoleBindings] = await Promise.all([
      this.clusterRolesOf(ctx),
      this.clusterRoleBindingsOf(ctx.tenantId),
    ]);
    const objects: RbacObjects = {
      clusterRoles: own(ctx, clusterRoles, 'ClusterRole'),
      clusterRoleBindings: own(ctx, clusterRoleBindings, 'ClusterRoleBinding'),
      roles: [],
      roleBindings: [],
    };
    if (namespace) {
      const [roles, bindings] = await Promise.all([
        this.inNamespace(ctx, 'roles', namespace),
        this.inNamespace(ctx, 'rolebindings', namespace),
      ]);
      objects.roles = own(ctx, roles, 'Role');
      objects.roleBindings = own(ctx, bindings, 'RoleBinding');
    }
    return objects;
  }

  /** The ClusterRoles under the tenant's prefix: from the cluster, a list of all of them. */
  private async clusterRolesOf(ctx: TenantContext): Promise<Json[]> {
    const rbac = this.informersFor(ctx.tenantId, 'clusterroles');
    if (rbac) return rbac.clusterRolesOf(ctx.tenantId).map(parsedObject);
    const all = await this.items(`${RBAC_V1}/clusterroles`);
    return all.filter((item) => hasPrefix(ctx, String(item.metadata?.name ?? '')));
  }

  /** A namespace that does not exist (or a name that is none) has no roles: not an error. */
  private async inNamespace(
    ctx: TenantContext,
    resource: 'roles' | 'rolebindings',
    namespace: string,
  ): Promise<Json[]> {
    const upstream = addPrefix(ctx, namespace);
    const rbac = this.informersFor(ctx.tenantId, resource);
    if (rbac) return rbac.inNamespace(resource, upstream).map(parsedObject);
    return this.items(`${RBAC_V1}/namespaces/${encodeURIComponent(upstream)}/${resource}`, true);
  }

  /** The informers, where they may answer for the tenant's objects of `resource`. */
  private informersFor(tenantId: string, resource: RbacResource): RbacChangeFeed | undefined {
    const rbac = this.rbac;
    return rbac?.isCurrent() && this.pending.allSeen(tenantId, rbac, resource) ? rbac : undefined;
  }

  private async items(path: string, missingIsEmpty = false): Promise<Json[]> {
    const res = await this.api.request('GET', path);
    if (missingIsEmpty && res.status >= 400 && res.status < 500) return [];
    return expectStatus(res, `reading ${path}`, 200).body?.items ?? [];
  }
}

/** The items that are the tenant's, in its view (list items carry no type: it is given). */
function own(ctx: TenantContext, items: Json[], kind: string): Json[] {
  return items.flatMap((item) => {
    const converted = objectDown(ctx, { apiVersion: `${RBAC}/v1`, kind, ...item });
    return converted ? [converted] : [];
  });
}

/** The user as the tenant's RBAC names it: `alice` for `<tid>-alice`, its groups, and `system:authenticated`. */
export function tenantUserInfo(ctx: TenantContext, who: TenantUser): { name: string; groups: string[] } {
  const name = tenantUserName(who);
  return {
    name: name === who.user ? (stripPrefix(ctx, who.user) ?? who.user) : name,
    groups: who.exactGroups ? who.groups : [...new Set([...who.groups, 'system:authenticated'])],
  };
}
