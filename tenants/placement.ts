import { labelSelectorFromObject } from '../apiserver/selectors/label-selector.js';
import type { UpstreamCluster } from './upstream-clusters.js';

export interface ClusterAffinity {
  clusterNames?: string[];
  labelSelector?: {
    matchLabels?: Record<string, string>;
    matchExpressions?: { key: string; operator: string; values?: string[] }[];
  };
}

/**
 * Chooses the cluster a new tenant lives on (Karmada's ClusterAffinity: names, then labels),
 * spreading tenants: the candidate with the fewest tenants wins, by name on a tie. Returns
 * undefined when no cluster qualifies.
 */
export function placeTenant(
  clusters: readonly UpstreamCluster[],
  affinity: ClusterAffinity | undefined,
  tenantsPerCluster: Map<string, number>,
): UpstreamCluster | undefined {
  const selector = affinity?.labelSelector ? labelSelectorFromObject(affinity.labelSelector) : undefined;
  const candidates = clusters.filter(
    (cluster) =>
      (!affinity?.clusterNames?.length || affinity.clusterNames.includes(cluster.name)) &&
      (!selector || selector.matches(cluster.labels)),
  );
  return candidates.sort(
    (a, b) =>
      (tenantsPerCluster.get(a.name) ?? 0) - (tenantsPerCluster.get(b.name) ?? 0) || a.name.localeCompare(b.name),
  )[0];
}
