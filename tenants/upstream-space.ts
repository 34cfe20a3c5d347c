import { expectStatus } from '../apiserver/client/rest-client.js';
import type { Json } from '../apiserver/json.js';
import { addPrefix, stripPrefix, tenantPrefix } from '../translate/context.js';
import { dormantRoleName } from '../translate/kinds/rbac.js';
import { storedBindingsNamespace, storedBindingUp } from '../translate/kinds/stored-cluster-role-binding.js';
import { TENANT_LABEL } from '../translate/kinds/tenant-label.js';
import type { HostPort } from '../apiserver/host-port.js';
import { kubernetesServiceNamespace, kubernetesServiceObjects } from './kubernetes-service.js';
import { applyGrants, desiredGrants, type UpstreamApi } from './tenant-grants.js';
import type { TenantSpaceView } from './tenant-space-informers.js';

const RBAC_V1 = '/apis/rbac.authorization.k8s.io/v1';

/** The namespaces every tenant starts with, as in a fresh cluster. */
export const TENANT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** The tenant's own administrator role, ClusterRole `<tid>-cluster-admin` (the tenant sees `cluster-admin`). */
export const TENANT_ADMIN_ROLE = 'cluster-admin';

/** The tenant's own administrator, User `<tid>-admin` upstream: the user of the kubeconfig the controller issues. */
export function tenantAdminUser(tenantId: string): string {
  return addPrefix(tenantPrefix(tenantId), 'admin');
}

/** What ensureTenantSpace makes, as `resource/namespace/name` (namespace '' for cluster-scoped): a replay need not send them again. */
export function tenantSpaceObjects(tenantId: string, api?: HostPort): Set<string> {
  const namespaces = TENANT_NAMESPACES.map((namespace) => addPrefix(tenantPrefix(tenantId), namespace));
  const made = new Set(namespaces.map((name) => `namespaces//${name}`));
  made.add(`clusterroles//${adminRole(tenantId).metadata.name}`);
  const stored = storedAdminBinding(tenantId);
  made.add(`rolebindings/${stored.metadata.namespace}/${stored.metadata.name}`);
  for (const grant of desiredGrants(tenantId, [adminBinding(tenantId)], namespaces).values())
    made.add(`rolebindings/${grant.metadata.namespace}/${grant.metadata.name}`);
  for (const { key } of kubernetesServiceObjects(tenantId, api)) made.add(key);
  return made;
}

/**
 * The tenant's space on its upstream cluster: its namespaces (labelled with the tenant id), a
 * cluster-admin ClusterRole, a dormant binding of it to User `<tid>-admin` (the tenant's own
 * administrator; stored as a RoleBinding in its kube-system, as all its ClusterRoleBindings are:
 * translate/kinds/stored-cluster-role-binding.ts), and the grants that binding means in each
 * namespace (tenant-grants.ts), and, given where its pods reach the gateway, the `kubernetes`
 * Service and EndpointSlice of its `default` namespace (kubernetes-service.ts). Every step
 * tolerates "already exists", so running it again finishes what a crash interrupted.
 */
export async function ensureTenantSpace(client: UpstreamApi, tenantId: string, api?: HostPort): Promise<void> {
  const namespaces = TENANT_NAMESPACES.map((namespace) => addPrefix(tenantPrefix(tenantId), namespace));
  // Nothing here depends on anything else here (a binding may name a role not yet made), so all of it goes at once.
  await Promise.all([
    ...namespaces.map((name) => createNamespace(client, tenantId, name)),
    create(client, `${RBAC_V1}/clusterroles`, adminRole(tenantId)),
  ]);
  // Stored in the tenant's kube-system, made just now.
  await createStoredBinding(client, tenantId, adminBinding(tenantId));
  // Only the admin binding's grants: listing the cluster's bindings for each new tenant would make
  // creating the 10,000th tenant cost as many reads; anything else is the heal pass's.
  const grants = desiredGrants(tenantId, [adminBinding(tenantId)], namespaces);
  await Promise.all([
    ...[...grants.values()].map((grant) =>
      create(
        client,
        `${RBAC_V1}/namespaces/${grant.metadata.namespace}/rolebindings`,
        grant as { metadata: { name: string } },
      ),
    ),
    ...kubernetesServiceObjects(tenantId, api).map(({ collection, object }) => create(client, collection, object)),
  ]);
}

