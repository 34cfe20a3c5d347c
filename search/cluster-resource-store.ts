/**
 * One member cluster × one resource in the multi-cluster cache: the objects its cluster's shared
 * informer of the resource lists and watches (it is a ReflectorSink the informer passes every
 * list, event and BOOKMARK to; the objects are the informer's own, not copies) in key order (a
 * namespace's or a tenant's objects are a run of it), the version they are at, and a window of
 * recent events for watches (karmada-search keeps a kube watch cache, a `Cacher`, per cluster and
 * resource; this is its in-memory part).
 *
 * Only the namespaces the store caches are kept: an object of another namespace moves the version
 * on and is otherwise ignored. Watchers get every change in order, synchronously from the write
 * that made it. A relist (`replace` after the first) is compared with what was cached and reaches
 * watchers as the DELETED, ADDED and MODIFIED events that turn one into the other.
 */
import { cachedObjectKey, type CachedObject } from './cached-object.js';
import type { TypeMeta } from './cached-object-text.js';
import { EventWindow, type TooOld } from './event-window.js';
import { Indexer } from '../informer/indexer.js';
import { storeKey } from '../informer/key-func.js';
import type { ReflectorSink } from '../informer/reflector-sink.js';
import { atLeast } from '../informer/resource-version-order.js';

/**
 * Events a watch can resume after, per store. kube's watch cache starts at 100 and grows to
 * 100·1024 while its events are younger than 75 s; one cluster's share of one resource sees far
 * fewer writes than a whole kube-apiserver, and each held event keeps an old version of an object
 * alive, so a fixed 1024 covers a reconnect within seconds of a busy resource at a bounded cost.
 */
export const DEFAULT_EVENT_WINDOW = 1024;

/** The resource a store holds, as the multi-cluster cache names and answers it. */
export interface CacheResource {
  readonly group: string;
  readonly version: string;
  /** The plural resource name, as in URLs: `pods`. */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/** `<group>/<version>/<resource>`: one resource, whatever the cluster. */
export function resourceKey(resource: Pick<CacheResource, 'group' | 'version' | 'resource'>): string {
  return `${resource.group}/${resource.version}/${resource.resource}`;
}

/** A group-version as `apiVersion` spells it (GroupVersion.String()): `v1` for the core group, else `<group>/<version>`. */
export function apiVersionOf({ group, version }: { group: string; version: string }): string {
  return group ? `${group}/${version}` : version;
}

/** The kind and apiVersion of a resource's objects. */
export function typeMetaOf(resource: CacheResource): TypeMeta {
  return { kind: resource.kind, apiVersion: apiVersionOf(resource) };
}

/** The namespaces a store caches: all of them, or these. */
export type CachedNamespaces = 'all' | ReadonlySet<string>;

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  readonly type: StoreEventType;
  readonly object: CachedObject;
  /** A MODIFIED object as it was before, for watchers whose selector it leaves. */
  readonly previous?: CachedObject;
  /** The store's version after this event. */
  readonly resourceVersion: string;
  /**
   * Where a watcher that has seen this event resumes: its resourceVersion, except within a relist's
   * burst of events, which all have the relist's version. There every event but the last resumes
   * from the version before the relist, so a watcher cut off inside the burst gets all of it again.
   */
  readonly resumeFrom: string;
}

export interface StoreWatcher {
  event(event: StoreEvent): void;
  /** A BOOKMARK: the store has every change up to `resourceVersion`. */
  bookmark(resourceVersion: string): void;
  /** The store was stopped (removed from the cache); no event follows. */
  stopped(): void;
}

export interface StoreSubscription {
  close(): void;
}

export class ClusterResourceStore implements ReflectorSink<CachedObject> {
  // No index: a namespace's objects are a run of the sorted keys (inKeyOrder), and so are a tenant's (withKeyPrefix).
  private readonly indexer = new Indexer<CachedObject>({}, cachedObjectKey);
  private readonly window: EventWindow<StoreEvent>;
  private readonly watchers = new Set<StoreWatcher>();
  private readonly freshnessWaiters = new Set<{ target: string; reached: () => void }>();
  private version = '';
  private moves = 0;
  private bytes = 0;
  private synced = false;
  private stoppedAlready = false;
  /** The keys in order, kept between reads until a key comes or goes. */
  private sortedKeys: string[] | undefined;
  /** What every object here is: the text leaves it out (cached-object-text.ts). */
  readonly type: TypeMeta;

