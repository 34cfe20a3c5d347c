/**
 * One watch over every cluster that caches a resource, as karmada-search multiplexes its
 * per-cluster watches: each cluster's store is watched from that cluster's entry in the request's
 * multi-cluster resourceVersion, and every event's object gets the cumulative multi-cluster
 * resourceVersion (the request's, with each cluster's moved on by its events) and the annotation
 * naming its cluster. BOOKMARKs are rewritten the same way. The watch ends, as a whole, when any
 * cluster's store is stopped, when the cache ends it (a store was added for the resource), or
 * when the client stops it.
 *
 * Selectors apply to transitions as in kube's watch cache: an object that stops matching arrives
 * as DELETED (its previous content), one that starts matching as ADDED.
 */
import type { CachedObject } from './cached-object.js';
import { answerText, CACHE_SOURCE_ANNOTATION, type TypeMeta } from './cached-object-text.js';
import { selects, type CacheReadOptions } from './cache-read-options.js';
import {
  apiVersionOf,
  typeMetaOf,
  type CacheResource,
  type StoreEvent,
  type StoreSubscription,
  type StoreWatcher,
} from './cluster-resource-store.js';
import { MultiClusterResourceVersion } from './multi-cluster-resource-version.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Where a watch's events go: each as the JSON text of its object; `end` once, last. */
export interface WatchListener {
  event(type: WatchEventType, objectText: string): void;
  end(): void;
}

export interface WatchScope {
  resource: CacheResource;
  /** '' for all namespaces. */
  namespace: string;
  /** Set when the watch is of one object. */
  name?: string;
  options: CacheReadOptions;
}

export class MultiClusterWatch {
  private readonly subscriptions: StoreSubscription[] = [];
  private readonly responseVersion: MultiClusterResourceVersion;
  private ended = false;
  private readonly endListeners: (() => void)[] = [];
  private readonly type: TypeMeta;

  constructor(
    private readonly scope: WatchScope,
    private readonly listener: WatchListener,
  ) {
    this.responseVersion = MultiClusterResourceVersion.parse(scope.options.resourceVersion);
    this.type = typeMetaOf(scope.resource);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** The watcher a cluster's store delivers to. */
  watcherFor(cluster: string): StoreWatcher {
    return {
      event: (event) => this.deliver(cluster, event),
      bookmark: (resourceVersion) => this.bookmark(cluster, resourceVersion),
      stopped: () => this.stop(),
    };
  }

  follow(subscription: StoreSubscription): void {
    if (this.ended) subscription.close();
    else this.subscriptions.push(subscription);
  }

  /** Runs `listener` when the watch ends (at once if it has). */
  onEnd(listener: () => void): void {
    if (this.ended) listener();
    else this.endListeners.push(listener);
  }

  /** Sends an ERROR event with `status` and ends the watch. */
  fail(status: unknown): void {
    if (this.ended) return;
    this.listener.event('ERROR', JSON.stringify(status));
    this.stop();
  }

  stop(): void {
    if (this.ended) return;
    this.ended = true;
    for (const subscription of this.subscriptions) subscription.close();
    this.listener.end();
    for (const listener of this.endListeners) listener();
  }

  private deliver(cluster: string, event: StoreEvent): void {
    if (this.ended) return;
    const type = this.transition(event);
    if (type === undefined) return;
    const object = type === 'DELETED' && event.type === 'MODIFIED' ? event.previous! : event.object;
    this.responseVersion.set(cluster, event.resumeFrom);
    this.listener.event(type, answerText(object, this.type, cluster, this.responseVersion.toString()));
  }

  private bookmark(cluster: string, resourceVersion: string): void {
    if (this.ended || !this.scope.options.allowWatchBookmarks) return;
    this.responseVersion.set(cluster, resourceVersion);
    const { group, version, kind } = this.scope.resource;
    const object = {
      kind,
      apiVersion: apiVersionOf({ group, version }),
      metadata: {
        resourceVersion: this.responseVersion.toString(),
        annotations: { [CACHE_SOURCE_ANNOTATION]: cluster },
      },
    };
    this.listener.event('BOOKMARK', JSON.stringify(object));
  }

  private transition(event: StoreEvent): WatchEventType | undefined {
    const now = this.inScope(event.object);
    if (event.type !== 'MODIFIED') return now ? event.type : undefined;
    const before = event.previous === undefined ? now : this.inScope(event.previous);
    if (now) return before ? 'MODIFIED' : 'ADDED';
    return before ? 'DELETED' : undefined;
  }

  private inScope(object: CachedObject): boolean {
    const { namespace, name, options } = this.scope;
    if (namespace !== '' && (object.metadata.namespace ?? '') !== namespace) return false;
    if (name !== undefined && object.metadata.name !== name) return false;
    return selects(options, object);
  }
}