/**
 * The grants a failover's replay calls for, once it wrote the tenant's namespaces and
 * ClusterRoleBindings (`bindings`) into the space ensureTenantSpace made: those of the admin
 * binding and of `bindings` in every namespace of the tenant there. Made from what the replay
 * wrote, not from lists of the cluster, for the reason ensureTenantSpace gives; the heal pass
 * makes right anything else.
 */
export async function grantReplayedSpace(
  client: UpstreamApi,
  tenantId: string,
  bindings: readonly Json[],
  namespaces: readonly string[],
): Promise<number> {
  const spaceNamespaces = TENANT_NAMESPACES.map((namespace) => addPrefix(tenantPrefix(tenantId), namespace));
  const madeWithTheSpace = desiredGrants(tenantId, [adminBinding(tenantId)], spaceNamespaces);
  const desired = desiredGrants(
    tenantId,
    [adminBinding(tenantId), ...bindings],
    [...new Set([...spaceNamespaces, ...namespaces])],
  );
  return applyGrants(client, desired, madeWithTheSpace);
}

function adminRole(tenantId: string) {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: addPrefix(tenantPrefix(tenantId), TENANT_ADMIN_ROLE), labels: { [TENANT_LABEL]: tenantId } },
    rules: [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ],
  };
}

/** The stored form of the admin binding: a RoleBinding in the tenant's kube-system. */
export function storedAdminBinding(tenantId: string) {
  return storedBindingUp(tenantPrefix(tenantId), adminBinding(tenantId)) as ReturnType<typeof adminBinding> & {
    metadata: { namespace: string };
  };
}

/** A ClusterRoleBinding in its upstream form made where it is stored; true when it made it, false when it was there. */
async function createStoredBinding(client: UpstreamApi, tenantId: string, binding: Json): Promise<boolean> {
  const stored = storedBindingUp(tenantPrefix(tenantId), binding) as { metadata: { name: string; namespace: string } };
  return create(client, `${RBAC_V1}/namespaces/${encodeURIComponent(stored.metadata.namespace)}/rolebindings`, stored);
}

/** The dormant binding of the tenant's admin role to User `<tid>-admin`, in its upstream form (a ClusterRoleBinding). */
export function adminBinding(tenantId: string) {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: addPrefix(tenantPrefix(tenantId), TENANT_ADMIN_ROLE) },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: dormantRoleName(tenantId, TENANT_ADMIN_ROLE),
    },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: tenantAdminUser(tenantId) }],
  };
}

/**
 * Heals the spaces of the given (Active) tenants on one cluster, from what `view` holds of it (the
 * cluster's informers: tenant-space-informers.ts): a deleted `<tid>-cluster-admin` role or binding
 * is made again, a ClusterRoleBinding of the tenant's still at the cluster scope (made before they
 * were stored as RoleBindings) is moved to where they are stored, a live binding of the tenant's
 * (made before bindings were dormant) is made dormant, and every tenant's grants are made right.
 * Given where its pods reach
 * the gateway (`api`), a tenant's `kubernetes` Service that is not there is made again, with its
 * EndpointSlice, as kube-apiserver's reconciler makes its own again (and a tenant made before
 * they were has them).
 * Returns how many writes it made.
 */