  constructor(
    readonly cluster: string,
    readonly resource: CacheResource,
    readonly namespaces: CachedNamespaces = 'all',
    windowSize = DEFAULT_EVENT_WINDOW,
  ) {
    this.window = new EventWindow(windowSize);
    this.type = typeMetaOf(resource);
  }

  /** The version the store has reached: of its last list, event or bookmark. */
  get resourceVersion(): string {
    return this.version;
  }

  /** How many times the store's version has moved (lists, events, bookmarks): whether it has heard anything since. */
  get progress(): number {
    return this.moves;
  }

  /** Whether the first list has arrived. */
  get hasSynced(): boolean {
    return this.synced;
  }

  get stopped(): boolean {
    return this.stoppedAlready;
  }

  get size(): number {
    return this.keys().length;
  }

  /** The length of the cached texts together: what the objects weigh as JSON (for metrics). */
  get textBytes(): number {
    return this.bytes;
  }

  replace(items: readonly CachedObject[], resourceVersion: string): void {
    const kept = items.filter((object) => this.caches(object));
    this.bytes = kept.reduce((sum, object) => sum + object.text.length, 0);
    if (!this.synced) {
      this.indexer.replace(kept, resourceVersion);
      this.sortedKeys = undefined;
      this.window.reset(resourceVersion);
      this.synced = true;
      this.version = resourceVersion;
      this.wakeWaiters();
      return;
    }
    const before = this.version;
    const changes: Pick<StoreEvent, 'type' | 'object' | 'previous'>[] = [];
    const incoming = new Map(kept.map((object) => [object.key, object]));
    for (const key of this.keys()) {
      if (!incoming.has(key)) changes.push({ type: 'DELETED', object: this.indexer.getByKey(key)! });
    }
    for (const [key, object] of incoming) {
      const previous = this.indexer.getByKey(key);
      if (previous === undefined) changes.push({ type: 'ADDED', object });
      else if (previous.metadata.resourceVersion !== object.metadata.resourceVersion)
        changes.push({ type: 'MODIFIED', object, previous });
    }
    this.indexer.replace(kept, resourceVersion);
    this.sortedKeys = undefined;
    this.version = resourceVersion;
    changes.forEach((change, i) =>
      this.emit({ ...change, resourceVersion, resumeFrom: i === changes.length - 1 ? resourceVersion : before }),
    );
    this.wakeWaiters();
  }

  add(object: CachedObject, resourceVersion: string): void {
    this.write(object, resourceVersion);
  }

  update(object: CachedObject, resourceVersion: string): void {
    this.write(object, resourceVersion);
  }

  delete(object: CachedObject, resourceVersion: string): void {
    const key = object.key;
    const cached = this.indexer.getByKey(key);
    this.version = resourceVersion;
    if (cached !== undefined) {
      this.bytes -= cached.text.length;
      this.indexer.delete(cached);
      this.sortedKeys = undefined;
      this.emit({ type: 'DELETED', object, resourceVersion, resumeFrom: resourceVersion });
    }
    this.wakeWaiters();
  }

  bookmark(resourceVersion: string): void {
    this.version = resourceVersion;
    for (const watcher of [...this.watchers]) if (this.watchers.has(watcher)) watcher.bookmark(resourceVersion);
    this.wakeWaiters();
  }

  /** The object under `<namespace>/<name>` (or `<name>`), if the store caches that namespace and has it. */
  get(namespace: string, name: string): CachedObject | undefined {
    if (!this.cachesNamespace(namespace)) return undefined;
    return this.indexer.getByKey(storeKey(this.resource.namespaced ? namespace : '', name));
  }

  /**
   * The objects of `namespace` ('' for all) in key order, from just after `afterKey`, as they are
   * visited one by one: paging reads only as far as a page needs.
   */
  *inKeyOrder(namespace: string, afterKey = ''): Generator<[key: string, object: CachedObject]> {
    if (namespace !== '' && !this.cachesNamespace(namespace)) return;
    // Keys of one namespace are `<namespace>/…`.
    yield* this.withKeyPrefix(this.resource.namespaced && namespace !== '' ? `${namespace}/` : '', afterKey);
  }

  /**
   * The objects whose key starts with `prefix`, in key order from just after `afterKey`: a
   * contiguous run of the order, found by binary search, so a tenant's objects (keys
   * `<tid>-<namespace>/<name>`) cost what they are, not what the store holds.
   */
  *withKeyPrefix(prefix: string, afterKey = ''): Generator<[key: string, object: CachedObject]> {
    const keys = this.keys();
    for (let i = firstAfter(keys, afterKey > prefix ? afterKey : prefix, afterKey > prefix); i < keys.length; i++) {
      const key = keys[i];
      if (!key.startsWith(prefix)) return;
      const object = this.indexer.getByKey(key);
      if (object !== undefined) yield [key, object];
    }
  }

