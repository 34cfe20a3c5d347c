import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { onClose } from '../../apiserver/handlers/http-io.js';
import { detach, reportFault } from '../../apiserver/process-faults.js';
import type { ApiError } from '../../apiserver/status.js';
import type { TenantContext } from '../../translate/context.js';
import type { WatchEvent } from '../../translate/watch-event.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { TenantRequestLease } from '../server/tenant-limits.js';
import { namespacedPath, tenantNamespaceNames } from './tenant-namespaces.js';
import type { UpstreamResponse } from '../../clusters/cluster-connection.js';
import type { GatewayClusterState } from '../upstream/gateway-cluster-state.js';
import { sendUpstreamError } from '../upstream/upstream-failure.js';
import { WatchEventsDown, watchLineBatches, type WatchLineMemo } from './watch-lines.js';

const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';
/** How long a deleted namespace's watch stays open, so the deletions of its last objects still arrive. */
export const DELETED_NAMESPACE_GRACE_MS = 10_000;

export interface CrossNamespaceWatchRequest {
  ctx: TenantContext;
  /** The tenant's cluster: its connection and namespace index. */
  cluster: GatewayClusterState;
  metrics: GatewayMetrics;
  /** The translated all-namespaces collection path, e.g. `/api/v1/pods`. */
  path: string;
  /** The translated query (watch=1, selectors, resourceVersion, timeoutSeconds, ...). */
  query: URLSearchParams;
  /** Impersonation and accept headers. */
  headers: Record<string, string | string[]>;
  events: WatchEventsDown;
  /** Converted lines shared with the tenant's other watches (object watches only; watch-lines.ts). */
  memo: WatchLineMemo | undefined;
  /** The request's share of its tenant's limits: it holds one upstream connection, each namespace's watch one more. */
  lease: TenantRequestLease;
}

