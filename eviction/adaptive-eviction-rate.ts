/**
 * The opt-in adaptive eviction rate (`--adaptive-eviction-rate`), which Karmada's eviction-queue
 * proposal leaves as future work. kube's node lifecycle controller has the same concern for nodes
 * in a zone (`--node-eviction-rate`, `--secondary-node-eviction-rate`,
 * `--unhealthy-zone-threshold`), and this follows it with clusters for nodes: while at most the
 * threshold's share of the clusters is unhealthy the rate is the set one; above it, the secondary
 * rate, so that a region-wide outage does not stampede the survivors; and nothing moves when no
 * healthy cluster is left to take a tenant (every cluster unhealthy, or every healthy one closed
 * to new tenants by a NoSchedule or NoExecute taint). Pure.
 */
import { clusterReadyStatus } from '../clusters/cluster-resource.js';
import type { UpstreamCluster } from '../clusters/upstream-clusters.js';
import { PLACEMENT_EFFECTS, type ClusterTaint } from '../clusters/tolerations.js';

export interface AdaptiveRateSettings {
  /** `--resource-eviction-rate`. */
  rate: number;
  /** `--secondary-resource-eviction-rate`: the rate while more than the threshold's share of clusters is unhealthy. */
  secondaryRate: number;
  /** `--unhealthy-cluster-threshold`: the share of unhealthy clusters (0 to 1) above which the secondary rate holds. */
  unhealthyThreshold: number;
}

export function adaptiveEvictionRate(clusters: readonly UpstreamCluster[], settings: AdaptiveRateSettings): number {
  if (clusters.length === 0) return 0;
  const healthy = clusters.filter(({ cluster }) => clusterReadyStatus(cluster) === 'True');
  // A healthy cluster where no tenant can be placed without a toleration is no room for most of them.
  const open = healthy.filter(
    ({ cluster }) => !taintsOf(cluster.spec?.taints).some((t) => PLACEMENT_EFFECTS.includes(t.effect)),
  );
  if (open.length === 0) return 0;
  const unhealthyShare = (clusters.length - healthy.length) / clusters.length;
  return unhealthyShare > settings.unhealthyThreshold ? settings.secondaryRate : settings.rate;
}

function taintsOf(value: unknown): ClusterTaint[] {
  return Array.isArray(value) ? (value as ClusterTaint[]) : [];
}
