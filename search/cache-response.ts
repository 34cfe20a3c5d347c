/**
 * The multi-cluster cache's answers over HTTP, as kube-apiserver writes them in JSON: a list is
 * written by joining its items' cached texts (never serialized again), an object as its text, a
 * watch as one JSON event a line, and errors as Status. Tables (`kubectl get`'s preferred form)
 * and protobuf are not produced: the JSON list is what a client falls back to, and kubectl prints
 * it itself.
 *
 * `serveCacheRead` returns the Stale it got without writing anything, so that its caller can
 * answer the request from the cluster instead.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JsonAnswerStream, onClose, sendJsonText, sendStatus } from '../apiserver/handlers/http-io.js';
import { ApiError } from '../apiserver/status.js';
import type { Stale } from './cache-freshness.js';
import { parseCacheReadOptions } from './cache-read-options.js';
import type { CacheResource } from './cluster-resource-store.js';
import { listItemTexts, type CachedList, type MultiClusterCache } from './multi-cluster-cache.js';
import type { MultiClusterWatch, WatchEventType } from './multi-cluster-watch.js';

export interface CacheHttpRequest {
  resource: CacheResource;
  /** '' for all namespaces or a cluster-scoped resource. */
  namespace: string;
  /** Set for a get (or a watch of one object). */
  name?: string;
  query: URLSearchParams;
  watch: boolean;
}

/** Text of a list written out in pieces of about this size, so that the socket is fed in steps. */
const LIST_CHUNK_CHARS = 64 * 1024;
/**
 * A watch whose client lets this much text pile up unsent is ended, as kube's watch cache ends a
 * watcher too slow to take its events: the client watches again, and memory stays bounded.
 */
const MAX_UNSENT_WATCH_BYTES = 16 * 1024 * 1024;

/** Answers a get, list or watch from the cache; a Stale answer writes nothing. */
export async function serveCacheRead(
  req: IncomingMessage,
  res: ServerResponse,
  cache: MultiClusterCache,
  request: CacheHttpRequest,
): Promise<Stale | undefined> {
  try {
    const options = parseCacheReadOptions(request.query, request.resource);
    const read = { resource: request.resource, namespace: request.namespace, name: request.name, options };
    if (request.watch) return await streamWatch(res, cache, read);
    if (request.name !== undefined) {
      const answer = await cache.get({ ...read, name: request.name });
      if (!answer.fresh) return answer;
      sendJsonText(req, res, 200, answer.value);
      return undefined;
    }
    const answer = await cache.list(read);
    if (!answer.fresh) return answer;
    await sendCachedList(req, res, answer.value);
    return undefined;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    sendStatus(req, res, err);
    return undefined;
  }
}

/** A list as kube writes one: kind, apiVersion, metadata (resourceVersion, continue when set), items. */
export async function sendCachedList(req: IncomingMessage, res: ServerResponse, list: CachedList): Promise<void> {
  const metadata: Record<string, string> = {};
  if (list.resourceVersion !== '') metadata.resourceVersion = list.resourceVersion;
  if (list.continue !== '') metadata.continue = list.continue;
  const answer = new JsonAnswerStream(req, res, 200);
  let chunk = `{"kind":${JSON.stringify(list.kind)},"apiVersion":${JSON.stringify(list.apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[`;
  let first = true;
  for (const item of listItemTexts(list)) {
    chunk += (first ? '' : ',') + item;
    first = false;
    if (chunk.length >= LIST_CHUNK_CHARS) {
      await answer.write(chunk);
      if (res.destroyed) return;
      chunk = '';
    }
  }
  await answer.write(`${chunk}]}`);
  answer.end();
}

async function streamWatch(
  res: ServerResponse,
  cache: MultiClusterCache,
  read: Parameters<MultiClusterCache['watch']>[0],
): Promise<Stale | undefined> {
  const open = () => {
    if (res.headersSent) return;
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    res.flushHeaders();
  };
  // The watch exists only once cache.watch returns, but events already flow while it subscribes.
  const started: { watch?: MultiClusterWatch } = {};
  const answer = await cache.watch(read, {
    event: (type: WatchEventType, objectText: string) => {
      if (res.destroyed) return;
      open();
      res.write(`{"type":"${type}","object":${objectText}}\n`);
      if (res.writableLength > MAX_UNSENT_WATCH_BYTES) started.watch?.stop();
    },
    end: () => {
      if (res.destroyed) return;
      open();
      res.end();
    },
  });
  if (!answer.fresh) return answer;
  const watch = (started.watch = answer.value);
  if (watch.isEnded) return undefined;
  open();
  if (res.writableLength > MAX_UNSENT_WATCH_BYTES) watch.stop();
  // kube-apiserver ends a watch after timeoutSeconds, or at a random point in 30 to 60 minutes.
  const timeoutMs = (read.options.timeoutSeconds ?? 1800 * (1 + Math.random())) * 1000;
  const timer = setTimeout(() => watch.stop(), timeoutMs);
  const unfollow = onClose(res, () => watch.stop());
  watch.onEnd(() => {
    clearTimeout(timer);
    unfollow();
  });
  return undefined;
}