export async function healTenantSpaces(
  client: UpstreamApi,
  view: TenantSpaceView,
  tenantIds: readonly string[],
  api?: HostPort,
): Promise<number> {
  const counts = await Promise.all(
    tenantIds.map(async (tenantId) => {
      let writes = 0;
      const tenant = tenantPrefix(tenantId);
      if (
        !view.hasClusterRole(addPrefix(tenant, TENANT_ADMIN_ROLE)) &&
        (await create(client, `${RBAC_V1}/clusterroles`, adminRole(tenantId)))
      )
        writes++;
      // Where its ClusterRoleBindings are stored: a kube-system deleted past the gateway is made again.
      const store = storedBindingsNamespace(tenant);
      if (!view.namespacesOf(tenantId).includes(store) && (await createNamespace(client, tenantId, store))) writes++;
      const own = [...view.clusterRoleBindingsOf(tenantId)];
      // Made before the tenant's ClusterRoleBindings were stored as RoleBindings: moved there.
      for (const binding of view.unstoredClusterRoleBindingsOf(tenantId)) {
        if (own.some((stored) => stored.metadata?.name === binding.metadata?.name)) continue;
        own.push(await moveToStore(client, tenantId, binding));
        writes++;
      }
      if (!own.some((binding) => binding.metadata.name === addPrefix(tenant, TENANT_ADMIN_ROLE))) {
        const made = adminBinding(tenantId);
        if (await createStoredBinding(client, tenantId, made)) writes++;
        own.push(made);
      }
      for (const [index, binding] of own.entries()) {
        const role = stripPrefix(tenant, String(binding.roleRef?.name ?? ''));
        if (binding.roleRef?.kind !== 'ClusterRole' || role === null) continue;
        own[index] = await makeDormant(client, tenantId, binding, role);
        writes++;
      }
      const namespaces = view.namespacesOf(tenantId);
      writes += await applyGrants(client, desiredGrants(tenantId, own, namespaces), view.grantsOf(tenantId));
      // In a default namespace being deleted it would only be refused.
      if (!view.hasKubernetesService(tenantId) && namespaces.includes(kubernetesServiceNamespace(tenantId)))
        for (const { collection, object } of kubernetesServiceObjects(tenantId, api))
          if (await create(client, collection, object)) writes++;
      return writes;
    }),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

/** A roleRef cannot change: the live binding (of the tenant's `role`) is deleted and made again, dormant, where it is stored. */
async function makeDormant(
  client: UpstreamApi,
  tenantId: string,
  binding: Record<string, any>,
  role: string,
): Promise<Record<string, any>> {
  const stored = storedBindingUp(tenantPrefix(tenantId), binding);
  const path = `${RBAC_V1}/namespaces/${encodeURIComponent(stored.metadata.namespace)}/rolebindings/${encodeURIComponent(stored.metadata.name)}`;
  expectStatus(await client.request('DELETE', path), `deleting ${path}`, 200, 404);
  const dormant = {
    ...withoutServerFields(binding),
    roleRef: { ...binding.roleRef, name: dormantRoleName(tenantId, role) },
  };
  await createStoredBinding(client, tenantId, dormant);
  return dormant;
}

/**
 * A ClusterRoleBinding `<tid>-…` at the cluster scope, from before they were stored as
 * RoleBindings: made where it is stored (dormant by makeDormant after, if it was live), then
 * deleted, so it costs every request upstream nothing more.
 */
async function moveToStore(
  client: UpstreamApi,
  tenantId: string,
  binding: Record<string, any>,
): Promise<Record<string, any>> {
  const moved = withoutServerFields(binding);
  await createStoredBinding(client, tenantId, moved);
  const path = `${RBAC_V1}/clusterrolebindings/${encodeURIComponent(binding.metadata.name)}`;
  expectStatus(await client.request('DELETE', path), `deleting ${path}`, 200, 404);
  return moved;
}

/** What a binding is made again from: its name, labels, annotations, roleRef and subjects. */
function withoutServerFields(binding: Record<string, any>): Record<string, any> {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: {
      name: binding.metadata.name,
      labels: binding.metadata.labels,
      annotations: binding.metadata.annotations,
    },
    roleRef: binding.roleRef,
    subjects: binding.subjects,
  };
}

function createNamespace(client: UpstreamApi, tenantId: string, name: string): Promise<boolean> {
  return create(client, '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { [TENANT_LABEL]: tenantId } },
  });
}

