/**
 * Whether a failover replays one of the tenant's objects on its new cluster, and how: through the
 * checks the tenant's own write of it through the gateway meets. The object may never have met
 * them: a tenant can write to its namespaces upstream directly, with a ServiceAccount token of its
 * own, and what it planted there (a RoleBinding granting `cluster-admin` to every authenticated
 * user, one naming another tenant's role) would otherwise be copied to the new cluster by the
 * gateway, as the gateway (docs/isolation.md). Pure: the caller writes what is admitted
 * (replay-writes.ts).
 *
 * - The gateway's grants (RoleBindings `paddock:…`) are not copied: the gateway makes the grants
 *   the tenant's bindings call for on the new cluster, as it does after a tenant's write.
 * - The object must be the tenant's in its own view (not foreign down), keep every invariant of
 *   its kind as stored (or one the gateway would make hold, as of a patch's result), and the
 *   tenant's create of what it sees of it must go through: the request (translate/request.ts: no
 *   shared or admin kinds) and the body (storedObjectUp, the check gateway/proxy/body-up.ts applies).
 *   The stored object is checked besides what the tenant sees of it, since the down conversion
 *   drops what is not the tenant's (a subject of another tenant) rather than show it.
 * - What is written is that create's body; cluster-scoped objects go with the gateway's
 *   credentials, as the tenant's cluster-scoped writes do, namespaced ones as the tenant's
 *   administrator, so the new cluster's RBAC decides them as it decides the tenant's writes.
 */
import type { Json } from '../apiserver/json.js';
import type { CacheResource } from '../search/cluster-resource-store.js';
import { groupDown, stripPrefix, tenantPrefix, type KindScope, type TenantContext } from '../translate/context.js';
import { GRANT_NAME_PREFIX } from '../translate/kinds/rbac.js';
import {
  isStoredBindingName,
  storedBindingDown,
  storedBindingsNamespace,
  storedBindingUp,
} from '../translate/kinds/stored-cluster-role-binding.js';
import { objectDown } from '../translate/objects.js';
import { requestUp } from '../translate/request.js';
import { normalizedStored, storedObjectUp, type StoredType } from '../translate/stored-object.js';
import { writeBodyType } from '../translate/write-body.js';
import type { ReplayStep } from './tenant-replay.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export type ReplayAdmission =
  /** POST `body` to `path`, with the gateway's credentials or as the tenant's administrator. */
  | { readonly verdict: 'write'; readonly path: string; readonly body: Json; readonly as: 'gateway' | 'tenant-admin' }
  /** One of the gateway's grants: made again from the tenant's bindings, not copied. */
  | { readonly verdict: 'remake' }
  /** What the tenant's own write would be refused: not replayed, and reported. */
  | { readonly verdict: 'skip'; readonly reason: string };

export function admitReplay(ctx: TenantContext, step: ReplayStep): ReplayAdmission {
  const { resource, body } = step;
  if (resource.group === RBAC_GROUP && resource.resource === 'rolebindings' && step.name.startsWith(GRANT_NAME_PREFIX))
    return { verdict: 'remake' };
  if (resource.group === RBAC_GROUP && resource.resource === 'rolebindings' && isStoredBindingName(step.name))
    return admitStoredBinding(ctx, step);
  // A convertor's throw on a malformed object is that object's refusal: the rest of the move goes on.
  try {
    const group = groupDown(ctx, resource.group);
    const namespace = step.namespace === '' ? '' : stripPrefix(ctx, step.namespace);
    const seen = objectDown(ctx, body);
    if (group === null || namespace === null || seen === null)
      return skip("it is not the tenant's: it names what belongs to another tenant or to the cluster");
    const base = group === '' ? `/api/${resource.version}` : `/apis/${group}/${resource.version}`;
    const t = requestUp(
      ctx,
      'POST',
      `${base}${namespace ? `/namespaces/${namespace}` : ''}/${resource.resource}`,
      new URLSearchParams(),
    );
    const bodyType = t && writeBodyType(t);
    if (!t || !bodyType) return skip('it is no object a tenant creates');
    const type: StoredType = { group: bodyType.group, kind: bodyType.kind, name: seen.metadata?.name };
    normalizedStored(ctx, type, body);
    const made = storedObjectUp(ctx, type, seen);
    // A ClusterRoleBinding (one cached at the cluster scope, made before they were stored as RoleBindings) goes where they are stored.
    if (resource.group === RBAC_GROUP && resource.resource === 'clusterrolebindings')
      return { verdict: 'write', path: storedBindingsCollection(ctx), body: storedBindingUp(ctx, made), as: 'gateway' };
    return { verdict: 'write', path: t.path, body: made, as: t.namespaced ? 'tenant-admin' : 'gateway' };
  } catch (err) {
    return skip(err instanceof Error ? err.message : String(err));
  }
}

