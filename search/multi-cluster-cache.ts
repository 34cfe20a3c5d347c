/**
 * karmada-search's MultiClusterCache, in memory: per member cluster and resource a
 * ClusterResourceStore, and get, list and watch answered across them in Karmada's formats
 * (search/README.md, "The multi-cluster cache"). What exists is decided by the caller (the cache
 * controller), which feeds the stores it is handed from reflectors; this class only reads them.
 *
 * Unlike karmada-search, which sends a list with a limit, a continue or a resourceVersion other
 * than "0" to the member clusters, every read is answered from memory: pages are cut in key order
 * and selectors are matched here. A read that needs a fresher store than the cache has in time
 * comes back `stale` so that the caller can answer it from the cluster.
 */
import { notFound, type GroupResource } from '../apiserver/status.js';
import { answerText } from './cached-object-text.js';
import type { CachedObject } from './cached-object.js';
import { ambiguousObject, tooOldResourceVersion } from './cache-errors.js';
import {
  FreshnessGate,
  freshnessOf,
  type Freshness,
  type RevisionProbe,
  type Stale,
  type StoreRefresh,
} from './cache-freshness.js';
import { selects, type CacheReadOptions } from './cache-read-options.js';
import {
  apiVersionOf,
  ClusterResourceStore,
  DEFAULT_EVENT_WINDOW,
  resourceKey,
  type CachedNamespaces,
  type CacheResource,
} from './cluster-resource-store.js';
import { formatMultiClusterContinue, parseMultiClusterContinue } from './multi-cluster-continue.js';
import { MultiClusterResourceVersion } from './multi-cluster-resource-version.js';
import { MultiClusterWatch, type WatchListener, type WatchScope } from './multi-cluster-watch.js';

export interface MultiClusterCacheOptions {
  /** How far a cluster's resource is now; consistent reads (resourceVersion "") wait for the cache to get there. */
  currentRevision?: RevisionProbe;
  /** How long a read waits for a store to be fresh enough: kube's watch cache waits 3 s. */
  freshnessTimeoutMs?: number;
  /** How long a consistent read waits for a store's watch to reach the cluster's revision before it refreshes the store. */
  consistentWaitMs?: number;
  /** Lists a store again at its cluster's newest state, for a consistent read its watch did not make fresh in time. */
  refresh?: StoreRefresh;
  /** Events per store a watch can resume after. */
  eventWindow?: number;
}

/** A resource one cluster caches, and in which namespaces (cluster-scoped resources: all). */
export interface CachedResourceSpec {
  resource: CacheResource;
  namespaces: CachedNamespaces;
}

/** What `updateCache` changed: the stores to feed and the stores to stop feeding. */
export interface CacheChanges {
  added: ClusterResourceStore[];
  removed: ClusterResourceStore[];
}

/** A read of one resource: `namespace` '' for all namespaces or a cluster-scoped resource. */
export type CacheReadRequest = WatchScope;

export type CacheAnswer<T> = { fresh: true; value: T } | Stale;

/** One cluster's share of a list: its objects in key order. */
export interface ListedObjects {
  readonly store: ClusterResourceStore;
  readonly objects: readonly CachedObject[];
}

/**
 * A list's parts, written out by cache-response.ts. The items are held as the cached objects, by
 * cluster, and their answer texts made one at a time as they are written (`listItemTexts`): a
 * list of a million objects would otherwise hold a million answers at once, as much again as
 * the cache itself.
 */
export interface CachedList {
  kind: string;
  apiVersion: string;
  resourceVersion: string;
  continue: string;
  items: readonly ListedObjects[];
  /** How many objects `items` holds. */
  count: number;
}

/** The JSON texts of a list's items in order, each made when it is asked for. */
export function* listItemTexts(list: CachedList): Generator<string> {
  for (const { store, objects } of list.items)
    for (const object of objects) yield answerText(object, store.type, store.cluster, object.metadata.resourceVersion);
}

const DEFAULT_FRESHNESS_TIMEOUT_MS = 3000;

