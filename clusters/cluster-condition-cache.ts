/**
 * Karmada's cluster condition cache (pkg/controllers/status/cluster_condition_cache.go): a Ready
 * condition that flips between True and not True is applied only once the new observation has
 * lasted `--cluster-success-threshold` (back to True) or `--cluster-failure-threshold` (away from
 * True), so one lost probe on a flaky network does not taint a cluster and start moving its
 * tenants. The first observation of a cluster, and a cluster with no Ready condition yet, are
 * applied at once. What it remembers is the elected replica's alone, as in Karmada: a new leader
 * starts afresh.
 */
import type { ClusterCondition } from './cluster-conditions.js';

interface Seen {
  /** The status last observed. */
  status: ClusterCondition['status'];
  /** When the observations started saying `status` (ms); 0 for a cluster just joined, whose first status is applied at once. */
  since: number;
}

export interface ConditionThresholds {
  successMs: number;
  failureMs: number;
}

export class ClusterConditionCache {
  private readonly seen = new Map<string, Seen>();

  constructor(private readonly thresholds: ConditionThresholds) {}

  /** The Ready condition to write: `observed`, or `current` while a flip has not yet lasted its threshold. */
  adjust(
    cluster: string,
    current: ClusterCondition | undefined,
    observed: ClusterCondition,
    now: number,
  ): ClusterCondition {
    let seen = this.seen.get(cluster);
    if (!seen) {
      this.seen.set(cluster, { status: observed.status, since: 0 });
      return observed;
    }
    if (!current) return observed;
    if (seen.status !== observed.status) {
      seen = { status: observed.status, since: now };
      this.seen.set(cluster, seen);
    }
    const recovering = observed.status === 'True';
    const flips = recovering !== (current.status === 'True');
    const threshold = recovering ? this.thresholds.successMs : this.thresholds.failureMs;
    // Unknown to False (or back) is not a flip: only True against not True waits.
    return flips && now < seen.since + threshold ? current : observed;
  }

  /** Forgets clusters no longer registered: one registered again under the name starts afresh. */
  retainOnly(clusters: ReadonlySet<string>): void {
    for (const cluster of this.seen.keys()) if (!clusters.has(cluster)) this.seen.delete(cluster);
  }

  /** For tests: what an earlier leader's observations would have left. */
  remember(cluster: string, status: ClusterCondition['status'], since: number): void {
    this.seen.set(cluster, { status, since });
  }
}
