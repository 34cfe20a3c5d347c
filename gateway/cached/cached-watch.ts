/**
 * Tenant watches answered from the cache, shared: every watch of one tenant that asks for the same
 * thing (the same store, namespace or all of the tenant's, object name, selectors and answer
 * format) belongs to one watch set, which follows the store once and converts each event once,
 * then writes that text to each watcher (docs/gateway.md, "Tenant reads from the cache"). A watcher joins with
 * its own catch-up — the objects now in scope for resourceVersion "" and "0", the store's window
 * of events after N otherwise — computed and written in the same tick as it joins, so it neither
 * misses nor repeats an event.
 *
 * Selectors apply to transitions as in kube's watch cache: an object that stops matching arrives
 * as DELETED, one that starts matching as ADDED. A watcher that stops reading is ended once its
 * unsent answer passes a bound (kube's cacher ends unresponsive watchers too), so a stalled client
 * cannot grow the gateway's memory.
 */
import type { ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import { onClose } from '../../apiserver/handlers/http-io.js';
import { wantsTable } from '../../apiserver/handlers/negotiation.js';
import { tableText, type IncludeObject } from '../../apiserver/table/build-table.js';
import { printerFor, type Printer } from '../../apiserver/table/printers-by-resource.js';
import { tooOldResourceVersion } from '../../search/cache-errors.js';
import { parseCacheReadOptions, selects, type CacheReadOptions } from '../../search/cache-read-options.js';
import type { CachedObject } from '../../search/cached-object.js';
import { withTypeMeta } from '../../search/cached-object-text.js';
import type {
  ClusterResourceStore,
  StoreEvent,
  StoreSubscription,
  StoreWatcher,
} from '../../search/cluster-resource-store.js';
import { versionNumber } from '../../informer/resource-version-order.js';
import { addPrefix } from '../../translate/context.js';
import { cachedTableRow, includeObjectOf, tenantItemConverter, type CachedAnswerRequest } from './cached-item.js';
import type { GatewayMetrics } from '../observability/metrics.js';

/** Unsent answer a watcher may hold before it is ended as unresponsive. */
export const MAX_UNSENT_BYTES = 8 * 1024 * 1024;

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One event as the set's watchers get it: a Table watch's first event carries the column definitions, later ones none. */
interface EventText {
  first: EventFrame;
  later: EventFrame;
}

/**
 * One event line, encoded once for every watcher of a set: the line framed as an HTTP/1.1 chunk,
 * written straight to each watcher's socket. A TLS write costs the same whether Node's chunk
 * encoder or the set frames the bytes, but the encoder would convert the string and build the
 * chunk header again for each of a thousand watchers (BENCHMARKS.md, "watch").
 */
interface EventFrame {
  /** `<size in hex>\r\n<line>\r\n`. */
  chunk: Buffer;
  /** The line alone, a view into `chunk`, for a response Node does not chunk (HTTP/1.0). */
  line: Buffer;
}

function eventFrame(text: string): EventFrame {
  const size = Buffer.byteLength(text);
  const header = `${size.toString(16)}\r\n`;
  const chunk = Buffer.allocUnsafe(header.length + size + 2);
  chunk.write(header, 0, 'latin1');
  chunk.write(text, header.length, 'utf8');
  chunk.write('\r\n', header.length + size, 'latin1');
  return { chunk, line: chunk.subarray(header.length, header.length + size) };
}

/** What the watchers of one set share. */
interface WatchScope {
  /** The keys in scope start with this: `<namespace>/` or, across namespaces, the tenant's prefix. */
  keyPrefix: string;
  name: string;
  options: CacheReadOptions;
  /** A Table watch: the printer and what each row carries. */
  table?: { printer: Printer; includeObject: IncludeObject };
}

interface Watcher {
  res: ServerResponse;
  /** Where the frames go: the response's socket, or the response itself when Node does not chunk it. */
  sink: Writable;
  /** Whether `sink` is the socket, so frames are written with their chunk framing. */
  framed: boolean;
  bookmarks: boolean;
  /** A watch from N joined before its store reached N: the store's events up to N are not its. */
  after: bigint;
  sentFirst: boolean;
  /** Its socket is corked until the set's next flush, so the events until then go out in one socket write. */
  corked: boolean;
  end(): void;
}

/** The watch sets of one replica, by what they share. */
export class TenantWatchSets {
  private readonly sets = new Map<string, WatchSet>();
  private watchers = 0;

  /**
   * `flushIntervalMs`: the least time between two writes of a set to a watcher's socket
   * (`--watch-flush-interval`). 0 writes each event as it comes, those of one tick together; more
   * holds a busy set's events until that long after its last write, for fewer TLS writes per event
   * at the cost of that much latency at most (docs/gateway.md, "Tenant reads from the cache").
   */
  constructor(
    private readonly metrics: GatewayMetrics,
    private readonly flushIntervalMs = 0,
  ) {}

  /**
   * Serves the request's watch from `store` until the tenant hangs up, the timeout passes, the
   * store stops or the watcher falls too far behind.
   */
  async join(r: CachedAnswerRequest, store: ClusterResourceStore): Promise<void> {
    const { t, req, res } = r;
    const options = parseCacheReadOptions(t.query, store.resource);
    const table = wantsTable(req.headers.accept)
      ? { printer: printerFor(t.info.group, t.info.resource), includeObject: includeObjectOf(r) }
      : undefined;
    const scope: WatchScope = {
      keyPrefix: t.info.namespace ? `${addPrefix(r.ctx, t.info.namespace)}/` : r.ctx.prefix,
      name: t.info.name,
      options,
      table,
    };
    const key = JSON.stringify([
      r.ctx.tenantId,
      store.cluster,
      store.type.apiVersion,
      store.resource.resource,
      scope.keyPrefix,
      scope.name,
      t.query.get('labelSelector') ?? '',
      t.query.get('fieldSelector') ?? '',
      table?.includeObject ?? '',
    ]);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    // With the headers sent and nothing buffered in the response, the socket is next in line.
    const framed = res.chunkedEncoding && res.socket !== null;
    await new Promise<void>((resolve) => {
      let set = this.sets.get(key);
      if (!set || set.ended) {
        set = new WatchSet(store, scope, tenantItemConverter(r, store), this.flushIntervalMs, () => {
          if (this.sets.get(key) === set) this.sets.delete(key);
          this.count();
        });
        this.sets.set(key, set);
      }
      const timeoutMs = (options.timeoutSeconds ?? 1800 * (1 + Math.random())) * 1000;
      const timer = setTimeout(() => watcher.end(), timeoutMs);
      let unfollow = () => {};
      const watcher: Watcher = {
        res,
        sink: framed ? res.socket : res,
        framed,
        bookmarks: options.allowWatchBookmarks,
        after: options.resourceVersion === '' ? -1n : versionNumber(options.resourceVersion),
        sentFirst: false,
        corked: false,
        end: () => {
          clearTimeout(timer);
          unfollow();
          set.leave(watcher);
          this.watchers--;
          this.count();
          if (!res.destroyed) res.end();
          resolve();
        },
      };
      this.watchers++;
      set.join(watcher, options.resourceVersion);
      this.count();
      unfollow = onClose(res, () => watcher.end());
    });
  }

  private count(): void {
    this.metrics.tenantWatchSets.set({ count: 'sets' }, this.sets.size);
    this.metrics.tenantWatchSets.set({ count: 'watchers' }, this.watchers);
  }
}

/** Every watcher of one tenant asking the same of one store: one subscription, one conversion per event. */
class WatchSet implements StoreWatcher {
  private readonly watchers = new Set<Watcher>();
  private subscription: StoreSubscription | undefined;
  private done = false;
  /** Watchers whose sockets hold writes for the next flush. */
  private readonly corked: Watcher[] = [];
  private flushPending = false;
  private lastFlush = -Infinity;

  constructor(
    private readonly store: ClusterResourceStore,
    private readonly scope: WatchScope,
    private readonly convert: (object: CachedObject) => string | null,
    private readonly flushIntervalMs: number,
    private readonly onEnd: () => void,
  ) {}

  get ended(): boolean {
    return this.done;
  }

  /** Adds `watcher` after writing it what it has not seen: synchronously, so no event falls between. */
  join(watcher: Watcher, resourceVersion: string): void {
    const catchUp: EventText[] = [];
    if (resourceVersion === '' || resourceVersion === '0') {
      for (const [, object] of this.store.withKeyPrefix(this.scope.keyPrefix)) {
        const text = this.inScope(object) ? this.render('ADDED', object) : undefined;
        if (text) catchUp.push(text);
      }
    } else {
      const events = this.store.eventsSince(resourceVersion);
      if ('oldest' in events) {
        const status = tooOldResourceVersion(resourceVersion, events.oldest).status;
        watcher.res.write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
        return watcher.end();
      }
      for (const event of events) {
        const text = this.eventText(event);
        if (text) catchUp.push(text);
      }
    }
    this.watchers.add(watcher);
    this.subscription ??= this.subscribe();
    for (const text of catchUp) if (!this.send(watcher, text)) return;
  }

  leave(watcher: Watcher): void {
    if (!this.watchers.delete(watcher) || this.watchers.size > 0) return;
    this.finish();
  }

  event(event: StoreEvent): void {
    const text = this.eventText(event);
    if (!text) return;
    const version = versionNumber(event.resourceVersion);
    for (const watcher of [...this.watchers]) if (version > watcher.after) this.send(watcher, text);
  }

  bookmark(resourceVersion: string): void {
    // kube's bookmark: the type's kind and apiVersion, and only the resourceVersion.
    const line = eventFrame(
      `{"type":"BOOKMARK","object":${withTypeMeta(this.store.type, JSON.stringify({ metadata: { resourceVersion } }))}}\n`,
    );
    // Never behind a watcher's N: its client would resume from there and see older events again.
    const version = versionNumber(resourceVersion);
    for (const watcher of [...this.watchers])
      if (watcher.bookmarks && !this.scope.table && version > watcher.after) this.write(watcher, line);
  }

  /** The store went (its cluster or resource is no longer cached): the watches end, and clients watch again. */
  stopped(): void {
    for (const watcher of [...this.watchers]) watcher.end();
    this.finish();
  }

  private subscribe(): StoreSubscription | undefined {
    const subscription = this.store.watch(this.store.resourceVersion, this);
    if ('close' in subscription) return subscription;
    // The store's own version is always within its window.
    this.stopped();
    return undefined;
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.subscription?.close();
    this.onEnd();
  }

  /** The event as the watchers see it, or undefined when it is not in scope. */
  private eventText(event: StoreEvent): EventText | undefined {
    const now = this.inScope(event.object);
    if (event.type !== 'MODIFIED') return now ? this.render(event.type, event.object) : undefined;
    const before = event.previous === undefined ? now : this.inScope(event.previous);
    if (now) return this.render(before ? 'MODIFIED' : 'ADDED', event.object);
    return before ? this.render('DELETED', event.previous!) : undefined;
  }

  private render(type: EventType, object: CachedObject): EventText | undefined {
    const text = this.convert(object);
    if (text === null) return undefined;
    const whole = withTypeMeta(this.store.type, text);
    const { table } = this.scope;
    if (!table) {
      const line = eventFrame(`{"type":"${type}","object":${whole}}\n`);
      return { first: line, later: line };
    }
    const row = cachedTableRow(table.printer, whole, table.includeObject, new Date());
    const event = (omitHeaders: boolean) =>
      eventFrame(`{"type":"${type}","object":${tableText(table.printer, [row], { listMeta: {}, omitHeaders })}}\n`);
    return { first: event(false), later: event(true) };
  }

  /** Writes one event; false when the watcher was ended for falling behind. */
  private send(watcher: Watcher, text: EventText): boolean {
    const frame = watcher.sentFirst ? text.later : text.first;
    watcher.sentFirst = true;
    return this.write(watcher, frame);
  }

  private write(watcher: Watcher, frame: EventFrame): boolean {
    const { res, sink } = watcher;
    if (res.destroyed || sink.destroyed) return false;
    if (!watcher.corked) {
      watcher.corked = true;
      sink.cork();
      this.corked.push(watcher);
      this.scheduleFlush();
    }
    sink.write(watcher.framed ? frame.chunk : frame.line);
    if (sink.writableLength <= MAX_UNSENT_BYTES) return true;
    res.destroy();
    watcher.end();
    return false;
  }

  /**
   * At the end of this tick, or with a flush interval, once that long has passed since the last
   * flush: a quiet set's event goes out at once, a busy set's wait for the interval together.
   */
  private scheduleFlush(): void {
    if (this.flushPending) return;
    this.flushPending = true;
    const wait = this.lastFlush + this.flushIntervalMs - performance.now();
    if (wait > 0) setTimeout(this.flush, wait);
    else process.nextTick(this.flush);
  }

  // Runs after the set ended too: an ended watcher's last writes are in its corked socket.
  private readonly flush = (): void => {
    this.flushPending = false;
    this.lastFlush = performance.now();
    for (const watcher of this.corked) {
      watcher.corked = false;
      watcher.sink.uncork();
    }
    this.corked.length = 0;
  };

  private inScope(object: CachedObject): boolean {
    const { keyPrefix, name, options } = this.scope;
    // The key the object made once: building one for each event and watcher was work on the hot path.
    if (!object.key.startsWith(keyPrefix)) return false;
    if (name !== '' && object.metadata.name !== name) return false;
    return selects(options, object);
  }
}