export class MultiClusterCache {
  private readonly stores = new Map<string, Map<string, ClusterResourceStore>>();
  private registered = new Map<string, CacheResource>();
  private readonly watches = new Map<string, Set<MultiClusterWatch>>();
  private readonly freshness: FreshnessGate;
  private readonly eventWindow: number;

  constructor(options: MultiClusterCacheOptions = {}) {
    this.freshness = new FreshnessGate(
      options.currentRevision,
      options.freshnessTimeoutMs ?? DEFAULT_FRESHNESS_TIMEOUT_MS,
      options.consistentWaitMs ?? options.freshnessTimeoutMs ?? DEFAULT_FRESHNESS_TIMEOUT_MS,
      options.refresh,
    );
    this.eventWindow = options.eventWindow ?? DEFAULT_EVENT_WINDOW;
  }

  /**
   * Makes the cache hold exactly these clusters' resources (Karmada's UpdateCache): a cluster or
   * resource that is gone is stopped, one whose namespaces changed is made anew, and every watch
   * of a resource that gained a store ends, so that its client watches again and sees the new
   * cluster (karmada-io/karmada#6963). `registered` is what hasResource answers for: every
   * resource a ResourceRegistry names, cached by some cluster or not.
   */
  updateCache(
    resourcesByCluster: ReadonlyMap<string, readonly CachedResourceSpec[]>,
    registered: readonly CacheResource[],
  ): CacheChanges {
    const changes: CacheChanges = { added: [], removed: [] };
    for (const [cluster, stores] of this.stores) {
      if (resourcesByCluster.has(cluster)) continue;
      for (const store of stores.values()) changes.removed.push(store);
      this.stores.delete(cluster);
    }
    for (const [cluster, specs] of resourcesByCluster) {
      const current = this.stores.get(cluster) ?? new Map<string, ClusterResourceStore>();
      const next = new Map<string, ClusterResourceStore>();
      for (const { resource, namespaces } of specs) {
        const key = resourceKey(resource);
        const wanted = resource.namespaced ? namespaces : 'all';
        const existing = current.get(key);
        if (existing !== undefined && sameNamespaces(existing.namespaces, wanted)) {
          next.set(key, existing);
          continue;
        }
        const store = new ClusterResourceStore(cluster, resource, wanted, this.eventWindow);
        next.set(key, store);
        changes.added.push(store);
      }
      for (const [key, store] of current) if (next.get(key) !== store) changes.removed.push(store);
      this.stores.set(cluster, next);
    }
    this.registered = new Map(registered.map((resource) => [resourceKey(resource), resource]));
    for (const store of changes.removed) store.stop();
    const gained = new Set(changes.added.map((store) => resourceKey(store.resource)));
    for (const key of gained) for (const watch of [...(this.watches.get(key) ?? [])]) watch.stop();
    return changes;
  }

  hasResource(resource: Pick<CacheResource, 'group' | 'version' | 'resource'>): boolean {
    return this.registered.has(resourceKey(resource));
  }

  /** A registered resource with its kind and scope, as the registries resolved it. */
  registeredResource(resource: Pick<CacheResource, 'group' | 'version' | 'resource'>): CacheResource | undefined {
    return this.registered.get(resourceKey(resource));
  }

  /** The store of one cluster's resource, if the cache holds it. */
  storeOf(
    cluster: string,
    resource: Pick<CacheResource, 'group' | 'version' | 'resource'>,
  ): ClusterResourceStore | undefined {
    return this.stores.get(cluster)?.get(resourceKey(resource));
  }

  /** Every store the cache holds of one cluster. */
  clusterStores(cluster: string): ClusterResourceStore[] {
    return [...(this.stores.get(cluster)?.values() ?? [])];
  }

  /** The stores of a resource, by cluster name. */
  storesOf(resource: Pick<CacheResource, 'group' | 'version' | 'resource'>): ClusterResourceStore[] {
    const key = resourceKey(resource);
    const found: ClusterResourceStore[] = [];
    for (const stores of this.stores.values()) {
      const store = stores.get(key);
      if (store !== undefined) found.push(store);
    }
    return found.sort((a, b) => compare(a.cluster, b.cluster));
  }