/**
 * A ClusterRoleBinding of the tenant's as stored (a RoleBinding in its kube-system:
 * translate/kinds/stored-cluster-role-binding.ts): admitted as the tenant's create of the
 * ClusterRoleBinding would be (and written, as that is, where it is stored, with the gateway's
 * credentials).
 */
function admitStoredBinding(ctx: TenantContext, step: ReplayStep): ReplayAdmission {
  const binding = storedBindingDown(ctx, {
    kind: 'RoleBinding',
    apiVersion: `${RBAC_GROUP}/v1`,
    ...structuredClone(step.body),
  });
  if (binding === null)
    return skip("it is not the tenant's: it names what belongs to another tenant or to the cluster");
  // The cache's kinds are those it held: a ClusterRoleBinding is known by what it is stored as.
  const kinds: KindScope = {
    kindIsNamespaced: (group, kind) =>
      group === RBAC_GROUP && kind === 'ClusterRoleBinding' ? false : ctx.kinds.kindIsNamespaced(group, kind),
    resourceIsNamespaced: (group, resource) =>
      group === RBAC_GROUP && resource === 'clusterrolebindings'
        ? false
        : ctx.kinds.resourceIsNamespaced(group, resource),
    kindOf: (group, resource) =>
      group === RBAC_GROUP && resource === 'clusterrolebindings'
        ? 'ClusterRoleBinding'
        : ctx.kinds.kindOf(group, resource),
  };
  const admitted = admitReplay(
    { ...ctx, kinds },
    {
      resource: { ...step.resource, resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false },
      namespace: '',
      name: String(binding.metadata.name),
      body: binding,
    },
  );
  return admitted;
}

function storedBindingsCollection(ctx: TenantContext): string {
  return `/apis/${RBAC_GROUP}/v1/namespaces/${storedBindingsNamespace(ctx)}/rolebindings`;
}

function skip(reason: string): ReplayAdmission {
  return { verdict: 'skip', reason };
}

/**
 * What the tenant's conversion knows of kinds during a replay: the resources the cache held of the
 * old cluster (every replayed object is of one), in the tenant's view; other tenants' custom
 * resources are unknown to it, as they are to its requests.
 */
export function replayKindScope(tenantId: string, resources: Iterable<CacheResource>): KindScope {
  const tenant = tenantPrefix(tenantId);
  const byResource = new Map<string, { kind: string; namespaced: boolean }>();
  const byKind = new Map<string, boolean>();
  for (const { group: upstreamGroup, resource, kind, namespaced } of resources) {
    const group = groupDown(tenant, upstreamGroup);
    if (group === null) continue;
    byResource.set(`${group}/${resource}`, { kind, namespaced });
    byKind.set(`${group}/${kind}`, namespaced);
  }
  return {
    kindIsNamespaced: (group, kind) => byKind.get(`${group}/${kind}`),
    resourceIsNamespaced: (group, resource) => byResource.get(`${group}/${resource}`)?.namespaced,
    kindOf: (group, resource) => byResource.get(`${group}/${resource}`)?.kind,
  };
}
