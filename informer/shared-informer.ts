/**
 * client-go's SharedInformer: a reflector that fills an Indexer, and event handlers told of every
 * change. A relist's replace is turned into the changes it makes: objects new to the indexer are
 * adds, objects already there updates, and objects the list no longer has deletes whose final
 * state is unknown (client-go's `DeletedFinalStateUnknown`: they went while the watch was down).
 * A handler added after the first list is told of the objects already there as adds.
 *
 * client-go queues the changes (DeltaFIFO) and each handler reads them on its own goroutine;
 * here the reflector's sink applies each change to the indexer and then calls the handlers, in
 * order, on Node's one thread. A handler that throws is reported and the others still run.
 */
import type { Json } from '../apiserver/json.js';
import { reportFault } from '../apiserver/process-faults.js';
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
}

export class SharedInformer<T extends NonNullable<unknown> = Json> {
  private readonly store: Indexer<T>;
  private readonly reflector: Reflector<T>;
  private readonly handlers = new Set<InformerEventHandler<T>>();
  private readonly keyFunc: KeyFunc<T>;
  private listed = false;

  constructor(
    listerWatcher: ListerWatcher,
    private readonly options: SharedInformerOptions<T>,
  ) {
    this.keyFunc = options.keyFunc ?? metaNamespaceKeyFunc;
    this.store = new Indexer(options.indexers ?? {}, this.keyFunc);
    const sink: ReflectorSink<T> = {
      replace: (items, resourceVersion) => this.replace(items, resourceVersion),
      add: (obj) => this.upsert(obj),
      update: (obj) => this.upsert(obj),
      delete: (obj) => this.remove(obj),
      bookmark: () => {},
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

  addEventHandler(handler: InformerEventHandler<T>): HandlerRegistration {
    this.handlers.add(handler);
    if (this.listed) for (const obj of this.store.list()) this.call(handler, (h) => h.onAdd?.(obj, true));
    return { remove: () => this.handlers.delete(handler) };
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
    for (const change of changes) change();
    for (const gone of previous.values()) this.notify((h) => h.onDelete?.(gone, true));
  }

  private upsert(obj: T): void {
    const old = this.store.get(obj);
    this.store.update(obj);
    if (old === undefined) this.notify((h) => h.onAdd?.(obj, false));
    else this.notify((h) => h.onUpdate?.(old, obj));
  }

  private remove(obj: T): void {
    this.store.delete(obj);
    this.notify((h) => h.onDelete?.(obj, false));
  }

  private notify(event: (handler: InformerEventHandler<T>) => void): void {
    for (const handler of this.handlers) this.call(handler, event);
  }

  private call(handler: InformerEventHandler<T>, event: (handler: InformerEventHandler<T>) => void): void {
    try {
      event(handler);
    } catch (error) {
      reportFault('uncaughtException', `informer ${this.options.name}: an event handler`, error);
    }
  }
}
