/**
 * The tenant's rights upstream, confined to its own namespaces (docs/isolation.md, "Least
 * privilege upstream").
 *
 * Upstream, a tenant's ClusterRoleBinding is stored as a RoleBinding in its `<tid>-kube-system`
 * (translate/kinds/stored-cluster-role-binding.ts), and is *dormant*: its roleRef names `<tid>:<role>`, a
 * ClusterRole that never exists (tenants can only make names `<tid>-…`), so kube's RBAC grants
 * nothing from it — not across namespaces, and not to a ServiceAccount token used against the
 * cluster directly. What the binding means inside the tenant is given by *grants*: in every
 * namespace of the tenant, one RoleBinding `paddock:<binding>` of the real ClusterRole
 * `<tid>-<role>` to the same subjects. A RoleBinding confines a ClusterRole's rules to its
 * namespace, so kube itself keeps the tenant inside. Cluster-scoped requests of tenants are
 * authorized by the gateway and sent with the gateway's credentials (gateway/auth/tenant-authorizer.ts).
 *
 * The gateway syncs a tenant's grants when it writes a binding or a namespace; the tenant
 * controller heals deleted or edited grants as its informers see them (upstream-space.ts).
 */
import { expectStatus, type RestResponse } from '../apiserver/client/rest-client.js';
import type { Json } from '../apiserver/json.js';
import { addPrefix, hasPrefix, stripPrefix, tenantPrefix, type TenantPrefix } from '../translate/context.js';
import {
  SERVICE_ACCOUNT_USER,
  SERVICE_ACCOUNTS_GROUP,
  TENANT_SCOPED_GROUPS,
} from '../translate/kinds/identity-names.js';
import { TENANT_LABEL } from '../translate/kinds/tenant-label.js';
import { GRANT_NAME_PREFIX as GRANT_PREFIX, roleOfDormantName } from '../translate/kinds/rbac.js';
import { clusterRoleBindingsStoredAs, storedBindingsListPath } from '../translate/kinds/stored-cluster-role-binding.js';

const RBAC = 'rbac.authorization.k8s.io';
const RBAC_V1 = `/apis/${RBAC}/v1`;

/** What the grants need of the upstream API: a JSON request with the gateway's own credentials. */
export interface UpstreamApi {
  request(method: string, path: string, body?: unknown): Promise<RestResponse>;
}

/**
 * The grant RoleBindings the tenant's dormant ClusterRoleBindings call for in its namespaces,
 * keyed `<namespace>/<name>`. The tenant's `system:serviceaccounts` and `system:authenticated`
 * groups (upstream `<tid>-system:…`) also stand for the ServiceAccounts of each of its
 * namespaces, so a binding to them holds for its tokens used against the cluster directly too.
 */
export function desiredGrants(
  tenantId: string,
  clusterRoleBindings: readonly Json[],
  namespaces: readonly string[],
): Map<string, Json> {
  const tenant = tenantPrefix(tenantId);
  const grants = new Map<string, Json>();
  const accountGroups = namespaces.map((namespace) => ({
    kind: 'Group',
    apiGroup: RBAC,
    name: SERVICE_ACCOUNTS_GROUP + namespace,
  }));
  for (const binding of clusterRoleBindings) {
    const name = stripPrefix(tenant, binding.metadata?.name ?? '');
    const role = roleOfDormantName(tenantId, binding.roleRef?.name ?? '');
    if (name === null || binding.roleRef?.kind !== 'ClusterRole' || role === null) continue;
    const subjects: Json[] = [];
    for (const subject of binding.subjects ?? []) {
      // Only the tenant's own identities: a binding written upstream by someone else, or before
      // system groups were the tenant's, grants no one outside the tenant through its namespaces.
      if (!isTenantSubject(tenant, subject)) continue;
      subjects.push(subject);
      if (subject.kind === 'Group' && TENANT_SCOPED_GROUPS.has(stripPrefix(tenant, String(subject.name)) ?? ''))
        subjects.push(...accountGroups);
    }
    for (const namespace of namespaces) {
      const grant = {
        apiVersion: `${RBAC}/v1`,
        kind: 'RoleBinding',
        metadata: { name: GRANT_PREFIX + name, namespace, labels: { [TENANT_LABEL]: tenantId } },
        roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: addPrefix(tenant, role) },
        subjects: dedupe(subjects),
      };
      grants.set(`${namespace}/${grant.metadata.name}`, grant);
    }
  }
  return grants;
}

function isTenantSubject(tenant: TenantPrefix, subject: Json): boolean {
  const name = String(subject.name ?? '');
  if (subject.kind === 'ServiceAccount') return hasPrefix(tenant, String(subject.namespace ?? ''));
  if (subject.kind === 'User') return hasPrefix(tenant, name) || name.startsWith(SERVICE_ACCOUNT_USER + tenant.prefix);
  if (subject.kind === 'Group')
    return hasPrefix(tenant, name) || name.startsWith(SERVICE_ACCOUNTS_GROUP + tenant.prefix);
  return false;
}

