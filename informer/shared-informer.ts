/**
 * client-go's SharedInformer: a reflector that fills an Indexer, and event handlers told of every
 * change. A relist's replace is turned into the changes it makes: objects new to the indexer are
 * adds, objects already there updates, and objects the list no longer has deletes whose final
 * state is unknown (client-go's `DeletedFinalStateUnknown`: they went while the watch was down).
 * A handler added after the first list is told of the objects already there as adds.
 *
 * Besides handlers, a consumer that keeps a store of its own (the multi-cluster cache's
 * ClusterResourceStore) subscribes as a ReflectorSink: it is passed the reflector's calls as they
 * come (lists, events, BOOKMARKs, each with its resourceVersion), the same objects the indexer
 * holds; one subscribed after the first list gets a `replace` of what the indexer holds at once.
 *
 * client-go queues the changes (DeltaFIFO) and each handler reads them on its own goroutine;
 * here the reflector's sink applies each change to the indexer and then calls the handlers, in
 * order, on Node's one thread. A handler that throws is reported and the others still run.
 */
import type { Json } from '../apiserver/json.js';
import { detach, reportFault } from '../apiserver/process-faults.js';
import { Indexer } from './indexer.js';
import { metaNamespaceKeyFunc, type KeyFunc } from './key-func.js';
import { Reflector, type ReflectorOptions, type ReflectorStats } from './reflector.js';
import type { ReflectorSink } from './reflector-sink.js';
import type { ListerWatcher } from './list-watcher.js';
import type { Indexers } from './store-index.js';

export interface InformerEventHandler<T> {
  /** `isInInitialList`: the object came with the first list, or was there when the handler was added. */
  onAdd?(obj: T, isInInitialList: boolean): void;
  onUpdate?(oldObj: T, newObj: T): void;
  /** `finalStateUnknown`: gone from a relist, so `obj` is its last state seen rather than its state at deletion. */
  onDelete?(obj: T, finalStateUnknown: boolean): void;
}

export interface HandlerRegistration {
  remove(): void;
}

/** The Indexer's reads: the informer alone writes to it. */
export type ReadonlyIndexer<T extends NonNullable<unknown>> = Pick<
  Indexer<T>,
  | 'get'
  | 'getByKey'
  | 'list'
  | 'listKeys'
  | 'index'
  | 'indexKeys'
  | 'byIndex'
  | 'listIndexFuncValues'
  | 'getIndexers'
  | 'lastSyncResourceVersion'
>;

export interface SharedInformerOptions<T> extends ReflectorOptions<T> {
  indexers?: Indexers<T>;
  keyFunc?: KeyFunc<T>;
  /** Called when the last handler or sink is removed (shared-informer-factory.ts stops the informer then). */
  onIdle?: () => void;
}

export class SharedInformer<T extends NonNullable<unknown> = Json> {
  private readonly store: Indexer<T>;
  private readonly reflector: Reflector<T>;
  private readonly handlers = new Set<InformerEventHandler<T>>();
  private readonly sinks = new Set<ReflectorSink<T>>();
  private readonly keyFunc: KeyFunc<T>;
  private listed = false;
  /** The relist that makes every held object anew after `retransform`, until it is in. */
  private remaking: Promise<boolean> | undefined;

  constructor(
    listerWatcher: ListerWatcher,
    private readonly options: SharedInformerOptions<T>,
  ) {
    this.keyFunc = options.keyFunc ?? metaNamespaceKeyFunc;
    this.store = new Indexer(options.indexers ?? {}, this.keyFunc);
    const sink: ReflectorSink<T> = {
      replace: (items, resourceVersion) => this.replace(items, resourceVersion),
      add: (obj, resourceVersion) => this.upsert(obj, resourceVersion),
      update: (obj, resourceVersion) => this.upsert(obj, resourceVersion),
      delete: (obj, resourceVersion) => this.remove(obj, resourceVersion),
      bookmark: (resourceVersion) => this.toSinks((s) => s.bookmark(resourceVersion)),
    };
    this.reflector = new Reflector(listerWatcher, sink, options);
  }

  get indexer(): ReadonlyIndexer<T> {
    return this.store;
  }

  get stats(): Readonly<ReflectorStats> {
    return this.reflector.stats;
  }

  /** Resolves true once the first list is in, false if stopped before. */
  get firstSync(): Promise<boolean> {
    return this.reflector.firstSync;
  }

  run(): void {
    this.reflector.run();
  }

  stop(): void {
    this.reflector.stop();
  }

  hasSynced(): boolean {
    return this.reflector.hasSynced();
  }

  /** Synced, and the watch has not failed since the last list (see Reflector.isCurrent). */
  isCurrent(): boolean {
    return this.reflector.isCurrent();
  }