  /**
   * The one cached object with this name, its resourceVersion the one-cluster multi-cluster
   * version and its cluster annotated. 404 when no cluster has it, 409 when several do. A
   * resourceVersion N (or a multi-cluster one) is waited for in the cluster found.
   */
  async get(request: CacheReadRequest & { name: string }): Promise<CacheAnswer<string>> {
    const { resource, namespace, name, options } = request;
    const stores = this.storesOf(resource);
    const requested = options.resourceVersion;
    // A consistent get must see every cluster as it is now, or a new object would be missed; any
    // other version is waited for only in the cluster that has the object, as Karmada does.
    const everywhere = freshnessOf(requested === '' ? '' : '0');
    const stale = await this.freshness.ensureAll(stores.map((store) => [store, everywhere]));
    if (stale !== undefined) return stale;
    const store = this.locate(resource, namespace, name).store;
    if (requested !== '' && requested !== '0') {
      const clusterVersion = /^\d+$/.test(requested)
        ? requested
        : MultiClusterResourceVersion.parse(requested).get(store.cluster);
      const waited = await this.freshness.ensure(store, freshnessOf(clusterVersion));
      if (waited !== undefined) return waited;
    }
    const object = store.get(namespace, name);
    if (object === undefined) throw notFound(groupResource(resource), name);
    const version = MultiClusterResourceVersion.of(store.cluster, object.metadata.resourceVersion).toString();
    return { fresh: true, value: answerText(object, store.type, store.cluster, version) };
  }

  /**
   * The one cluster whose cache has this object, as it is cached now (Karmada's
   * GetResourceFromCache, which finds where an update or delete goes): 404 when none has it, 409
   * when several do.
   */
  locate(
    resource: CacheResource,
    namespace: string,
    name: string,
  ): { cluster: string; store: ClusterResourceStore; object: CachedObject } {
    const found = this.storesOf(resource).flatMap((store) => {
      const object = store.get(namespace, name);
      return object === undefined ? [] : [{ cluster: store.cluster, store, object }];
    });
    if (found.length === 0) throw notFound(groupResource(resource), name);
    if (found.length > 1)
      throw ambiguousObject(
        groupResource(resource),
        name,
        found.map((hit) => hit.cluster),
      );
    return found[0];
  }

  /**
   * The objects of every cluster, clusters in name order and each cluster's in key order, with
   * the full multi-cluster resourceVersion. `limit` cuts pages; the continue token names the
   * cluster to go on with and the last key returned there.
   */
  async list(request: CacheReadRequest): Promise<CacheAnswer<CachedList>> {
    const { resource, namespace, options } = request;
    const stores = this.storesOf(resource);
    if (stores.length === 0) return { fresh: true, value: emptyList() };
    const token = options.continue === '' ? undefined : parseMultiClusterContinue(options.continue);
    const continuing = token !== undefined && token.cluster !== '';
    const requestVersion = MultiClusterResourceVersion.parse(continuing ? token.rv : options.resourceVersion);
    const stale = await this.freshness.ensureAll(
      stores.map((store): [ClusterResourceStore, Freshness] => [
        store,
        continuing ? freshnessOf('0') : freshnessOf(requestVersion.get(store.cluster)),
      ]),
    );
    if (stale !== undefined) return stale;

    const responseVersion = requestVersion.clone();
    const items: ListedObjects[] = [];
    let count = 0;
    let nextPage: { cluster: string; continue: string } | undefined;
    const limit = options.limit;
    const full = () => limit > 0 && count === limit;
    const start = continuing ? stores.findIndex((store) => compare(store.cluster, token.cluster) >= 0) : 0;
    for (let index = Math.max(start, 0); start >= 0 && index < stores.length && !full(); index++) {
      const store = stores[index];
      responseVersion.set(store.cluster, store.resourceVersion);
      const afterKey = continuing && store.cluster === token.cluster ? token.continue : '';
      let lastKey = afterKey;
      const objects: CachedObject[] = [];
      for (const [key, object] of this.matching(store, namespace, afterKey, options)) {
        if (full()) {
          nextPage = { cluster: store.cluster, continue: lastKey };
          break;
        }
        objects.push(object);
        count++;
        lastKey = key;
      }
      if (objects.length > 0) items.push({ store, objects });
      if (full() && nextPage === undefined) {
        // Karmada names the next cluster even when nothing is left there, which can end a list
        // with an empty page; memory can tell.
        const following = stores
          .slice(index + 1)
          .find((later) => !this.matching(later, namespace, '', options).next().done);
        if (following !== undefined) nextPage = { cluster: following.cluster, continue: '' };
      }
    }
    for (const store of stores)
      if (!responseVersion.has(store.cluster)) responseVersion.set(store.cluster, store.resourceVersion);
    const rv = responseVersion.toString();
    const next = nextPage === undefined ? '' : formatMultiClusterContinue({ rv, ...nextPage });
    const { group, version, kind } = resource;
    return {
      fresh: true,
      value: {
        kind: `${kind}List`,
        apiVersion: apiVersionOf({ group, version }),
        resourceVersion: rv,
        continue: next,
        items,
        count,
      },
    };
  }

