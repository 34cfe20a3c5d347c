/**
 * client-go's Reflector: lists a resource (in pages, following `continue`), replaces a sink's
 * contents with the list, then watches from the list's resourceVersion and hands every change
 * to the sink, so the sink mirrors the cluster. It keeps going until stopped:
 *
 * - a watch the server ends cleanly (its `timeoutSeconds`, 5–10 min) is reopened from the last
 *   resourceVersion seen; so is one that breaks, or stays silent (no event, no BOOKMARK) longer
 *   than the idle bound, which catches a connection that died without a word;
 * - a watch the cluster refuses to open (connection refused, 429) is retried after the backoff
 *   from the same resourceVersion: a restarting cluster costs no relist;
 * - a 410 Expired (an ERROR event, or a refused watch), a watch that ends within a second with
 *   nothing in it, and any other failure end the run: after the backoff it lists again, at the
 *   last resourceVersion, or (when that one is expired too) at the newest;
 * - BOOKMARKs move the resourceVersion on, so a reopened watch starts past quiet stretches.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { detach } from '../apiserver/process-faults.js';
import { isObject, type Json } from '../apiserver/json.js';
import { ApiError } from '../apiserver/status.js';
import { REFLECTOR_BACKOFF, REFLECTOR_BACKOFF_RESET_MS, ResettingBackoff } from './backoff.js';
import type { ListerWatcher, ListPageOptions, WatchEvent, WatchStream } from './list-watcher.js';
import type { ReflectorSink } from './reflector-sink.js';

/** client-go's pager default. */
export const DEFAULT_PAGE_SIZE = 500;
/** A watch asks the server to end it after a random time in [min, 2·min] (client-go's spread). */
const MIN_WATCH_TIMEOUT_SECONDS = 300;
/** No event or BOOKMARK for this long: the watch is presumed dead and reopened. */
const DEFAULT_IDLE_WATCH_TIMEOUT_MS = 120_000;
/** A list page that takes longer has failed (kube-apiserver's own request timeout is a minute). */
const DEFAULT_LIST_TIMEOUT_MS = 60_000;
/** A watch that ends sooner with no event is an error, not a clean end (client-go's "very short watch"). */
const SHORT_WATCH_MS = 1000;

/** Why a watch ended. */
export type WatchEnd = 'closed' | 'broken' | 'idle' | 'expired' | 'failed';

/** Where the lead's metrics and logs hang on. */
export interface ReflectorHooks {
  /** A list replaced the sink's contents (`relist`: not the first one). */
  listed?(resourceVersion: string, items: number, relist: boolean): void;
  watchStarted?(resourceVersion: string): void;
  watchEnded?(end: WatchEnd, error?: unknown): void;
  /** A list or watch failed; the reflector backs off and goes on. */
  failed?(error: unknown): void;
}

export interface ReflectorOptions<T> {
  /** Names the reflector in reported faults. */
  name: string;
  /**
   * The list's page size (client-go's `WatchListPageSize`). Unset, the first list is paged by
   * 500, and relists at a known resourceVersion are paged only if the first list came in pages.
   */
  pageSize?: number;
  /** Applied to every listed and watched object before the sink; by default drops `metadata.managedFields`. */
  transform?: (obj: Json) => T;
  /** The watch's `timeoutSeconds` is random in [min, 2·min]. */
  minWatchTimeoutSeconds?: number;
  idleWatchTimeoutMs?: number;
  listTimeoutMs?: number;
  /** The delay before a retry; client-go's reflector backoff by default. */
  backoff?: () => number;
  random?: () => number;
  now?: () => number;
  hooks?: ReflectorHooks;
}

export interface ReflectorStats {
  lists: number;
  relists: number;
  /** Watches reopened without a list in between. */
  watchRestarts: number;
  failures: number;
  /** When the last watch event (BOOKMARKs included) arrived, in ms since the epoch. */
  lastEventAt: number | undefined;
}

/** The default transform: `metadata.managedFields` is large and nothing a reader of the cache needs. */
export function dropManagedFields(obj: Json): Json {
  if (isObject(obj.metadata)) delete obj.metadata.managedFields;
  return obj;
}