/** true when it made the object, false when it was there already. */
async function create(
  client: UpstreamApi,
  path: string,
  object: { metadata: { name: string; [field: string]: unknown }; [field: string]: unknown },
): Promise<boolean> {
  const res = await client.request('POST', path, object);
  return expectStatus(res, `creating ${path}/${object.metadata.name}`, 201, 409).status === 201;
}

/** What of a tenant is still on its cluster, as `resource/name` (`namespaces/ab12cd-default`). */
export type Leftovers = string[];

/**
 * Deletes everything of the tenant on its cluster — its CRDs (group `<tid>-…`) first, so their
 * objects go with them, then every cluster-scoped object named `<tid>-…` of every listable,
 * deletable cluster-scoped kind the cluster's discovery reports (namespaces among them, which
 * takes their contents) — and returns what is still there. Called until nothing is left.
 */
export async function removeTenantSpace(client: UpstreamApi, tenantId: string): Promise<Leftovers> {
  return (await removeTenantSpaces(client, [tenantId])).get(tenantId) ?? [];
}

/**
 * removeTenantSpace for several tenants of one cluster at once: the cluster's CRDs, discovery and
 * cluster-scoped lists are read once for all of them (moving many tenants off a cluster purges
 * them together), and each tenant's leftovers come back by its id.
 */
export async function removeTenantSpaces(
  client: UpstreamApi,
  tenantIds: readonly string[],
): Promise<Map<string, Leftovers>> {
  const leftovers = new Map<string, Set<string>>(tenantIds.map((id) => [id, new Set<string>()]));
  const ownerOf = (name: string) => {
    const dash = name.indexOf('-');
    return dash > 0 ? leftovers.get(name.slice(0, dash)) : undefined;
  };
  const crds = expectStatus(
    await client.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'),
    'listing CRDs',
    200,
    404,
  );
  for (const crd of crds.body?.items ?? []) {
    const owner = ownerOf(String(crd.spec?.group ?? ''));
    if (!owner) continue;
    owner.add(`customresourcedefinitions/${crd.metadata.name}`);
    if (!crd.metadata.deletionTimestamp)
      await remove(client, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
  }
  for (const path of await clusterScopedCollections(client)) {
    const list = await client.request('GET', path);
    if (list.status !== 200) continue;
    for (const object of list.body?.items ?? []) {
      const name: string = object.metadata?.name ?? '';
      const owner = ownerOf(name);
      if (!owner) continue;
      owner.add(`${path.split('/').pop()}/${name}`);
      if (!object.metadata.deletionTimestamp) await remove(client, `${path}/${encodeURIComponent(name)}`);
    }
  }
  return new Map([...leftovers].map(([id, left]) => [id, [...left]]));
}

async function remove(client: UpstreamApi, path: string): Promise<void> {
  expectStatus(
    await client.request('DELETE', path, { propagationPolicy: 'Background' }),
    `deleting ${path}`,
    200,
    202,
    404,
    409,
  );
}

/** Collection paths of the cluster-scoped kinds that can be listed and deleted, from discovery. */
async function clusterScopedCollections(client: UpstreamApi): Promise<string[]> {
  const groupVersions = ['/api/v1'];
  const groups = expectStatus(await client.request('GET', '/apis'), 'discovery', 200);
  for (const group of groups.body?.groups ?? []) {
    if (group.name === 'apiextensions.k8s.io') continue;
    groupVersions.push(`/apis/${group.preferredVersion?.groupVersion ?? group.versions?.[0]?.groupVersion}`);
  }
  const paths: string[] = [];
  for (const groupVersion of groupVersions) {
    const list = await client.request('GET', groupVersion);
    if (list.status !== 200) continue;
    for (const resource of list.body?.resources ?? []) {
      if (resource.namespaced || String(resource.name).includes('/')) continue;
      const verbs: string[] = resource.verbs ?? [];
      if (verbs.includes('list') && verbs.includes('delete')) paths.push(`${groupVersion}/${resource.name}`);
    }
  }
  return paths;
}