  /**
   * Watches every cluster's store of the resource (see MultiClusterWatch). A cluster's version
   * the store's window no longer reaches sends one ERROR event (410 Expired) and ends the watch.
   */
  async watch(request: CacheReadRequest, listener: WatchListener): Promise<CacheAnswer<MultiClusterWatch>> {
    const stores = this.storesOf(request.resource);
    const stale = await this.freshness.ensureAll(stores.map((store) => [store, freshnessOf('0')]));
    if (stale !== undefined) return stale;
    const watch = new MultiClusterWatch(request, listener);
    const requestVersion = MultiClusterResourceVersion.parse(request.options.resourceVersion);
    for (const store of stores) {
      const from = requestVersion.get(store.cluster);
      const resumable = from === '' || from === '0' ? true : store.resumable(from);
      if (resumable !== true) {
        watch.fail(tooOldResourceVersion(resumable.requested, resumable.oldest).status);
        return { fresh: true, value: watch };
      }
    }
    const key = resourceKey(request.resource);
    const active = this.watches.get(key) ?? new Set<MultiClusterWatch>();
    this.watches.set(key, active);
    active.add(watch);
    watch.onEnd(() => {
      active.delete(watch);
      if (active.size === 0 && this.watches.get(key) === active) this.watches.delete(key);
    });
    for (const store of stores) {
      if (watch.isEnded) break;
      const subscription = store.watch(requestVersion.get(store.cluster), watch.watcherFor(store.cluster));
      if ('close' in subscription) watch.follow(subscription);
      else watch.fail(tooOldResourceVersion(subscription.requested, subscription.oldest).status);
    }
    if (stores.length === 0) watch.stop();
    return { fresh: true, value: watch };
  }

  /**
   * Makes `store` as fresh as a read asks, relisting it only when it holds at most `refreshUpTo`
   * objects (cache-freshness.ts); Stale when it could not be in time, for the caller to answer the
   * read otherwise.
   */
  ensureFresh(store: ClusterResourceStore, freshness: Freshness, refreshUpTo: number): Promise<Stale | undefined> {
    return this.freshness.ensure(store, freshness, { refreshUpTo });
  }

  /** Stops every store (and so every watch). */
  stop(): void {
    for (const stores of this.stores.values()) for (const store of stores.values()) store.stop();
  }

  /** A store's objects in scope, in key order from after `afterKey`. */
  private *matching(
    store: ClusterResourceStore,
    namespace: string,
    afterKey: string,
    options: CacheReadOptions,
  ): Generator<[string, CachedObject]> {
    for (const entry of store.inKeyOrder(namespace, afterKey)) if (selects(options, entry[1])) yield entry;
  }
}

/** Karmada's answer when no cluster caches the resource. */
function emptyList(): CachedList {
  return { kind: 'List', apiVersion: 'v1', resourceVersion: '', continue: '', items: [], count: 0 };
}

function groupResource(resource: CacheResource): GroupResource {
  return { group: resource.group, resource: resource.resource };
}

function sameNamespaces(a: CachedNamespaces, b: CachedNamespaces): boolean {
  if (a === 'all' || b === 'all') return a === b;
  return a.size === b.size && [...a].every((namespace) => b.has(namespace));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
