/**
 * The gateway's own authorization of what the upstream no longer decides for tenants: requests
 * at the cluster scope (cluster-scoped kinds, and namespaced kinds across all namespaces). The
 * tenant's identities hold no cluster-wide rights upstream (tenants/tenant-grants.ts), so these
 * requests are decided here, by kube's RBAC rules (apiserver/authorization/rbac-authorizer.ts)
 * over the tenant's own ClusterRoles and ClusterRoleBindings in the tenant's view (the bindings read
 * from its `<tid>-kube-system`, where they are stored: translate/kinds/stored-cluster-role-binding.ts), and then sent
 * with the gateway's credentials. A request about one namespace object (`namespaces/<ns>`) also
 * counts the Roles and RoleBindings in that namespace, as kube does.
 */
import { RbacAuthorizer, type Decision, type RbacObjects } from '../../apiserver/authorization/rbac-authorizer.js';
import { RbacIndex } from '../../apiserver/authorization/rbac-index.js';
import type { Attributes } from '../../apiserver/authorization/attributes.js';
import { expectStatus } from '../../apiserver/client/rest-client.js';
import type { Json } from '../../apiserver/json.js';
import { objectDown } from '../../translate/objects.js';
import { addPrefix, hasPrefix, stripPrefix, tenantPrefix, type TenantContext } from '../../translate/context.js';
import { storedBindingDown, storedBindingsListPath } from '../../translate/kinds/stored-cluster-role-binding.js';
import type { UpstreamApi } from '../../tenants/tenant-grants.js';

const RBAC = 'rbac.authorization.k8s.io';
const RBAC_V1 = `/apis/${RBAC}/v1`;
/** How long one read of the cluster's ClusterRoles (of a tenant's bindings) serves every tenant's (its) decisions. */
const SNAPSHOT_TTL_MS = 1000;

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

interface Snapshot {
  clusterRoles: Json[];
  /** Each tenant's own, in its view, converted on first use: a decision costs O(the tenant's objects), not O(the cluster's). */
  byTenant: Map<string, Json[]>;
}

/** One tenant's ClusterRoleBindings as last read from where they are stored. */
interface BindingsRead {
  fetchedAt: number;
  /** In their upstream form (ClusterRoleBindings `<tid>-…`). */
  reading: Promise<Json[]>;
  /** The same in the tenant's view, converted on first use. */
  own?: Json[];
}

export class TenantAuthorizer {
  private snapshot: Promise<Snapshot> | undefined;
  private fetchedAt = 0;
  private readonly bindings = new Map<string, BindingsRead>();

  constructor(private readonly api: UpstreamApi) {}

  /** A tenant's RBAC object changed through this replica: the next decision reads the ClusterRoles and its bindings (every tenant's, with none given) again. */
  invalidate(tenantId?: string): void {
    this.snapshot = undefined;
    if (tenantId === undefined) this.bindings.clear();
    else this.bindings.delete(tenantId);
  }

  /** Something in the tenant's namespaces changed (its stored ClusterRoleBindings are there): its bindings are read again. */
  bindingsChanged(tenantId: string): void {
    this.bindings.delete(tenantId);
  }

  /**
   * The tenant's ClusterRoleBindings in their upstream form, as last read (at most a second old
   * unless invalidated) from the RoleBindings they are stored as
   * (translate/kinds/stored-cluster-role-binding.ts): one namespace's read, not the cluster's.
   */
  async clusterRoleBindingsOf(tenantId: string): Promise<Json[]> {
    return (await this.bindingsRead(tenantId)).reading;
  }

  async authorize(ctx: TenantContext, who: TenantUser, attributes: TenantAttributes): Promise<Decision> {
    const objects = RbacIndex.of(await this.objectsOf(ctx, attributes.namespace));
    return new RbacAuthorizer(() => objects).authorize({ ...attributes, user: tenantUserInfo(ctx, who) });
  }

  /** The tenant's RBAC objects in its own terms; Roles and RoleBindings only of `namespace`, if any. */
  private async objectsOf(ctx: TenantContext, namespace: string): Promise<RbacObjects> {
    const [snapshot, read] = await Promise.all([this.read(), this.bindingsRead(ctx.tenantId)]);
    let clusterRoles = snapshot.byTenant.get(ctx.tenantId);
    if (!clusterRoles) {
      clusterRoles = own(
        ctx,
        snapshot.clusterRoles.filter((item) => hasPrefix(ctx, String(item.metadata?.name ?? ''))),
        'ClusterRole',
      );
      snapshot.byTenant.set(ctx.tenantId, clusterRoles);
    }
    read.own ??= own(ctx, await read.reading, 'ClusterRoleBinding');
    const objects: RbacObjects = { clusterRoles, clusterRoleBindings: read.own, roles: [], roleBindings: [] };
    if (namespace) {
      const path = `${RBAC_V1}/namespaces/${encodeURIComponent(addPrefix(ctx, namespace))}`;
      // A namespace that does not exist (or a name that is none) has no roles: not an error.
      const [roles, bindings] = await Promise.all([
        this.items(`${path}/roles`, true),
        this.items(`${path}/rolebindings`, true),
      ]);
      objects.roles = own(ctx, roles, 'Role');
      objects.roleBindings = own(ctx, bindings, 'RoleBinding');
    }
    return objects;
  }

  private read(): Promise<Snapshot> {
    if (!this.snapshot || Date.now() - this.fetchedAt > SNAPSHOT_TTL_MS) {
      this.fetchedAt = Date.now();
      const reading = this.items(`${RBAC_V1}/clusterroles`).then((clusterRoles) => ({
        clusterRoles,
        byTenant: new Map(),
      }));
      reading.catch(() => {
        if (this.snapshot === reading) this.snapshot = undefined;
      });
      this.snapshot = reading;
    }
    return this.snapshot;
  }

  private async bindingsRead(tenantId: string): Promise<BindingsRead> {
    const known = this.bindings.get(tenantId);
    if (known && Date.now() - known.fetchedAt <= SNAPSHOT_TTL_MS) return known;
    const tenant = tenantPrefix(tenantId);
    const read: BindingsRead = {
      fetchedAt: Date.now(),
      // The tenant's kube-system gone (being made, or deleted past the gateway) holds none.
      reading: this.items(storedBindingsListPath(tenant), true).then((items) =>
        items.flatMap((item) => {
          const binding = storedBindingDown(tenant, { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', ...item });
          return binding ? [binding] : [];
        }),
      ),
    };
    read.reading.catch(() => {
      if (this.bindings.get(tenantId) === read) this.bindings.delete(tenantId);
    });
    this.bindings.set(tenantId, read);
    return read;
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
  return {
    name: stripPrefix(ctx, who.user) ?? who.user,
    groups: who.exactGroups ? who.groups : [...new Set([...who.groups, 'system:authenticated'])],
  };
}