/** The event lines that need no more than converting, as kube writes them (type first): not BOOKMARK, not ERROR. */
const OBJECT_EVENT = /^\{"type":"(ADDED|MODIFIED|DELETED)"/;

interface Feed {
  namespace: string;
  response: UpstreamResponse;
  /** The last BOOKMARK's resourceVersion from this feed. */
  bookmark?: string;
  initialEventsEnded: boolean;
  /** Closed on purpose (its namespace is gone): its end does not end the tenant's stream. */
  retired: boolean;
  /** Set while its namespace is deleted: the feed is closed when the grace runs out. */
  retiring?: NodeJS.Timeout;
}

/**
 * A watch of a namespaced kind across all of a tenant's namespaces (`get -w -A`, informers of
 * the tenant's controllers), without a cluster-wide upstream watch — whose every event of every
 * tenant would cross the wire only to be dropped. One upstream watch per tenant namespace; the
 * cluster's namespace index (namespace-index.ts) tells of namespaces created later, and one is
 * opened for each (from the namespace's own resourceVersion, so nothing made in it is missed).
 * When any upstream feed ends (timeout, error, cluster gone) the tenant's stream ends and the
 * client re-watches, as it would after kube-apiserver ended a watch; with no namespace, the
 * stream ends at its timeoutSeconds.
 *
 * Events of different namespaces arrive on different connections, so two events a few
 * milliseconds apart may reach the tenant out of resourceVersion order; BOOKMARKs are only
 * passed on at the lowest resourceVersion every feed has reached, so resuming from a bookmark
 * never skips an event. A shared upstream watch per resource with a tenant index (the cache) is
 * the later replacement that removes both the ordering caveat and the per-namespace connections.
 */
export async function watchAcrossNamespaces(
  req: IncomingMessage,
  res: ServerResponse,
  w: CrossNamespaceWatchRequest,
): Promise<void> {
  const listed = await tenantNamespaceNames(w.ctx, w.cluster, w.metrics);
  // The index's news of namespaces from here on, queued until the feeds are open. Read in the
  // same tick, the names it holds join the list: it may be ahead of a list asked of the cluster.
  let news = Promise.resolve();
  let feedsOpen!: () => void;
  const opening = new Promise<void>((resolve) => (feedsOpen = resolve));
  const queue = (change: () => Promise<void>) => {
    news = news
      .then(() => opening)
      .then(change)
      .catch((err: unknown) => reportFault('detached', 'cross-namespace watch: a namespace change', err));
  };
  const following = w.cluster.namespaceIndex.follow(w.ctx.tenantId, {
    added: (name, resourceVersion) => queue(() => namespaceAdded(name, resourceVersion)),
    deleted: (name) => queue(async () => namespaceDeleted(name)),
  });
  const names = [...new Set([...listed, ...following.names])].sort();
  const feeds = new Map<string, Feed>();
  let settled: PromiseSettledResult<Feed>[];
  try {
    // Refused (429) before any is opened when the tenant's upstream connections would pass its bound.
    w.lease.claimUpstream(names.length);
    settled = await Promise.allSettled(names.map((namespace) => openFeed(w, namespace, w.query)));
  } catch (err) {
    following.remove();
    throw err;
  }
  const opened = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = settled.find((result) => result.status === 'rejected');
  const refused = opened.find((feed) => feed.response.status !== 200);
  if (failed || refused || res.closed) {
    following.remove();
    // Every feed that did open is closed: none may outlive the request (nor hold the tenant's bound).
    for (const feed of opened) if (feed !== refused) discard(feed.response);
    if (failed) throw failed.reason;
    return refused ? refuseWatch(req, res, w.ctx, refused.response) : undefined;
  }
  for (const feed of opened) feeds.set(feed.namespace, feed);

  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  res.flushHeaders();
  let ended = false;
  let endStream!: () => void;
  const done = new Promise<void>((resolve) => (endStream = resolve));
  const timeoutSeconds = w.query.get('timeoutSeconds');
  // Each feed ends at the timeout too; this ends a stream that has none.
  const timeout = timeoutSeconds ? setTimeout(() => finish(), Number(timeoutSeconds) * 1000) : undefined;
  const finish = () => {
    if (ended) return;
    ended = true;
    clearTimeout(timeout);
    following.remove();
    for (const feed of feeds.values()) discard(feed.response);
    endStream();
  };
  const unfollow = onClose(res, finish);

  let lastBookmark: string | undefined;
  let sentInitialEventsEnd = false;
  // Every feed writes to one response: they wait for one drain together, or for the hang-up.
  let draining: Promise<void> | undefined;
  const write = async (event: WatchEvent | string) => {
    if (ended) return;
    if (res.write(typeof event === 'string' ? event : `${JSON.stringify(event)}\n`)) return;
    draining ??= new Promise<void>((resolve) => {
      const go = () => {
        res.off('drain', go);
        res.off('close', go);
        draining = undefined;
        resolve();
      };
      res.on('drain', go);
      res.on('close', go);
    });
    await draining;
  };
  /** A bookmark goes on only once every live feed has reached it. */
  const bookmark = async (feed: Feed, event: WatchEvent) => {
    feed.bookmark = event.object?.metadata?.resourceVersion;
    if (event.object?.metadata?.annotations?.[INITIAL_EVENTS_END] === 'true') feed.initialEventsEnded = true;
    const live = [...feeds.values()].filter((f) => !f.retired);
    if (live.some((f) => f.bookmark === undefined || !/^\d+$/.test(f.bookmark))) return;
    const lowest = live.reduce((min, f) => (BigInt(f.bookmark!) < BigInt(min) ? f.bookmark! : min), live[0].bookmark!);
    const allEnded = live.every((f) => f.initialEventsEnded);
    const announceEnd = allEnded && !sentInitialEventsEnd;
    if (!announceEnd && lastBookmark !== undefined && BigInt(lowest) <= BigInt(lastBookmark)) return;
    lastBookmark = lowest;
    sentInitialEventsEnd ||= announceEnd;
    const down = w.events.down({
      type: 'BOOKMARK',
      object: { ...event.object, metadata: { ...event.object.metadata, resourceVersion: lowest } },
    });
    if (down) await write(down);
  };
  const pump = async (feed: Feed) => {
    try {
      for await (const line of lines(feed.response.body)) {
        w.metrics.watchEventsRead.inc({ cluster: w.cluster.name });
        if (w.memo && OBJECT_EVENT.test(line)) {
          const down = w.events.downLine(line, w.memo);
          if (down) await write(down);
          continue;
        }
        const event = WatchEventsDown.parse(line);
        if (!event) continue;
        if (event.type === 'BOOKMARK') await bookmark(feed, event);
        else if (event.type === 'ERROR') {
          // One ERROR ends the tenant's stream, as kube-apiserver's does; the other feeds would repeat it.
          const down = ended ? null : w.events.down(event);
          if (down) res.write(`${JSON.stringify(down)}\n`);
          finish();
          break;
        } else {
          const down = w.events.down(event);
          if (down) await write(down);
        }
      }
    } catch {
      // The feed broke; as when it ends, the tenant's stream ends.
    }
    if (!feed.retired) finish();
  };

  /** A namespace made after the list is watched from its creation on. */
  const namespaceAdded = async (name: string, resourceVersion: string) => {
    if (ended) return;
    const kept = feeds.get(name);
    if (kept) {
      // Made again within the grace: the upstream watch of the namespace's path goes on and
      // serves the new namespace, so it stays; closing it would lose every later event there.
      clearTimeout(kept.retiring);
      kept.retiring = undefined;
      return;
    }
    // Past the tenant's bound the stream ends with the reason (client-go backs off on it) rather than miss the namespace's events.
    try {
      w.lease.claimUpstream(1);
    } catch (err) {
      res.write(`${JSON.stringify({ type: 'ERROR', object: (err as ApiError).status })}\n`);
      return finish();
    }
    const query = new URLSearchParams(w.query);
    query.set('resourceVersion', resourceVersion);
    query.delete('resourceVersionMatch');
    query.delete('sendInitialEvents');
    const feed = await openFeed(w, name, query).catch(() => undefined);
    if (!feed) {
      w.lease.releaseUpstream(1);
      return finish();
    }
    if (ended || feed.response.status !== 200) {
      discard(feed.response);
      w.lease.releaseUpstream(1);
      return;
    }
    feeds.set(name, feed);
    detach(pump(feed), 'cross-namespace watch feed');
  };
  const namespaceDeleted = (name: string) => {
    const kept = feeds.get(name);
    if (ended || !kept) return;
    clearTimeout(kept.retiring);
    kept.retiring = setTimeout(() => {
      kept.retired = true;
      feeds.delete(name);
      discard(kept.response);
      w.lease.releaseUpstream(1);
    }, DELETED_NAMESPACE_GRACE_MS).unref();
  };

  for (const feed of feeds.values()) detach(pump(feed), 'cross-namespace watch feed');
  feedsOpen();
  await done;
  unfollow();
  if (!res.destroyed) res.end();
}

/** Line by line: feeds write one event at a time, since a bookmark must wait for every feed. */
async function* lines(body: Readable): AsyncGenerator<string> {
  for await (const batch of watchLineBatches(body)) yield* batch;
}

async function openFeed(w: CrossNamespaceWatchRequest, namespace: string, query: URLSearchParams): Promise<Feed> {
  const response = await w.metrics.upstream(w.cluster.name, 'watch', () =>
    w.cluster.connection.stream(`${namespacedPath(w.path, namespace)}?${query.toString()}`, w.headers),
  );
  return { namespace, response, initialEventsEnded: false, retired: false };
}

/** Hangs up an upstream stream; its body may never have been read, so its abort must not surface as an unhandled error. */
function discard(response: UpstreamResponse): void {
  response.body.on('error', () => {});
  response.body.destroy();
}

/** A watch the cluster refused: its answer as the tenant's Status. */
export async function refuseWatch(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: TenantContext,
  response: UpstreamResponse,
): Promise<void> {
  const text = await response.body.text();
  sendUpstreamError(req, res, ctx, response.status, text, 'the upstream watch failed');
}
