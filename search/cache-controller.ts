/**
 * What keeps the multi-cluster cache filled (Karmada's proxy controller): given the Clusters and
 * the ResourceRegistries, it computes the plan (cache-plan.ts), lets the cache make its stores
 * (MultiClusterCache.updateCache) and runs one reflector per store, which lists and watches that
 * resource on that cluster into it. A store whose cluster got other credentials gets a new
 * reflector; a store that goes has its reflector stopped, and its data goes with it.
 *
 * A store caching one namespace lists and watches that namespace only; several, or all, are
 * listed and watched across the cluster, and the store keeps only the namespaces it caches (as
 * Karmada's MultiNamespace cacher does).
 */
import type { RestClient } from '../apiserver/client/rest-client.js';
import { isObject } from '../apiserver/json.js';
import { computeCachePlan, type PlanCluster, type ScopeLookup } from './cache-plan.js';
import type { CachedObject } from './cached-object.js';
import { apiVersionOf, type ClusterResourceStore, type CacheResource } from './cluster-resource-store.js';
import type { CacheChanges, MultiClusterCache } from './multi-cluster-cache.js';
import { Reflector, type ReflectorOptions } from '../informer/reflector.js';
import type { ResourceRegistry } from './resource-registry.js';
import { RestListWatcher } from '../informer/rest-list-watcher.js';
import { selectableFieldsOf, toCachedObject } from './to-cached-object.js';

/** A cluster as the controller needs it: its object (for matching and readiness) and a client with the gateway's own credentials. */
export interface CacheCluster {
  object: PlanCluster;
  client: RestClient;
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
  client: RestClient;
  reflector: Reflector<CachedObject>;
}

export class CacheController {
  private readonly feeds = new Map<ClusterResourceStore, Feed>();
  private readonly clients = new Map<string, RestClient>();

  constructor(
    private readonly cache: MultiClusterCache,
    /** Reflector settings beside the ones each store decides (page size, timeouts, backoff). */
    private readonly reflectorOptions: Partial<ReflectorOptions<CachedObject>> = {},
  ) {}

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
    this.clients.clear();
    for (const cluster of clusters) this.clients.set(cluster.object.metadata.name, cluster.client);
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
    for (const store of changes.removed) this.stopFeed(store);
    for (const [store, feed] of this.feeds) {
      if (this.clients.get(store.cluster) === feed.client) continue;
      this.stopFeed(store);
      this.startFeed(store);
    }
    for (const store of changes.added) this.startFeed(store);
    return changes;
  }

  /** The cluster's current revision of a resource, as its cheapest list (`limit=1`) reports it: what consistent reads wait for. */
  async currentRevision(cluster: string, resource: CacheResource): Promise<string> {
    const client = this.clients.get(cluster);
    if (!client) throw new Error(`cluster ${cluster} is not known`);
    const res = await client.request('GET', `${collectionPath(resource)}?limit=1`);
    const revision: unknown =
      isObject(res.body) && isObject(res.body.metadata) ? res.body.metadata.resourceVersion : '';
    if (res.status !== 200 || typeof revision !== 'string' || revision === '')
      throw new Error(`listing ${resource.resource} of ${cluster}: ${res.status}`);
    return revision;
  }

  /** Lists a store again at its cluster's newest state (Reflector.resync); false when it could not be. */
  refresh(store: ClusterResourceStore): Promise<boolean> {
    return this.feeds.get(store)?.reflector.resync() ?? Promise.resolve(false);
  }

  /** Whether every store has had its first list. */
  synced(): boolean {
    return [...this.feeds.values()].every((feed) => feed.reflector.hasSynced());
  }

  /** Resolves once the store's first list is in (false: its feed stopped first); undefined for a store not fed. */
  firstSync(store: ClusterResourceStore): Promise<boolean> | undefined {
    return this.feeds.get(store)?.reflector.firstSync;
  }

  stats(): StoreStats[] {
    return [...this.feeds.values()].map(({ store, reflector }) => ({
      cluster: store.cluster,
      resource: store.resource,
      objects: store.size,
      bytes: store.textBytes,
      relists: reflector.stats.relists,
      lastEventAt: reflector.stats.lastEventAt,
      synced: reflector.hasSynced(),
    }));
  }

  stop(): void {
    for (const store of [...this.feeds.keys()]) this.stopFeed(store);
  }

  private startFeed(store: ClusterResourceStore): void {
    const client = this.clients.get(store.cluster);
    if (!client) return;
    const { resource, namespaces } = store;
    const only = namespaces !== 'all' && namespaces.size === 1 ? [...namespaces][0] : undefined;
    const listerWatcher = new RestListWatcher(client, {
      groupVersionPath: groupVersionPath(resource),
      resource: resource.resource,
      namespace: only,
    });
    const fieldsOf = selectableFieldsOf(resource.group, resource.resource, resource.namespaced);
    const reflector = new Reflector(listerWatcher, store, {
      ...this.reflectorOptions,
      name: `${store.cluster} ${resource.resource}.${resource.group || 'core'}`,
      transform: (raw) => toCachedObject(raw, fieldsOf),
    });
    this.feeds.set(store, { store, client, reflector });
    reflector.run();
  }

  private stopFeed(store: ClusterResourceStore): void {
    this.feeds.get(store)?.reflector.stop();
    this.feeds.delete(store);
  }
}

function groupVersionPath(resource: CacheResource): string {
  return `${resource.group === '' ? '/api' : '/apis'}/${apiVersionOf(resource)}`;
}

function collectionPath(resource: CacheResource): string {
  return `${groupVersionPath(resource)}/${resource.resource}`;
}