function dedupe(subjects: Json[]): Json[] {
  const seen = new Set<string>();
  return subjects.filter((subject) => {
    const key = `${subject.kind}/${subject.namespace ?? ''}/${subject.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Makes the grants upstream what `desired` says, given the grants there now (`existing`, keyed as
 * desired): creates the missing, re-creates the changed (a roleRef cannot change), deletes the
 * rest. Returns how many writes it made.
 */
export async function applyGrants(
  api: UpstreamApi,
  desired: Map<string, Json>,
  existing: Map<string, Json>,
): Promise<number> {
  const writes: Promise<void>[] = [];
  for (const [key, grant] of desired) {
    const current = existing.get(key);
    if (current && sameGrant(current, grant)) continue;
    writes.push(
      (async () => {
        if (current) await removeGrant(api, current);
        const res = await api.request(
          'POST',
          `${RBAC_V1}/namespaces/${encodeURIComponent(grant.metadata.namespace)}/rolebindings`,
          grant,
        );
        // 404: the namespace went away meanwhile; 409: another replica made it first.
        expectStatus(res, `granting ${key}`, 201, 404, 409);
      })(),
    );
  }
  for (const [key, current] of existing) if (!desired.has(key)) writes.push(removeGrant(api, current));
  await Promise.all(writes);
  return writes.length;
}

function sameGrant(a: Json, b: Json): boolean {
  return (
    a.roleRef?.name === b.roleRef.name &&
    JSON.stringify(a.subjects ?? []) === JSON.stringify(b.subjects) &&
    a.metadata?.labels?.[TENANT_LABEL] === b.metadata.labels[TENANT_LABEL]
  );
}

async function removeGrant(api: UpstreamApi, grant: Json): Promise<void> {
  const res = await api.request(
    'DELETE',
    `${RBAC_V1}/namespaces/${encodeURIComponent(grant.metadata.namespace)}/rolebindings/${encodeURIComponent(grant.metadata.name)}`,
  );
  expectStatus(res, `removing grant ${grant.metadata.namespace}/${grant.metadata.name}`, 200, 202, 404);
}

/** The grant RoleBindings upstream, of one tenant or (no id) of all, keyed `<namespace>/<name>`. */
export async function existingGrants(api: UpstreamApi, tenantId?: string): Promise<Map<string, Json>> {
  const selector = tenantId ? `${TENANT_LABEL}=${tenantId}` : TENANT_LABEL;
  const res = expectStatus(
    await api.request('GET', `${RBAC_V1}/rolebindings?labelSelector=${encodeURIComponent(selector)}`),
    'listing grants',
    200,
  );
  const grants = new Map<string, Json>();
  for (const binding of res.body?.items ?? []) {
    if (String(binding.metadata?.name).startsWith(GRANT_PREFIX))
      grants.set(`${binding.metadata.namespace}/${binding.metadata.name}`, binding);
  }
  return grants;
}

/**
 * The tenant's ClusterRoleBindings in their upstream form, read from the RoleBindings they are
 * stored as in its `<tid>-kube-system` (translate/kinds/stored-cluster-role-binding.ts): none
 * while that namespace is not there.
 */
export async function listClusterRoleBindings(api: UpstreamApi, tenantId: string): Promise<Json[]> {
  const tenant = tenantPrefix(tenantId);
  const res = expectStatus(
    await api.request('GET', storedBindingsListPath(tenant)),
    'listing clusterrolebindings',
    200,
    404,
  );
  return clusterRoleBindingsStoredAs(tenant, res.body?.items ?? []);
}

/** The tenant's namespaces upstream (by the tenant label, names under its prefix). */
export async function tenantNamespacesUpstream(api: UpstreamApi, tenantId?: string): Promise<string[]> {
  const selector = tenantId ? `${TENANT_LABEL}=${tenantId}` : TENANT_LABEL;
  const res = expectStatus(
    await api.request('GET', `/api/v1/namespaces?labelSelector=${encodeURIComponent(selector)}`),
    'listing namespaces',
    200,
  );
  return (res.body?.items ?? [])
    .filter((namespace: Json) => !namespace.metadata?.deletionTimestamp)
    .map((namespace: Json) => String(namespace.metadata?.name))
    .filter((name: string) => !tenantId || hasPrefix(tenantPrefix(tenantId), name));
}

/**
 * One tenant's grants made right in all its namespaces, reading what they depend on: what the
 * gateway does after writing a ClusterRoleBinding. `bindings`, when given, are the tenant's
 * ClusterRoleBindings (upstream form) as the caller already holds them.
 */
export async function syncTenantGrants(
  api: UpstreamApi,
  tenantId: string,
  bindings?: readonly Json[],
): Promise<number> {
  const [all, namespaces, existing] = await Promise.all([
    bindings ?? listClusterRoleBindings(api, tenantId),
    tenantNamespacesUpstream(api, tenantId),
    existingGrants(api, tenantId),
  ]);
  return applyGrants(api, desiredGrants(tenantId, all, namespaces), existing);
}

/** The grants of one namespace the tenant just made: what the gateway does after creating it, before answering. */
export async function grantNamespace(
  api: UpstreamApi,
  tenantId: string,
  namespace: string,
  bindings: readonly Json[],
): Promise<number> {
  const res = expectStatus(
    await api.request(
      'GET',
      `${RBAC_V1}/namespaces/${encodeURIComponent(namespace)}/rolebindings?labelSelector=${encodeURIComponent(`${TENANT_LABEL}=${tenantId}`)}`,
    ),
    'listing grants',
    200,
  );
  const existing = new Map<string, Json>(
    (res.body?.items ?? [])
      .filter((b: Json) => String(b.metadata?.name).startsWith(GRANT_PREFIX))
      .map((b: Json) => [`${namespace}/${b.metadata.name}`, b]),
  );
  return applyGrants(api, desiredGrants(tenantId, bindings, [namespace]), existing);
}
