/**
 * When a tenant must leave a cluster because of the cluster's taints: Karmada's taint manager
 * (`enqueueBinding`, `needEviction` in pkg/controllers/cluster/taint_manager.go) for one tenant on
 * one cluster. Pure: the caller reads the taints and tolerations and acts on the answer.
 */
import {
  matchingTolerations,
  minTolerationMs,
  noExecuteTaints,
  type ClusterTaint,
  type ClusterToleration,
} from '../clusters/tolerations.js';

export type EvictionDecision = { action: 'now' } | { action: 'after'; ms: number } | { action: 'never' };

export function evictionDecision(
  taints: readonly ClusterTaint[],
  tolerations: readonly ClusterToleration[],
  now: Date,
): EvictionDecision {
  // Only NoExecute taints evict; the others only keep new tenants off (PLACEMENT_EFFECTS).
  const evicting = noExecuteTaints(taints);
  if (evicting.length === 0) return { action: 'never' };
  const { tolerated, used } = matchingTolerations(evicting, tolerations);
  // A taint the tenant does not tolerate at all grants no grace period.
  if (!tolerated) return { action: 'now' };
  const remainingMs = minTolerationMs(evicting, used, now);
  // The shortest toleration has run out (or was 0 or negative from the start).
  if (remainingMs === 0) return { action: 'now' };
  // Ask again when the shortest toleration ends: the taints may be gone by then.
  if (remainingMs > 0) return { action: 'after', ms: remainingMs };
  // Every toleration holds for ever, or none can be timed (no timeAdded on the taints).
  return { action: 'never' };
}
