/**
 * What keeps the multi-cluster cache filled (Karmada's proxy controller): given the Clusters and
 * the ResourceRegistries, it computes the plan (cache-plan.ts), lets the cache make its stores
 * (MultiClusterCache.updateCache) and feeds each store from its cluster's shared informer of that
 * resource (cached-object-informers.ts), as a sink of it: the store indexes the informer's own
 * objects, and one list and watch per cluster and resource serves every store and every other
 * consumer of it. A store whose cluster got a new connection (other credentials) is fed from the
 * new one's informer; a store that goes unsubscribes, and its data goes with it.
 *
 * The informer lists and watches across the cluster; each store keeps only the namespaces it
 * caches (as Karmada's MultiNamespace cacher does).
 */
import type { RestClient } from '../apiserver/client/rest-client.js';
import { computeCachePlan, type PlanCluster, type ScopeLookup } from './cache-plan.js';
import type { CachedObject } from './cached-object.js';
import type { CachedObjectInformers } from './cached-object-informers.js';
import { apiVersionOf, type ClusterResourceStore, type CacheResource } from './cluster-resource-store.js';
import type { CacheChanges, MultiClusterCache } from './multi-cluster-cache.js';
import type { HandlerRegistration, SharedInformer } from '../informer/shared-informer.js';
import { listRevision } from './list-revision.js';
import type { ResourceRegistry } from './resource-registry.js';

/**
 * A cluster as the controller needs it: its object (for matching and readiness), a client with
 * the gateway's own credentials (revision probes) and its shared informers.
 */
export interface CacheCluster {
  object: PlanCluster;
  client: RestClient;
  informers: CachedObjectInformers;
}

/** What a store's reflector has done, for metrics. */
export interface StoreStats {
  cluster: string;
  resource: CacheResource;
  objects: number;
  bytes: number;
  relists: number;
  /** When its watch last heard anything (an event or a BOOKMARK), in ms since the epoch. */
  lastEventAt: number | undefined;
  synced: boolean;
}

interface Feed {
  store: ClusterResourceStore;
  informers: CachedObjectInformers;
  informer: SharedInformer<CachedObject>;
  subscription: HandlerRegistration;
}

export class CacheController {
  private readonly feeds = new Map<ClusterResourceStore, Feed>();
  private readonly clusters = new Map<string, CacheCluster>();

  constructor(private readonly cache: MultiClusterCache) {}

  /**
   * Makes the cache hold what the registries select of the clusters now. `alsoCached` are
   * registries of the gateway's own (the tenants' reads): cached like the others, but not
   * resources the search proxy answers for.
   */
  update(
    clusters: readonly CacheCluster[],
    registries: readonly ResourceRegistry[],
    scopeOf: ScopeLookup,
    alsoCached: readonly ResourceRegistry[] = [],
  ): CacheChanges {
    this.clusters.clear();
    for (const cluster of clusters) this.clusters.set(cluster.object.metadata.name, cluster);
    const objects = clusters.map((cluster) => cluster.object);
    const plan = computeCachePlan(objects, [...registries, ...alsoCached], scopeOf);
    const registered = alsoCached.length
      ? computeCachePlan(objects, registries, scopeOf).registeredResources
      : plan.registeredResources;
    const specs = new Map(
      [...plan.clusters].map(([cluster, stores]) => [
        cluster,
        [...stores.values()].map(({ resource, namespaces }) => ({
          resource,
          namespaces: namespaces === 'all' ? ('all' as const) : new Set(namespaces),
        })),
      ]),
    );
    const changes = this.cache.updateCache(specs, [...registered.values()]);
    // New stores subscribe before the ones they replace go: an informer whose last store goes is stopped.
    for (const store of changes.added) this.startFeed(store);
    const removed = new Set(changes.removed);
    for (const [store, feed] of this.feeds) {
      if (removed.has(store) || this.clusters.get(store.cluster)?.informers === feed.informers) continue;
      this.stopFeed(store);
      this.startFeed(store);
    }
    for (const store of removed) this.stopFeed(store);
    return changes;
  }

  /** The cluster's current revision of a resource, as its cheapest list (`limit=1`) reports it: what consistent reads wait for. */
  async currentRevision(cluster: string, resource: CacheResource): Promise<string> {
    const client = this.clusters.get(cluster)?.client;
    if (!client) throw new Error(`cluster ${cluster} is not known`);
    const res = await client.request('GET', `${collectionPath(resource)}?limit=1`);
    const revision = res.status === 200 ? listRevision(res.text) : '';
    if (revision === '') throw new Error(`listing ${resource.resource} of ${cluster}: ${res.status}`);
    return revision;
  }

  /**
   * Lists a store's informer again at its cluster's newest state (SharedInformer.resync), which
   * every store and consumer of that informer sees as a relist; false when it could not be.
   */
  refresh(store: ClusterResourceStore): Promise<boolean> {
    return this.feeds.get(store)?.informer.resync() ?? Promise.resolve(false);
  }

  /** Whether every store has had its first list. */
  synced(): boolean {
    return [...this.feeds.values()].every((feed) => feed.store.hasSynced);
  }

  /** Resolves once the store's first list is in (false: its informer stopped first); undefined for a store not fed. */
  firstSync(store: ClusterResourceStore): Promise<boolean> | undefined {
    return this.feeds.get(store)?.informer.firstSync;
  }

  stats(): StoreStats[] {
    return [...this.feeds.values()].map(({ store, informer }) => ({
      cluster: store.cluster,
      resource: store.resource,
      objects: store.size,
      bytes: store.textBytes,
      relists: informer.stats.relists,
      lastEventAt: informer.stats.lastEventAt,
      synced: store.hasSynced,
    }));
  }

  stop(): void {
    for (const store of [...this.feeds.keys()]) this.stopFeed(store);
  }

  private startFeed(store: ClusterResourceStore): void {
    const informers = this.clusters.get(store.cluster)?.informers;
    if (!informers) return;
    // The stores answer clients: their objects are held whole, managedFields and all.
    const informer = informers.informerFor(store.resource, { whole: true });
    this.feeds.set(store, { store, informers, informer, subscription: informer.addSink(store) });
  }

  private stopFeed(store: ClusterResourceStore): void {
    this.feeds.get(store)?.subscription.remove();
    this.feeds.delete(store);
  }
}

function groupVersionPath(resource: CacheResource): string {
  return `${resource.group === '' ? '/api' : '/apis'}/${apiVersionOf(resource)}`;
}

function collectionPath(resource: CacheResource): string {
  return `${groupVersionPath(resource)}/${resource.resource}`;
}
