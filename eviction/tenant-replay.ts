/**
 * What an eviction replays of a tenant on its new cluster: the tenant's objects from the gateway's
 * cache of the failed cluster, as the bodies to POST there, in an order each step can be created
 * in. Pure: the caller reads the cache (`JSON.parse` of each CachedObject's text) and sends the
 * steps. The rules are those of a restore as Velero and Karmada make one:
 *
 * - Order: CRDs first (their custom objects need the resource), then Namespaces (everything
 *   namespaced needs its namespace), then ServiceAccounts (a pod naming a missing one is refused
 *   by the ServiceAccount admission plugin; Velero restores them before pods too), then the rest,
 *   by resource as given and then by key.
 * - Skipped: objects a controller owns (the controller, replayed itself, makes them again), objects
 *   being deleted (the tenant asked them gone), and what the new cluster makes by itself and would
 *   refuse as a duplicate: each namespace's ServiceAccount `default` and ConfigMap
 *   `kube-root-ca.crt`, service-account token Secrets, Endpoints and EndpointSlices (made from
 *   Services), Events.
 * - Dropped: what the old cluster assigned and would be wrong or refused on the new one: uid,
 *   resourceVersion, timestamps, generation, managedFields, ownerReferences (their uids name old
 *   objects), status (the new cluster computes it), Services' allocated cluster IPs (a headless
 *   `None` is the user's choice and stays) and node ports, a Pod's node, a PersistentVolumeClaim's
 *   volume and the annotations that record its binding.
 */
import { isObject, type Json } from '../apiserver/json.js';
import { storeKey } from '../informer/key-func.js';
import { typeMetaOf, type CacheResource } from '../search/cluster-resource-store.js';
import { hasPrefix, tenantPrefix } from '../translate/context.js';

/** The objects of one resource on the failed cluster, as the cache holds them, parsed. */
export interface ReplaySource {
  readonly resource: CacheResource;
  readonly objects: Iterable<unknown>;
}

/** One object to create on the new cluster. */
export interface ReplayStep {
  readonly resource: CacheResource;
  /** '' for a cluster-scoped object. */
  readonly namespace: string;
  readonly name: string;
  /** What to POST. */
  readonly body: Json;
}

const CRD_GROUP = 'apiextensions.k8s.io';

/** `<group>/<resource>` of the resources whose objects the new cluster makes by itself. */
const MADE_BY_THE_CLUSTER: ReadonlySet<string> = new Set([
  '/endpoints',
  'discovery.k8s.io/endpointslices',
  '/events',
  'events.k8s.io/events',
]);

/** Set by the old cluster's metadata machinery: meaningless, or refused, on the new one. */
const ASSIGNED_METADATA = [
  'uid',
  'resourceVersion',
  'managedFields',
  'creationTimestamp',
  'generation',
  'selfLink',
  'deletionGracePeriodSeconds',
  // Objects with a controller are not replayed, so what is left names owners by old uids.
  'ownerReferences',
] as const;

/** The PV controller's and scheduler's record of a claim's binding on the old cluster. */
const BINDING_ANNOTATIONS = [
  'pv.kubernetes.io/bind-completed',
  'pv.kubernetes.io/bound-by-controller',
  'volume.kubernetes.io/selected-node',
] as const;

/** The objects of `source` that are the tenant's: in its namespaces, or named (CRDs: grouped) with its prefix. */
export function tenantObjects(tenantId: string, source: ReplaySource): Json[] {
  const tenant = tenantPrefix(tenantId);
  const { resource } = source;
  const prefixedValue = (object: Json): unknown =>
    resource.namespaced ? object.metadata.namespace : isCrds(resource) ? object.spec?.group : object.metadata.name;
  return [...source.objects].filter((object): object is Json => {
    if (!isObject(object) || !isObject(object.metadata)) return false;
    const value = prefixedValue(object);
    return typeof value === 'string' && hasPrefix(tenant, value);
  });
}

/** The steps that recreate the tenant's objects of `sources` on a new cluster, in the order to take them. */
export function replayPlan(tenantId: string, sources: Iterable<ReplaySource>): ReplayStep[] {
  const steps = [...sources].flatMap((source) =>
    tenantObjects(tenantId, source)
      .filter((object) => replayed(source.resource, object))
      .map((object) => replayStep(source.resource, object))
      .sort((a, b) => compareKeys(keyOf(a), keyOf(b))),
  );
  // A stable sort: within a phase, the sources' order and each source's key order stay.
  return steps.sort((a, b) => replayPhaseOf(a.resource) - replayPhaseOf(b.resource));
}

function isCrds(resource: CacheResource): boolean {
  return resource.group === CRD_GROUP && resource.resource === 'customresourcedefinitions';
}

/** Which phase of a replay a resource's objects are created in: each phase needs what the ones before made. */
export function replayPhaseOf(resource: CacheResource): number {
  if (isCrds(resource)) return 0;
  if (resource.group === '' && resource.resource === 'namespaces') return 1;
  if (resource.group === '' && resource.resource === 'serviceaccounts') return 2;
  return 3;
}

/** How many phases a replay has (replayPhaseOf). */
export const REPLAY_PHASES = 4;

function replayed(resource: CacheResource, object: Json): boolean {
  const meta = object.metadata;
  const ownedByController =
    Array.isArray(meta.ownerReferences) &&
    meta.ownerReferences.some((ref: unknown) => isObject(ref) && ref.controller === true);
  if (ownedByController || meta.deletionTimestamp != null) return false;
  if (MADE_BY_THE_CLUSTER.has(`${resource.group}/${resource.resource}`)) return false;
  if (resource.group !== '') return true;
  switch (resource.resource) {
    case 'serviceaccounts':
      return meta.name !== 'default';
    case 'configmaps':
      return meta.name !== 'kube-root-ca.crt';
    case 'secrets':
      return object.type !== 'kubernetes.io/service-account-token';
    default:
      return true;
  }
}

function replayStep(resource: CacheResource, object: Json): ReplayStep {
  const { status: _status, ...copy } = structuredClone(object);
  const type = typeMetaOf(resource);
  const body: Json = { apiVersion: type.apiVersion, kind: type.kind, ...copy };
  for (const field of ASSIGNED_METADATA) delete body.metadata[field];
  if (resource.group === '' && isObject(body.spec)) clearAllocations(resource.resource, body);
  const namespace = resource.namespaced ? body.metadata.namespace : '';
  return { resource, namespace, name: body.metadata.name, body };
}

/** Removes from a core object's copy what the old cluster allocated to it. */
function clearAllocations(resource: string, body: Json): void {
  const spec = body.spec;
  switch (resource) {
    case 'services': {
      // `None` (then in clusterIPs too) is the user's choice of a headless Service; any other IP was allocated.
      if (spec.clusterIP !== 'None') {
        delete spec.clusterIP;
        delete spec.clusterIPs;
      }
      delete spec.healthCheckNodePort;
      if (Array.isArray(spec.ports)) for (const port of spec.ports) if (isObject(port)) delete port.nodePort;
      return;
    }
    case 'pods':
      delete spec.nodeName;
      return;
    case 'persistentvolumeclaims':
      delete spec.volumeName;
      if (isObject(body.metadata.annotations))
        for (const annotation of BINDING_ANNOTATIONS) delete body.metadata.annotations[annotation];
      return;
  }
}

function keyOf(step: ReplayStep): string {
  return storeKey(step.namespace, step.name);
}

/** By UTF-16 code units, as the cache orders its keys. */
function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