export class Reflector<T = Json> {
  readonly stats: ReflectorStats = { lists: 0, relists: 0, watchRestarts: 0, failures: 0, lastEventAt: undefined };
  /** Resolves true once the first list is in the sink, false if stopped before. */
  readonly firstSync: Promise<boolean>;
  private resolveFirstSync!: (synced: boolean) => void;
  private lastSync = '';
  /** The last list or watch at `lastSync` was refused as expired: list at the newest instead. */
  private lastSyncUnavailable = false;
  /** The first list came in pages: the server pages this resource, so relists are paged too. */
  private paginatedResult = false;
  private synced = false;
  private current = false;
  private started = false;
  private readonly stopping = new AbortController();
  /** A resync asked for and not yet listed: its waiters, and the abort of the watch it ends. */
  private resyncing: { done: Promise<boolean>; resolve: (listed: boolean) => void } | undefined;
  private watchEnding: AbortController | undefined;
  private transform: (obj: Json) => T;
  private readonly backoff: () => number;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(
    private readonly listerWatcher: ListerWatcher,
    private readonly sink: ReflectorSink<T>,
    private readonly options: ReflectorOptions<T>,
  ) {
    this.firstSync = new Promise((resolve) => (this.resolveFirstSync = resolve));
    this.transform = options.transform ?? (dropManagedFields as (obj: Json) => T);
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    const backoff = new ResettingBackoff(REFLECTOR_BACKOFF, REFLECTOR_BACKOFF_RESET_MS, this.now, this.random);
    this.backoff = options.backoff ?? (() => backoff.next());
  }

  /** Objects listed or watched from now on are held as `transform` makes them. */
  setTransform(transform: (obj: Json) => T): void {
    this.transform = transform;
  }

  /** Starts listing and watching, once. */
  run(): void {
    if (this.started) return;
    this.started = true;
    detach(this.loop(), `reflector ${this.options.name}`);
  }

  stop(): void {
    this.stopping.abort();
    this.resolveFirstSync(false);
    this.resyncing?.resolve(false);
  }

  /**
   * Lists again at the cluster's newest state (resourceVersion ""), ending the watch: how a read
   * that must be as fresh as the cluster is served when no event or BOOKMARK brought the sink
   * there in time. Resolves true once that list is in the sink (false if stopped first); calls
   * made before it begins share it.
   */
  resync(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    if (!this.resyncing) {
      let resolve!: (listed: boolean) => void;
      const done = new Promise<boolean>((r) => (resolve = r));
      this.resyncing = { done, resolve };
      this.watchEnding?.abort();
    }
    return this.resyncing.done;
  }

  /** The resourceVersion the sink has reached: of the last list, event or BOOKMARK. */
  lastSyncResourceVersion(): string {
    return this.lastSync;
  }

