/**
 * The taints the cluster controller keeps on a Cluster from its Ready condition (Karmada's
 * taintClusterByCondition and UpdateClusterControllerTaint). Placement keeps new tenants off a
 * tainted cluster (NoSchedule); only NoExecute taints move tenants away, and Karmada adds none of
 * those by itself since v1.14. `--no-execute-taint-after` brings back, as an option, what its
 * removed `--failover-eviction-timeout` did: a cluster not Ready for that long gets the NoExecute
 * taint of the same key, which the taint manager acts on.
 */
import { taintExists, type ClusterTaint } from './tolerations.js';
import type { ClusterCondition } from './cluster-conditions.js';

export const NOT_READY_TAINT_KEY = 'cluster.karmada.io/not-ready';
export const UNREACHABLE_TAINT_KEY = 'cluster.karmada.io/unreachable';

type Effect = 'NoSchedule' | 'NoExecute';
const taint = (key: string, effect: Effect): ClusterTaint => ({ key, effect });

/**
 * `taints` less `remove` (by key and effect), plus each of `add` not already there, stamped with
 * `timeAdded` now; the same array when nothing changes, so the caller writes only a change.
 */
export function updateControllerTaints(
  taints: readonly ClusterTaint[],
  add: readonly ClusterTaint[],
  remove: readonly ClusterTaint[],
  now: Date,
): readonly ClusterTaint[] {
  const kept = taints.filter((t) => !taintExists(remove, t));
  const added = add
    .filter((a) => !taintExists(kept, a))
    .map((a) => ({ ...a, timeAdded: now.toISOString().replace(/\.\d{3}Z$/, 'Z') }));
  return kept.length === taints.length && added.length === 0 ? taints : [...kept, ...added];
}

/** What the Ready condition asks of the controller's taints; `noExecuteAfterMs` undefined: no NoExecute taint is ever added. */
export function taintsForReadiness(
  taints: readonly ClusterTaint[],
  ready: ClusterCondition | undefined,
  now: Date,
  noExecuteAfterMs?: number,
): readonly ClusterTaint[] {
  const both = (effect: Effect) => [taint(NOT_READY_TAINT_KEY, effect), taint(UNREACHABLE_TAINT_KEY, effect)];
  if (ready?.status === 'True')
    return updateControllerTaints(taints, [], [...both('NoSchedule'), ...both('NoExecute')], now);
  // No Ready condition yet is not-ready, as Karmada's cluster controller has it (and takes nothing away).
  if (!ready) return updateControllerTaints(taints, [taint(NOT_READY_TAINT_KEY, 'NoSchedule')], [], now);
  const [key, other] =
    ready.status === 'Unknown'
      ? [UNREACHABLE_TAINT_KEY, NOT_READY_TAINT_KEY]
      : [NOT_READY_TAINT_KEY, UNREACHABLE_TAINT_KEY];
  const add = [taint(key, 'NoSchedule')];
  const remove = [taint(other, 'NoSchedule'), taint(other, 'NoExecute')];
  const notReadySince = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : NaN;
  if (noExecuteAfterMs !== undefined && now.getTime() - notReadySince >= noExecuteAfterMs)
    add.push(taint(key, 'NoExecute'));
  return updateControllerTaints(taints, add, remove, now);
}
