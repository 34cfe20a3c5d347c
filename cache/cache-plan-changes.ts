/**
 * How the cache moves from one plan to the next, as Karmada's MultiClusterCache.UpdateCache does:
 * a cluster gone from the plan loses all its stores; a store gone, or whose namespaces changed,
 * is stopped (and started again with the new namespaces); a new one is started. Pure.
 */
import { isDeepStrictEqual } from 'node:util';
import type { CachePlan, PlannedStore } from './cache-plan.js';

export interface CachePlanChanges {
  /** Stores in the next plan only. */
  start: PlannedStore[];
  /** Stores of the previous plan that the next one does not have. */
  stop: PlannedStore[];
  /** The same cluster × resource with other namespaces (or another kind or scope): stop `from`, start `to`. */
  restart: { from: PlannedStore; to: PlannedStore }[];
  /**
   * Clusters new to the plan. Karmada ends every open watch of the cache when one joins (or
   * recovers), so clients watch again and see its objects (its issue #6963).
   */
  clustersAdded: string[];
  clustersRemoved: string[];
}

export function diffCachePlans(previous: CachePlan, next: CachePlan): CachePlanChanges {
  const changes: CachePlanChanges = { start: [], stop: [], restart: [], clustersAdded: [], clustersRemoved: [] };
  for (const [cluster, stores] of previous.clusters) {
    const nextStores = next.clusters.get(cluster);
    if (!nextStores) changes.clustersRemoved.push(cluster);
    for (const [key, store] of stores) {
      const nextStore = nextStores?.get(key);
      if (!nextStore) changes.stop.push(store);
      else if (!sameStore(store, nextStore)) changes.restart.push({ from: store, to: nextStore });
    }
  }
  for (const [cluster, stores] of next.clusters) {
    const previousStores = previous.clusters.get(cluster);
    if (!previousStores) changes.clustersAdded.push(cluster);
    for (const [key, store] of stores) if (!previousStores?.has(key)) changes.start.push(store);
  }
  return changes;
}

function sameStore(a: PlannedStore, b: PlannedStore): boolean {
  return isDeepStrictEqual(a.resource, b.resource) && isDeepStrictEqual(a.namespaces, b.namespaces);
}
