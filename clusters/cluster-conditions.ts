import { CLUSTER_READY } from './cluster-resource.js';
import type { ClusterObservation } from './cluster-probe.js';

/** A metav1.Condition as Cluster status carries it. */
export interface ClusterCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

export const CLUSTER_COMPLETE_API_ENABLEMENTS = 'CompleteAPIEnablements';

/** Karmada's reasons and messages (pkg/controllers/status/cluster_status_controller.go). */
export const CLUSTER_READY_REASON = 'ClusterReady';
export const CLUSTER_NOT_READY_REASON = 'ClusterNotReady';
export const CLUSTER_NOT_REACHABLE_REASON = 'ClusterNotReachable';
export const STATUS_COLLECTION_FAILED_REASON = 'StatusCollectionFailed';

/** The Ready condition an observation gives (Karmada's generateReadyCondition). */
export function readyCondition(observation: ClusterObservation): ClusterCondition {
  if (!observation.online)
    return {
      type: CLUSTER_READY,
      status: 'False',
      reason: CLUSTER_NOT_REACHABLE_REASON,
      message: 'cluster is not reachable',
    };
  if (!observation.healthy)
    return {
      type: CLUSTER_READY,
      status: 'False',
      reason: CLUSTER_NOT_READY_REASON,
      message: 'cluster is reachable but health endpoint responded without ok',
    };
  return {
    type: CLUSTER_READY,
    status: 'True',
    reason: CLUSTER_READY_REASON,
    message: 'cluster is healthy and ready to accept workloads',
  };
}

/** Ready False when the gateway cannot even build a client for the cluster (no endpoint, no usable Secret). */
export function collectionFailedCondition(problem: string): ClusterCondition {
  return { type: CLUSTER_READY, status: 'False', reason: STATUS_COLLECTION_FAILED_REASON, message: problem };
}

/** Whether discovery was read whole (Karmada's CompleteAPIEnablements condition). */
export function apiEnablementsCondition(found: number, partial: boolean): ClusterCondition {
  const type = CLUSTER_COMPLETE_API_ENABLEMENTS;
  if (found === 0)
    return { type, status: 'False', reason: 'Empty', message: 'collected empty APIEnablements from the cluster' };
  if (partial)
    return {
      type,
      status: 'False',
      reason: 'Partial',
      message: `might collect partial APIEnablements(${found}) from the cluster`,
    };
  return { type, status: 'True', reason: 'Complete', message: 'collected complete APIEnablements from the cluster' };
}

/**
 * Sets conditions as apimachinery's SetStatusCondition: a new condition, or one whose status
 * changed, gets `lastTransitionTime` now; otherwise the time it had is kept.
 */
export function setConditions(
  existing: ClusterCondition[],
  updates: ClusterCondition[],
  now: Date,
): ClusterCondition[] {
  const result = [...existing];
  for (const update of updates) {
    const index = result.findIndex((c) => c.type === update.type);
    const previous = index >= 0 ? result[index] : undefined;
    const lastTransitionTime =
      previous && previous.status === update.status && previous.lastTransitionTime
        ? previous.lastTransitionTime
        : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const next = { ...update, lastTransitionTime };
    if (index >= 0) result[index] = next;
    else result.push(next);
  }
  return result;
}