  lastSyncResourceVersion(): string {
    return this.reflector.lastSyncResourceVersion();
  }

  /** Lists again at the cluster's newest state (Reflector.resync); false when it could not be. */
  resync(): Promise<boolean> {
    return this.reflector.resync();
  }

  /**
   * Holds objects as `transform` makes them from now on, and lists again (resync) so that every
   * object held is made anew; resolves as resync does. A sink added before that list is in gets
   * it as its first `replace`, never the objects held now.
   */
  retransform(transform: (obj: Json) => T): Promise<boolean> {
    this.reflector.setTransform(transform);
    // Before the first list nothing is held: that list is made by the new transform.
    if (!this.listed) return this.firstSync;
    const remaking = this.reflector.resync();
    this.remaking = remaking;
    detach(
      remaking.then(() => {
        if (this.remaking === remaking) this.remaking = undefined;
      }),
      `informer ${this.options.name}: its relist after a new transform`,
    );
    return remaking;
  }

  /**
   * Adds indexes, filled from the objects already held. Consumers share an informer, so an index
   * already there under the same name with the same function is taken as it is; the same name
   * with another function is refused (the Indexer's conflict).
   */
  addIndexers(indexers: Indexers<T>): void {
    const present = this.store.getIndexers();
    const missing = Object.entries(indexers).filter(([name, indexFunc]) => present[name] !== indexFunc);
    if (missing.length) this.store.addIndexers(Object.fromEntries(missing));
  }

  addEventHandler(handler: InformerEventHandler<T>): HandlerRegistration {
    this.handlers.add(handler);
    if (this.listed) for (const obj of this.store.list()) this.call(handler, (h) => h.onAdd?.(obj, true));
    return { remove: () => this.removed(this.handlers.delete(handler)) };
  }

  /**
   * Passes every list, event and BOOKMARK on to `sink` in order, after the indexer has it; a sink
   * added after the first list is first given a `replace` of what the indexer holds (or, while
   * the informer lists again after `retransform`, of that list).
   */
  addSink(sink: ReflectorSink<T>): HandlerRegistration {
    this.sinks.add(sink);
    if (this.listed && !this.remaking)
      this.call(sink, (s) => s.replace(this.store.list(), this.reflector.lastSyncResourceVersion()), 'a sink');
    return { remove: () => this.removed(this.sinks.delete(sink)) };
  }

  /** Handlers and sinks registered now. */
  get registrations(): number {
    return this.handlers.size + this.sinks.size;
  }

  private removed(wasThere: boolean): void {
    if (wasThere && this.registrations === 0) this.options.onIdle?.();
  }

  private replace(items: readonly T[], resourceVersion: string): void {
    const initial = !this.listed;
    const previous = new Map<string, T>();
    for (const key of this.store.listKeys()) previous.set(key, this.store.getByKey(key)!);
    const changes: (() => void)[] = [];
    for (const obj of items) {
      const key = this.keyFunc(obj);
      const old = previous.get(key);
      previous.delete(key);
      changes.push(
        old === undefined
          ? () => this.notify((h) => h.onAdd?.(obj, initial))
          : () => this.notify((h) => h.onUpdate?.(old, obj)),
      );
    }
    this.store.replace(items, resourceVersion);
    this.listed = true;
    this.toSinks((s) => s.replace(items, resourceVersion));
    for (const change of changes) change();
    for (const gone of previous.values()) this.notify((h) => h.onDelete?.(gone, true));
  }

  private upsert(obj: T, resourceVersion: string): void {
    const old = this.store.get(obj);
    this.store.update(obj);
    this.toSinks((s) => (old === undefined ? s.add(obj, resourceVersion) : s.update(obj, resourceVersion)));
    if (old === undefined) this.notify((h) => h.onAdd?.(obj, false));
    else this.notify((h) => h.onUpdate?.(old, obj));
  }

  private remove(obj: T, resourceVersion: string): void {
    this.store.delete(obj);
    this.toSinks((s) => s.delete(obj, resourceVersion));
    this.notify((h) => h.onDelete?.(obj, false));
  }

  private notify(event: (handler: InformerEventHandler<T>) => void): void {
    for (const handler of this.handlers) this.call(handler, event);
  }

  private toSinks(call: (sink: ReflectorSink<T>) => void): void {
    for (const sink of this.sinks) this.call(sink, call, 'a sink');
  }

  private call<H>(to: H, event: (to: H) => void, what = 'an event handler'): void {
    try {
      event(to);
    } catch (error) {
      reportFault('uncaughtException', `informer ${this.options.name}: ${what}`, error);
    }
  }
}
