import { expectStatus, type RestClient } from '../apiserver/client/rest-client.js';
import { TENANT_LABEL } from './tenant-resource.js';

/** The namespaces every tenant starts with, as in a fresh cluster. */
export const TENANT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/**
 * The tenant's space on its upstream cluster: its namespaces and a cluster-admin ClusterRole
 * (labelled with the tenant id) bound to User `<tid>-admin`, the tenant's own administrator. Every
 * step tolerates "already exists", so running it again finishes what a crash interrupted.
 */
export async function ensureTenantSpace(client: RestClient, tenantId: string): Promise<void> {
  const prefix = `${tenantId}-`;
  // Nothing here depends on anything else here (a binding may name a role not yet made), so all of it goes at once.
  await Promise.all([
    ...TENANT_NAMESPACES.map((namespace) =>
      create(client, '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: prefix + namespace, labels: { [TENANT_LABEL]: tenantId } },
      }),
    ),
    create(client, '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      // Labelled as every tenant ClusterRole is, so the tenant's aggregation selectors can select it.
      metadata: { name: `${prefix}cluster-admin`, labels: { [TENANT_LABEL]: tenantId } },
      rules: [
        { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
        { nonResourceURLs: ['*'], verbs: ['*'] },
      ],
    }),
    create(client, '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${prefix}cluster-admin` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${prefix}cluster-admin` },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `${prefix}admin` }],
    }),
  ]);
}

async function create(client: RestClient, path: string, object: { metadata: { name: string; [field: string]: unknown }; [field: string]: unknown }): Promise<void> {
  const res = await client.request('POST', path, object);
  expectStatus(res, `creating ${path}/${object.metadata.name}`, 201, 409);
}

/** What of a tenant is still on its cluster, as `resource/name` (`namespaces/ab12cd-default`). */
export type Leftovers = string[];

/**
 * Deletes everything of the tenant on its cluster — its CRDs (group `<tid>-…`) first, so their
 * objects go with them, then every cluster-scoped object named `<tid>-…` of every listable,
 * deletable cluster-scoped kind the cluster's discovery reports (namespaces among them, which
 * takes their contents) — and returns what is still there. Called until nothing is left.
 */
export async function removeTenantSpace(client: RestClient, tenantId: string): Promise<Leftovers> {
  const prefix = `${tenantId}-`;
  const leftovers: Leftovers = [];
  const crds = expectStatus(await client.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions'), 'listing CRDs', 200, 404);
  for (const crd of crds.body?.items ?? []) {
    if (!String(crd.spec?.group ?? '').startsWith(prefix)) continue;
    leftovers.push(`customresourcedefinitions/${crd.metadata.name}`);
    if (!crd.metadata.deletionTimestamp) await remove(client, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
  }
  for (const path of await clusterScopedCollections(client)) {
    const list = await client.request('GET', path);
    if (list.status !== 200) continue;
    for (const object of list.body?.items ?? []) {
      const name: string = object.metadata?.name ?? '';
      if (!name.startsWith(prefix)) continue;
      leftovers.push(`${path.split('/').pop()}/${name}`);
      if (!object.metadata.deletionTimestamp) await remove(client, `${path}/${encodeURIComponent(name)}`);
    }
  }
  return [...new Set(leftovers)];
}

async function remove(client: RestClient, path: string): Promise<void> {
  expectStatus(await client.request('DELETE', path, { propagationPolicy: 'Background' }), `deleting ${path}`, 200, 202, 404, 409);
}

/** Collection paths of the cluster-scoped kinds that can be listed and deleted, from discovery. */
async function clusterScopedCollections(client: RestClient): Promise<string[]> {
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
