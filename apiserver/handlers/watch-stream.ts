import type { IncomingMessage, ServerResponse } from 'node:http';
import { isStoreError, type Store, type Watch } from '../../store/index.js';
import type { GenericRegistry } from '../registry/generic-registry.js';
import { listObjects } from '../registry/list-objects.js';
import type { ObjectFilter } from '../registry/object-filter.js';
import type { ApiObject } from '../registry/object-store.js';
import { ApiError, statusOf, toApiError } from '../status.js';
import { drained } from './http-io.js';
import type { ListOptions } from './list-options.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Renders an event's object: the object itself, or a one-row Table for `kubectl get -w`. */
export type EventRenderer = (object: ApiObject, first: boolean) => unknown;

export interface WatchRequest {
  req: IncomingMessage;
  res: ServerResponse;
  store: Store;
  registry: GenericRegistry;
  namespace: string;
  /** Set when the URL names one object. */
  name: string;
  filter: ObjectFilter;
  options: ListOptions;
  render: EventRenderer;
  bookmarkIntervalMs: number;
}

/**
 * A watch as kube-apiserver streams it: 200 with one JSON event per line, written as each event
 * happens. Without a resourceVersion (or with "0") the current objects come first as ADDED;
 * from resourceVersion N, the changes after N, or a 410 ERROR event when N is compacted.
 * Selectors apply to transitions (an object that stops matching arrives as DELETED). BOOKMARKs
 * go out periodically when allowed; the stream ends at timeoutSeconds or when the client leaves.
 */
export async function serveWatch(w: WatchRequest): Promise<void> {
  const { req, res, registry, options } = w;
  let afterRevision: number;
  let initial: ApiObject[] = [];
  const sendInitial = options.sendInitialEvents ?? (options.resourceVersion === '' || options.resourceVersion === '0');
  if (sendInitial) {
    const list = await listObjects(w.store, registry, w.namespace, w.filter, {
      limit: 0,
      continue: '',
      resourceVersion: options.resourceVersion === '0' ? '' : options.resourceVersion,
      resourceVersionMatch: '',
    });
    initial = list.objects.filter((o) => !w.name || o.metadata.name === w.name);
    afterRevision = list.revision;
  } else {
    afterRevision = Number(options.resourceVersion);
  }

  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  res.flushHeaders();
  let first = true;
  let lastRevision = afterRevision;
  const write = (type: WatchEventType, object: unknown): boolean => res.write(`${JSON.stringify({ type, object })}\n`);
  const bookmark = (annotations?: Record<string, string>) =>
    write('BOOKMARK', {
      kind: registry.info.kind,
      apiVersion: registry.apiVersion(),
      metadata: { resourceVersion: String(lastRevision), ...(annotations ? { annotations } : {}) },
    });

  let watch: Watch;
  try {
    watch = await registry.objects.watch(w.namespace, afterRevision);
  } catch (err) {
    // The registry hands the store's Expired on as a 410 ApiError: either way kube's message.
    const status =
      isStoreError(err, 'Expired') || (err instanceof ApiError && err.code === 410)
        ? statusOf(
            410,
            'Expired',
            `too old resource version: ${afterRevision} (${await w.store.currentRevision().catch(() => 0)})`,
          )
        : toApiError(err).status;
    write('ERROR', status);
    res.end();
    return;
  }

  const timeoutMs = (options.timeoutSeconds ?? 1800 * (1 + Math.random())) * 1000;
  const timeout = setTimeout(() => watch.close(), timeoutMs);
  const bookmarks = options.allowWatchBookmarks ? setInterval(() => bookmark(), w.bookmarkIntervalMs) : undefined;
  const stop = () => watch.close();
  res.on('close', stop);
  req.on('close', stop);
  try {
    for (const object of initial) {
      write('ADDED', w.render(object, first));
      first = false;
    }
    if (sendInitial && options.sendInitialEvents && options.allowWatchBookmarks)
      bookmark({ 'k8s.io/initial-events-end': 'true' });
    for await (const raw of watch) {
      lastRevision = raw.revision;
      const event = registry.objects.decodeEvent(raw);
      if (w.name && event.object.metadata.name !== w.name) continue;
      const type = transition(event.type, w.filter, event.object, event.previous);
      if (!type) continue;
      if (!write(type, w.render(registry.present(event.object), first))) await drained(res, res);
      first = false;
    }
  } catch (err) {
    const status = isStoreError(err, 'Expired')
      ? statusOf(410, 'Expired', `too old resource version: ${afterRevision}`)
      : toApiError(err).status;
    write('ERROR', status);
  } finally {
    clearTimeout(timeout);
    clearInterval(bookmarks);
    res.off('close', stop);
    req.off('close', stop);
    if (!res.destroyed) res.end();
  }
}

function transition(
  type: 'create' | 'update' | 'delete',
  filter: ObjectFilter,
  object: ApiObject,
  previous?: ApiObject,
): WatchEventType | null {
  if (type === 'create') return filter.matches(object) ? 'ADDED' : null;
  if (type === 'delete') return filter.matches(object) ? 'DELETED' : null;
  const now = filter.matches(object);
  const before = previous ? filter.matches(previous) : false;
  if (now && before) return 'MODIFIED';
  if (now) return 'ADDED';
  if (before) return 'DELETED';
  return null;
}
