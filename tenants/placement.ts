import { clusterMatches, type AffinityCluster, type ClusterAffinity } from '../clusters/cluster-affinity.js';
import { clusterReadyStatus } from '../clusters/cluster-resource.js';
import { tolerates, type ClusterTaint, type ClusterToleration } from '../clusters/tolerations.js';
import type { UpstreamCluster } from '../clusters/upstream-clusters.js';

/** What of a Tenant's spec placement reads. */
export interface TenantPlacement {
  clusterAffinity?: ClusterAffinity;
  clusterTolerations?: ClusterToleration[];
}

/**
 * Chooses the cluster a tenant lives on, as Karmada's scheduler filters and scores: a Ready
 * cluster (its snapshot holds only those), that the tenant's ClusterAffinity selects
 * (clusters/cluster-affinity.ts: exclude, labels, fields, names), whose NoSchedule and NoExecute
 * taints its clusterTolerations tolerate, and not in `avoid` (the clusters it is being evicted
 * from: Karmada's ClusterEviction filter). Among those the one with the fewest tenants wins, by
 * name on a tie. Undefined when no cluster qualifies.
 */
export function placeTenant<C extends UpstreamCluster>(
  clusters: readonly C[],
  placement: TenantPlacement | undefined,
  tenantsPerCluster: ReadonlyMap<string, number>,
  avoid: ReadonlySet<string> = new Set(),
): C | undefined {
  const tolerations = placement?.clusterTolerations ?? [];
  const candidates = clusters.filter(
    ({ name, cluster }) =>
      !avoid.has(name) &&
      clusterReadyStatus(cluster) === 'True' &&
      clusterMatches(cluster as AffinityCluster, placement?.clusterAffinity ?? {}) &&
      tolerates(taintsOf(cluster.spec?.taints), tolerations),
  );
  return candidates.sort(
    (a, b) =>
      (tenantsPerCluster.get(a.name) ?? 0) - (tenantsPerCluster.get(b.name) ?? 0) || a.name.localeCompare(b.name),
  )[0];
}

function taintsOf(value: unknown): ClusterTaint[] {
  return Array.isArray(value) ? (value as ClusterTaint[]) : [];
}