  /** The first list is in the sink. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** The sink follows the cluster now: listed, and the watch not failed since (a clean reopen keeps it current). */
  isCurrent(): boolean {
    return this.current;
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.list();
        await this.watch();
      } catch (error) {
        if (this.stopped) break;
        this.fail(error);
      }
      if (!this.resyncing) await this.pause();
    }
  }

  private fail(error: unknown): void {
    this.current = false;
    this.stats.failures++;
    this.options.hooks?.failed?.(error);
  }

  /** Waits the backoff's delay, or until stopped. */
  private async pause(): Promise<void> {
    if (this.stopped) return;
    await delay(this.backoff(), undefined, { signal: this.stopping.signal }).catch(() => {});
  }

  /** `relistResourceVersion`: '0' first (any recent state will do), then the last one reached, or the newest when that is gone. */
  private relistResourceVersion(): string {
    if (this.lastSyncUnavailable || this.resyncing) return '';
    return this.lastSync === '' ? '0' : this.lastSync;
  }

  private async list(): Promise<void> {
    const resync = this.resyncing;
    const resourceVersion = this.relistResourceVersion();
    let list: PagedList;
    try {
      list = await this.listPages(resourceVersion);
    } catch (error) {
      if (!isExpired(error) && !isTooLargeResourceVersion(error)) throw error;
      this.lastSyncUnavailable = true;
      list = await this.listPages(this.relistResourceVersion());
    }
    if (resourceVersion === '0' && list.paginated) this.paginatedResult = true;
    this.lastSyncUnavailable = false;
    this.sink.replace(list.items.map(this.transform), list.resourceVersion);
    this.lastSync = list.resourceVersion;
    const relist = this.synced;
    this.synced = true;
    this.current = true;
    this.stats.lists++;
    if (relist) this.stats.relists++;
    this.resolveFirstSync(true);
    if (resync && this.resyncing === resync) {
      this.resyncing = undefined;
      resync.resolve(true);
    }
    this.options.hooks?.listed?.(list.resourceVersion, list.items.length, relist);
  }

  /**
   * client-go's pager: pages of `pageSize` until the last, continuation pages without a
   * resourceVersion; a continue token that expired midway means one unpaged list at the
   * requested resourceVersion instead (`FullListIfExpired`).
   */
  private async listPages(resourceVersion: string): Promise<PagedList> {
    const limit = this.pageSizeFor(resourceVersion);
    const items: Json[] = [];
    let paginated = false;
    let token = '';
    for (;;) {
      const options: ListPageOptions = token === '' ? { limit, resourceVersion } : { limit, continue: token };
      let page;
      try {
        page = await this.listerWatcher.list({ ...options, signal: this.requestSignal() });
      } catch (error) {
        if (token === '' || !isExpired(error)) throw error;
        page = await this.listerWatcher.list({ resourceVersion, signal: this.requestSignal() });
        return { items: page.items, resourceVersion: page.resourceVersion, paginated };
      }
      for (const item of page.items) items.push(item);
      if (page.continue === '') return { items, resourceVersion: page.resourceVersion, paginated };
      paginated = true;
      token = page.continue;
    }
  }

  /** client-go's choice: unpaged at a known resourceVersion (kube serves that from its watch cache) unless the server paged before. */
  private pageSizeFor(resourceVersion: string): number {
    if (this.options.pageSize) return this.options.pageSize;
    if (this.paginatedResult || resourceVersion === '' || resourceVersion === '0') return DEFAULT_PAGE_SIZE;
    return 0;
  }

  private requestSignal(): AbortSignal {
    const timeout = AbortSignal.timeout(this.options.listTimeoutMs ?? DEFAULT_LIST_TIMEOUT_MS);
    return AbortSignal.any([this.stopping.signal, timeout]);
  }

  /** Watches and reopens the watch until the run must end (by a throw) or the reflector stops. */
  private async watch(): Promise<void> {
    const hooks = this.options.hooks;
    while (!this.stopped && !this.resyncing) {
      const started = this.now();
      this.watchEnding = new AbortController();
      const watching = new WatchAttempt(this.options.idleWatchTimeoutMs ?? DEFAULT_IDLE_WATCH_TIMEOUT_MS, [
        this.stopping.signal,
        this.watchEnding.signal,
      ]);
      let stream: WatchStream;
      try {
        stream = await this.listerWatcher.watch({
          resourceVersion: this.lastSync,
          allowWatchBookmarks: true,
          timeoutSeconds: this.watchTimeoutSeconds(),
          signal: watching.signal,
        });
      } catch (error) {
        watching.end();
        if (this.stopped || this.resyncing) return;
        if (!isRetriableWatchError(error) && !watching.idle) {
          hooks?.watchEnded?.(isExpired(error) ? 'expired' : 'failed', error);
          throw error;
        }
        // The cluster is away (or busy): try the same watch again after the backoff, no relist.
        this.fail(error);
        await this.pause();
        continue;
      }
      this.current = true;
      hooks?.watchStarted?.(this.lastSync);
      let events = 0;
      let broken: unknown;
      try {
        for await (const event of stream) {
          watching.heard();
          this.stats.lastEventAt = this.now();
          this.apply(event);
          events++;
        }
      } catch (error) {
        if (error instanceof ApiError) {
          hooks?.watchEnded?.(isExpired(error) ? 'expired' : 'failed', error);
          throw error;
        }
        // A stream that broke (or was cut for silence) ends like a closed one: reopened from where it got.
        broken = error;
      } finally {
        watching.end();
        stream.stop();
      }
      if (this.stopped || this.resyncing) return;
      if (!watching.idle && events === 0 && this.now() - started < SHORT_WATCH_MS) {
        const error = new Error(
          `very short watch: ${this.options.name}: Unexpected watch close - watch lasted less than a second and no items received`,
          { cause: broken },
        );
        hooks?.watchEnded?.('failed', error);
        throw error;
      }
      this.stats.watchRestarts++;
      hooks?.watchEnded?.(watching.idle ? 'idle' : broken === undefined ? 'closed' : 'broken', broken);
    }
  }

  private watchTimeoutSeconds(): number {
    const min = this.options.minWatchTimeoutSeconds ?? MIN_WATCH_TIMEOUT_SECONDS;
    return Math.floor(min + this.random() * min);
  }

  /**
   * One event into the sink; an ERROR event is thrown as its Status. An object the transform or
   * the sink fails on is reported and passed over, as client-go's watch handler logs it and goes
   * on: ending the watch would only meet it again.
   */
  private apply(event: WatchEvent): void {
    if (event.type === 'ERROR') throw new ApiError(event.object);
    const resourceVersion = resourceVersionOf(event.object);
    try {
      this.deliver(event, resourceVersion);
    } catch (error) {
      this.options.hooks?.failed?.(error);
    }
    this.lastSync = resourceVersion;
  }

  private deliver(event: Exclude<WatchEvent, { type: 'ERROR' }>, resourceVersion: string): void {
    switch (event.type) {
      case 'BOOKMARK':
        return this.sink.bookmark(resourceVersion);
      case 'ADDED':
        return this.sink.add(this.transform(event.object), resourceVersion);
      case 'MODIFIED':
        return this.sink.update(this.transform(event.object), resourceVersion);
      case 'DELETED':
        return this.sink.delete(this.transform(event.object), resourceVersion);
      default:
        throw new Error(`${this.options.name}: unknown watch event type ${String((event as { type: unknown }).type)}`);
    }
  }
}

