/**
 * What the multi-cluster cache keeps, computed from the Clusters and the ResourceRegistries as
 * Karmada's proxy controller computes it (pkg/search/proxy/controller.go `reconcile`), and how one
 * plan turns into the next (pkg/search/proxy/store `UpdateCache`). Pure: the cache controller
 * reads the objects, calls these, and starts and stops the stores the changes name.
 */
import { clusterMatches, type AffinityCluster } from '../clusters/cluster-affinity.js';
import { apiVersionOf, resourceKey, type CacheResource } from './cluster-resource-store.js';
import type { ResourceRegistry } from './resource-registry.js';

export { resourceKey };

/** What the plan reads of a `cluster.karmada.io/v1alpha1` Cluster. */
export interface PlanCluster extends AffinityCluster {
  status?: {
    conditions?: { type: string; status: string }[];
    /** What the cluster's discovery lists, subresources left out. */
    apiEnablements?: { groupVersion: string; resources?: { name: string; kind: string }[] }[];
  };
}

/** A resource the cache keeps, as a selector resolves: group '' is the core group. */
export type PlannedResource = CacheResource;

/** Karmada's MultiNamespace: every namespace, or these (sorted, never empty). */
export type PlannedNamespaces = 'all' | readonly string[];

/** One store of the cache: a resource of a cluster, in some namespaces. */
export interface PlannedStore {
  cluster: string;
  resource: PlannedResource;
  namespaces: PlannedNamespaces;
}

export interface CachePlan {
  /**
   * Cluster → `resourceKey` → store. A cluster that matched a registry and is Ready is here even
   * when none of its APIs did (Karmada keeps an empty cache for it).
   */
  clusters: ReadonlyMap<string, ReadonlyMap<string, PlannedStore>>;
  /**
   * Every resource a registry's selector resolved to, by `resourceKey`, even one no cluster
   * caches: what Karmada's proxy asks (`HasResource`) before it answers a request from the cache.
   */
  registeredResources: ReadonlyMap<string, PlannedResource>;
}

/** Whether a resource is namespaced, as the clusters' discovery says; undefined when unknown. */
export type ScopeLookup = (group: string, version: string, resource: string) => boolean | undefined;

/**
 * Karmada's reconcile. Each selector's apiVersion and kind resolve to a resource through the
 * clusters' apiEnablements (any cluster that lists it; Karmada asks its own RESTMapper) and
 * `scopeOf`; one that does not resolve is skipped. A resolved resource is cached in a cluster when
 * the registry's targetCluster matches it, its Ready condition is True, and the API is not
 * disabled there: listed in its apiEnablements, or not listed while its CompleteAPIEnablements
 * condition is not True (Karmada's APIUnknown, which it caches too). Namespaces of every
 * selector and registry merge; a selector without one, and a cluster-scoped resource, mean all.
 */
export function computeCachePlan(
  clusters: readonly PlanCluster[],
  registries: readonly ResourceRegistry[],
  scopeOf: ScopeLookup,
): CachePlan {
  const resolve = resolver(clusters, scopeOf);
  const registeredResources = new Map<string, PlannedResource>();
  const namespacesByCluster = new Map<string, Map<string, { resource: PlannedResource; namespaces: Set<string> }>>();
  const sortedClusters = [...clusters].sort((a, b) => compare(a.metadata.name, b.metadata.name));
  for (const registry of registries) {
    const matched = new Map<string, { resource: PlannedResource; namespaces: Set<string> }>();
    for (const selector of registry.spec.resourceSelectors ?? []) {
      // Validation lets a selector lack either, as Karmada's does; such a selector does not resolve.
      const resource = resolve(selector.apiVersion ?? '', selector.kind ?? '');
      if (!resource) continue;
      const key = resourceKey(resource);
      registeredResources.set(key, resource);
      const entry = matched.get(key) ?? { resource, namespaces: new Set<string>() };
      entry.namespaces.add(resource.namespaced ? (selector.namespace ?? '') : '');
      matched.set(key, entry);
    }
    if (matched.size === 0) continue;
    for (const cluster of sortedClusters) {
      if (!clusterMatches(cluster, registry.spec.targetCluster ?? {}) || !isReady(cluster)) continue;
      const cached = namespacesByCluster.get(cluster.metadata.name) ?? new Map();
      namespacesByCluster.set(cluster.metadata.name, cached);
      for (const [key, { resource, namespaces }] of matched) {
        if (apiEnablement(cluster, resource) === 'disabled') continue;
        const entry = cached.get(key) ?? { resource, namespaces: new Set<string>() };
        for (const namespace of namespaces) entry.namespaces.add(namespace);
        cached.set(key, entry);
      }
    }
  }
  const planned = new Map<string, Map<string, PlannedStore>>();
  for (const [cluster, resources] of namespacesByCluster) {
    const stores = new Map<string, PlannedStore>();
    for (const key of [...resources.keys()].sort(compare)) {
      const { resource, namespaces } = resources.get(key)!;
      stores.set(key, { cluster, resource, namespaces: cachedNamespaces(namespaces) });
    }
    planned.set(cluster, stores);
  }
  return { clusters: planned, registeredResources };
}

/** '' among the namespaces is NamespaceAll. */
function cachedNamespaces(namespaces: Set<string>): PlannedNamespaces {
  return namespaces.has('') ? 'all' : [...namespaces].sort(compare);
}

/**
 * Resolves apiVersion + kind to the resource of that kind the first cluster (by name) lists at
 * that group-version; undefined when none does, or its scope is unknown.
 */
function resolver(
  clusters: readonly PlanCluster[],
  scopeOf: ScopeLookup,
): (apiVersion: string, kind: string) => PlannedResource | undefined {
  const names = new Map<string, string>();
  for (const cluster of [...clusters].sort((a, b) => compare(b.metadata.name, a.metadata.name)))
    for (const enablement of cluster.status?.apiEnablements ?? [])
      for (const { name, kind } of enablement.resources ?? [])
        if (!name.includes('/')) names.set(`${enablement.groupVersion}|${kind}`, name);
  return (apiVersion, kind) => {
    const groupVersion = parseGroupVersion(apiVersion);
    if (!groupVersion) return undefined;
    const resource = names.get(`${apiVersionOf(groupVersion)}|${kind}`);
    if (!resource) return undefined;
    const namespaced = scopeOf(groupVersion.group, groupVersion.version, resource);
    return namespaced === undefined ? undefined : { ...groupVersion, resource, kind, namespaced };
  };
}

/** apimachinery's ParseGroupVersion: `v1` is the core group; more than one `/` does not parse. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } | undefined {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  return parts.length === 2 ? { group: parts[0], version: parts[1] } : undefined;
}

function isReady(cluster: PlanCluster): boolean {
  return conditionIsTrue(cluster, 'Ready');
}

function conditionIsTrue(cluster: PlanCluster, type: string): boolean {
  return cluster.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}

/** Karmada's Cluster.APIEnablement. */
function apiEnablement(cluster: PlanCluster, resource: PlannedResource): 'enabled' | 'disabled' | 'unknown' {
  const groupVersion = apiVersionOf(resource);
  const listed = (cluster.status?.apiEnablements ?? []).some(
    (e) => e.groupVersion === groupVersion && (e.resources ?? []).some((r) => r.kind === resource.kind),
  );
  if (listed) return 'enabled';
  return conditionIsTrue(cluster, 'CompleteAPIEnablements') ? 'disabled' : 'unknown';
}

/** Go's string order (by UTF-16 code unit here; names are ASCII). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
