import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { scaledValue } from './int-or-percent.js';
import { jsonEqual } from './pod-template-hash.js';
import { byCreation } from './workload-writes.js';

/**
 * The arithmetic of kube's deployment controller (pkg/controller/deployment/util), pure, over
 * Deployments and ReplicaSets as stored.
 */

export const POD_TEMPLATE_HASH = 'pod-template-hash';
export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';

/** Annotations a Deployment does not pass on to its ReplicaSets (nor takes back on rollback). */
export const ANNOTATIONS_NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  REVISION_HISTORY,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  'deployment.kubernetes.io/error-selector-overlapping-with',
  'deployment.kubernetes.io/selector-updated-at',
]);

export const replicasOf = (object: ApiObject | undefined): number => object?.spec?.replicas ?? 0;
const statusOf = (rs: ApiObject, field: string): number => rs.status?.[field] ?? 0;

export const sum = (sets: ApiObject[], count: (rs: ApiObject) => number) =>
  sets.reduce((total, rs) => total + count(rs), 0);
export const specReplicas = (sets: ApiObject[]) => sum(sets, replicasOf);
export const actualReplicas = (sets: ApiObject[]) => sum(sets, (rs) => statusOf(rs, 'replicas'));
export const readyReplicas = (sets: ApiObject[]) => sum(sets, (rs) => statusOf(rs, 'readyReplicas'));
export const availableReplicas = (sets: ApiObject[]) => sum(sets, (rs) => statusOf(rs, 'availableReplicas'));

export function revisionOf(object: ApiObject | undefined): number {
  return Number.parseInt(object?.metadata.annotations?.[REVISION] ?? '0', 10) || 0;
}

export const isRollingUpdate = (d: ApiObject) => d.spec?.strategy?.type !== 'Recreate';

/** ResolveFenceposts: maxSurge rounded up, maxUnavailable down; both 0 means 1 unavailable. */
function fenceposts(d: ApiObject): { surge: number; unavailable: number } {
  const rolling = d.spec?.strategy?.rollingUpdate ?? {};
  const desired = replicasOf(d);
  const surge = scaledValue(rolling.maxSurge ?? '25%', desired, true);
  const unavailable = scaledValue(rolling.maxUnavailable ?? '25%', desired, false);
  return surge === 0 && unavailable === 0 ? { surge, unavailable: 1 } : { surge, unavailable };
}

export function maxSurge(d: ApiObject): number {
  return isRollingUpdate(d) ? fenceposts(d).surge : 0;
}

export function maxUnavailable(d: ApiObject): number {
  if (!isRollingUpdate(d) || replicasOf(d) === 0) return 0;
  return Math.min(fenceposts(d).unavailable, replicasOf(d));
}

/**
 * A template without the pod-template-hash label, for EqualIgnoreHash. kube compares decoded Go
 * structs, where a null (kubectl's `rollout undo` sends `creationTimestamp: null`) is the field
 * left out, so nulls are dropped too.
 */
function withoutHash(template: Record<string, any> | undefined): unknown {
  const copy: Record<string, any> = JSON.parse(
    JSON.stringify(template ?? {}, (_key, value: unknown) => (value === null ? undefined : value)),
  );
  if (copy.metadata?.labels) {
    delete copy.metadata.labels[POD_TEMPLATE_HASH];
    if (Object.keys(copy.metadata.labels).length === 0) delete copy.metadata.labels;
  }
  if (copy.metadata && Object.keys(copy.metadata).length === 0) delete copy.metadata;
  return copy;
}

/** FindNewReplicaSet: the oldest ReplicaSet whose template is the Deployment's (hash label aside). */
export function findNewReplicaSet(d: ApiObject, sets: ApiObject[]): ApiObject | undefined {
  const wanted = withoutHash(d.spec?.template);
  return [...sets].sort(byCreation).find((rs) => jsonEqual(withoutHash(rs.spec?.template), wanted));
}

/** NewRSNewReplicas: how far the new ReplicaSet may grow now. */
export function newReplicaSetReplicas(d: ApiObject, all: ApiObject[], newRS: ApiObject): number {
  if (!isRollingUpdate(d)) return replicasOf(d);
  const current = specReplicas(all);
  const maxTotal = replicasOf(d) + maxSurge(d);
  if (current >= maxTotal) return replicasOf(newRS);
  return replicasOf(newRS) + Math.min(maxTotal - current, replicasOf(d) - replicasOf(newRS));
}

/** DeploymentComplete. */
export function isComplete(d: ApiObject, status: Record<string, any>): boolean {
  const desired = replicasOf(d);
  return (
    status.updatedReplicas === desired &&
    status.replicas === desired &&
    status.availableReplicas === desired &&
    status.observedGeneration >= d.metadata.generation
  );
}

/** DeploymentProgressing: more updated, ready or available pods, or fewer old ones, than before. */
export function isProgressing(current: Record<string, any>, next: Record<string, any>): boolean {
  const old = (s: Record<string, any>) => (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (
    next.updatedReplicas > (current.updatedReplicas ?? 0) ||
    old(next) < old(current) ||
    next.readyReplicas > (current.readyReplicas ?? 0) ||
    next.availableReplicas > (current.availableReplicas ?? 0)
  );
}

/** IsSaturated: the new ReplicaSet has all the Deployment's replicas, all available. */
export function isSaturated(d: ApiObject, rs: ApiObject | undefined): boolean {
  if (!rs) return false;
  const desired = rs.metadata.annotations?.[DESIRED_REPLICAS];
  return (
    desired === String(replicasOf(d)) &&
    replicasOf(rs) === replicasOf(d) &&
    statusOf(rs, 'availableReplicas') === replicasOf(d)
  );
}

/**
 * The new sizes of the active ReplicaSets when the Deployment is scaled mid-rollout
 * (scale()'s proportional scaling): each gets its share of the change by its size over the
 * `max-replicas` it was sized for, and what rounding leaves goes to the largest.
 */
export function proportionalSizes(d: ApiObject, active: ApiObject[]): Map<string, number> {
  const desired = replicasOf(d);
  const allowed = desired > 0 ? desired + maxSurge(d) : 0;
  const toAdd = allowed - specReplicas(active);
  const sizes = new Map<string, number>();
  if (toAdd === 0) {
    for (const rs of active) sizes.set(rs.metadata.name, replicasOf(rs));
    return sizes;
  }
  // Larger first; ties to the newer when growing, to the older when shrinking.
  const sorted = [...active].sort(
    (a, b) => replicasOf(b) - replicasOf(a) || (toAdd > 0 ? byCreation(b, a) : byCreation(a, b)),
  );
  let added = 0;
  for (const rs of sorted) {
    let share = 0;
    if (replicasOf(rs) > 0 && toAdd !== added) {
      const annotated = Number(rs.metadata.annotations?.[MAX_REPLICAS]) || (d.status?.replicas ?? 0);
      const fraction =
        desired === 0 ? -replicasOf(rs) : Math.round((replicasOf(rs) * allowed) / annotated) - replicasOf(rs);
      share = toAdd > 0 ? Math.min(fraction, toAdd - added) : Math.max(fraction, toAdd - added);
    }
    sizes.set(rs.metadata.name, replicasOf(rs) + share);
    added += share;
  }
  const largest = sorted[0].metadata.name;
  sizes.set(largest, Math.max(0, sizes.get(largest)! + toAdd - added));
  return sizes;
}