interface PagedList {
  items: Json[];
  resourceVersion: string;
  paginated: boolean;
}

/**
 * One watch's life: its own abort signal (the reflector's stop, or silence longer than the idle
 * bound, from the request on), and whether silence is what ended it.
 */
class WatchAttempt {
  readonly signal: AbortSignal;
  idle = false;
  private readonly silence = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(idleTimeoutMs: number, signals: AbortSignal[]) {
    this.signal = AbortSignal.any([...signals, this.silence.signal]);
    this.timer = setTimeout(() => {
      this.idle = true;
      this.silence.abort(new Error('the watch was silent too long'));
    }, idleTimeoutMs);
  }

  heard(): void {
    this.timer.refresh();
  }

  end(): void {
    clearTimeout(this.timer);
  }
}

function resourceVersionOf(obj: Json): string {
  const resourceVersion: unknown = isObject(obj.metadata) ? obj.metadata.resourceVersion : undefined;
  return typeof resourceVersion === 'string' ? resourceVersion : '';
}

/** 410: Expired, or Gone from servers before 1.18 (client-go's isExpiredError). */
export function isExpired(error: unknown): boolean {
  return error instanceof ApiError && error.code === 410;
}

/** The resourceVersion asked for is ahead of the server's (kube marks it with a cause). */
function isTooLargeResourceVersion(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    (error.status.details?.causes ?? []).some((c) => c.reason === 'ResourceVersionTooLarge')
  );
}

/** Worth the same watch again after a pause: the server is unreachable or asks to slow down (client-go's isWatchErrorRetriable). */
function isRetriableWatchError(error: unknown): boolean {
  if (error instanceof ApiError) return error.code === 429;
  return isObject(error) && error.code === 'ECONNREFUSED';
}