  /** Whether a watch could resume from `resourceVersion` now; TooOld when the window no longer reaches it. */
  resumable(resourceVersion: string): true | TooOld {
    const events = this.window.since(resourceVersion);
    return Array.isArray(events) ? true : events;
  }

  /** The events after `resourceVersion` the window holds, or TooOld when it no longer reaches it. */
  eventsSince(resourceVersion: string): readonly StoreEvent[] | TooOld {
    return this.window.since(resourceVersion);
  }

  /**
   * Subscribes `watcher`: from `''` or `'0'`, every object now cached first arrives as ADDED (each
   * resuming from its own version, as kube's initial events carry theirs); from a version N, the
   * events after N in the window. Returns TooOld instead when the window does not reach N.
   */
  watch(resourceVersion: string, watcher: StoreWatcher): StoreSubscription | TooOld {
    let replay: StoreEvent[];
    if (resourceVersion === '' || resourceVersion === '0') {
      replay = [];
      for (const [, object] of this.inKeyOrder('')) {
        const version = object.metadata.resourceVersion;
        replay.push({ type: 'ADDED', object, resourceVersion: version, resumeFrom: version });
      }
    } else {
      const events = this.window.since(resourceVersion);
      if (!Array.isArray(events)) return events;
      replay = events;
    }
    const subscription = { close: () => this.watchers.delete(watcher) };
    if (this.stoppedAlready) {
      watcher.stopped();
      return subscription;
    }
    this.watchers.add(watcher);
    for (const event of replay) {
      if (!this.watchers.has(watcher)) break;
      watcher.event(event);
    }
    return subscription;
  }

  /** Resolves true once the store has synced and reached `resourceVersion`, or false after `timeoutMs`. */
  waitUntilFresh(resourceVersion: string, timeoutMs: number): Promise<boolean> {
    if (this.fresh(resourceVersion)) return Promise.resolve(true);
    if (this.stoppedAlready) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = {
        target: resourceVersion,
        reached: () => {
          clearTimeout(timer);
          this.freshnessWaiters.delete(waiter);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.freshnessWaiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      this.freshnessWaiters.add(waiter);
    });
  }

  /** Ends every watch of this store; reads answer what was cached. */
  stop(): void {
    if (this.stoppedAlready) return;
    this.stoppedAlready = true;
    const watchers = [...this.watchers];
    this.watchers.clear();
    for (const watcher of watchers) watcher.stopped();
  }

  private fresh(resourceVersion: string): boolean {
    return this.synced && (resourceVersion === '' || atLeast(this.version, resourceVersion));
  }

  private write(object: CachedObject, resourceVersion: string): void {
    this.version = resourceVersion;
    if (this.caches(object)) {
      const previous = this.indexer.get(object);
      this.indexer.update(object);
      this.bytes += object.text.length - (previous?.text.length ?? 0);
      if (previous === undefined) {
        this.sortedKeys = undefined;
        this.emit({ type: 'ADDED', object, resourceVersion, resumeFrom: resourceVersion });
      } else {
        this.emit({ type: 'MODIFIED', object, previous, resourceVersion, resumeFrom: resourceVersion });
      }
    }
    this.wakeWaiters();
  }

  private emit(event: StoreEvent): void {
    this.window.push(event);
    for (const watcher of [...this.watchers]) if (this.watchers.has(watcher)) watcher.event(event);
  }

  private wakeWaiters(): void {
    this.moves++;
    for (const waiter of [...this.freshnessWaiters]) if (this.fresh(waiter.target)) waiter.reached();
  }

  private caches(object: CachedObject): boolean {
    return !this.resource.namespaced || this.cachesNamespace(object.metadata.namespace ?? '');
  }

  private cachesNamespace(namespace: string): boolean {
    return !this.resource.namespaced || this.namespaces === 'all' || this.namespaces.has(namespace);
  }

  private keys(): string[] {
    this.sortedKeys ??= this.indexer.listKeys().sort();
    return this.sortedKeys;
  }
}

/** The index of the first key from `from` on (after it, when `exclusive`) in sorted `keys`. */
function firstAfter(keys: readonly string[], from: string, exclusive: boolean): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle] < from || (exclusive && keys[middle] === from)) low = middle + 1;
    else high = middle;
  }
  return low;
}
