import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, gzipSync } from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import { decodeKubernetesProtobuf, ProtobufDecodeError } from '../protobuf/decode.js';
import { ApiError, badRequest, requestEntityTooLarge, statusOf, unsupportedMediaType, type Status } from '../status.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** kube-apiserver's default --max-request-bytes. */
export const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
/** Responses larger than this are gzipped when the client accepts it, as kube-apiserver does. */
const GZIP_THRESHOLD = 128 * 1024;

export async function readBody(req: IncomingMessage, limit = MAX_REQUEST_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw requestEntityTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw requestEntityTooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The media type of a Content-Type header, without parameters, lower-cased. */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/** A create/update body: JSON, YAML, or protobuf (what kubectl's typed clients send). */
export function decodeObjectBody(body: Buffer, contentType: string | undefined): unknown {
  const type = mediaType(contentType) || 'application/json';
  if (type === 'application/json') return parseJson(body);
  if (type === PROTOBUF) {
    try {
      return decodeKubernetesProtobuf(body).object;
    } catch (err) {
      if (err instanceof ProtobufDecodeError) throw new ApiError(statusOf(415, 'UnsupportedMediaType', err.message));
      throw err;
    }
  }
  if (type === 'application/yaml') {
    try {
      return parseYaml(body.toString('utf8'));
    } catch (err) {
      throw badRequest(`error converting YAML to JSON: ${(err as Error).message}`);
    }
  }
  throw unsupportedMediaType(['application/json', 'application/yaml', PROTOBUF]);
}

/** Deeper than this, a body is refused before parsing: every later step recurses over it. */
export const MAX_JSON_DEPTH = 1000;

/** Whether JSON text nests arrays and objects deeper than `limit` (strings skipped). */
export function nestedDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

export function parseJson(body: Buffer): unknown {
  if (body.length === 0) throw badRequest('the body of the request was empty');
  const text = body.toString('utf8');
  if (nestedDeeperThan(text, MAX_JSON_DEPTH))
    throw badRequest(`the body of the request is nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`the body of the request could not be decoded as JSON: ${(err as Error).message}`);
  }
}

export function sendJson(
  req: IncomingMessage,
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendJsonText(req, res, code, JSON.stringify(body), headers);
}

/** A JSON answer already serialised (a list written from its items' texts), compressed as sendJson would. */
export function sendJsonText(
  req: IncomingMessage,
  res: ServerResponse,
  code: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  let payload: Buffer = Buffer.from(text);
  const out: Record<string, string> = { 'Content-Type': 'application/json', ...headers };
  if (payload.length > GZIP_THRESHOLD && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    // Level 1, as kube-apiserver compresses: most of the size win for a fraction of the CPU.
    payload = gzipSync(payload, { level: 1 });
    out['Content-Encoding'] = 'gzip';
  }
  out['Content-Length'] = String(payload.length);
  res.writeHead(code, out);
  res.end(req.method === 'HEAD' ? undefined : payload);
}

/**
 * A JSON answer written while it is made (a list converted as it arrives, or written in pieces).
 * As kube-apiserver decides on its first write, it is gzipped when the client takes gzip and
 * 128 KiB are there; an answer that ends before that (or a HEAD's) goes out whole, with its
 * length, as sendJsonText sends it. Otherwise it is chunked.
 */
export class JsonAnswerStream {
  private pending: string[] = [];
  private pendingChars = 0;
  private sink: Writable | undefined;
  /** One wait for the drain, shared by every writer that meets a full socket: a writer per cluster or namespace writes at once. */
  private draining: Promise<void> | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly code: number,
    private readonly headers: Record<string, string> = {},
  ) {}

  /** Resolves when more may be written: the socket took the text, or the client is gone. */
  async write(text: string): Promise<void> {
    if (!text) return;
    if (!this.sink) {
      this.pending.push(text);
      this.pendingChars += text.length;
      if (this.pendingChars < GZIP_THRESHOLD || this.req.method === 'HEAD') return;
      text = this.pending.join('');
      this.pending = [];
      this.sink = this.open();
    }
    if (this.sink.write(text) || this.res.destroyed) return;
    this.draining ??= drained(this.sink, this.res).then(() => {
      this.draining = undefined;
    });
    await this.draining;
  }

  end(): void {
    if (this.sink) this.sink.end();
    else sendJsonText(this.req, this.res, this.code, this.pending.join(''), this.headers);
  }

  private open(): Writable {
    const gzip = /\bgzip\b/.test(String(this.req.headers['accept-encoding'] ?? ''));
    this.res.writeHead(this.code, {
      'Content-Type': 'application/json',
      ...this.headers,
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
    });
    if (!gzip) return this.res;
    const compress = createGzip({ level: 1 });
    pipeline(compress, this.res).catch(() => {
      // The client hung up; the writer sees the response destroyed.
    });
    return compress;
  }
}

/** The listeners onClose holds for each open response, behind the one 'close' listener it adds. */
const closeListeners = new WeakMap<ServerResponse, Set<() => void>>();

/**
 * Runs `listener` once the response's connection has closed — at once if it already has: a client
 * can hang up while the server awaits something, and a 'close' listener added after that never
 * runs. Returns the listener's removal. However many follow one response (a list fanned out over
 * a tenant's namespaces, each page's writer waiting for a drain), the response gets one 'close'
 * listener: Node warns of a leak past ten on one emitter.
 */
export function onClose(res: ServerResponse, listener: () => void): () => void {
  if (res.closed) {
    listener();
    return () => {};
  }
  let listeners = closeListeners.get(res);
  if (!listeners) {
    const registered = new Set<() => void>();
    closeListeners.set(res, registered);
    res.once('close', () => {
      closeListeners.delete(res);
      for (const follower of registered) follower();
    });
    listeners = registered;
  }
  // A wrapper of its own, so that the same function following twice runs twice, as with once().
  const follower = () => listener();
  listeners.add(follower);
  return () => void listeners.delete(follower);
}

/** Resolves when `sink` (the response, or a stream written into it) drains or the response closes. */
export function drained(sink: Writable, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    let unfollow = () => {};
    const done = () => {
      sink.off('drain', done);
      unfollow();
      resolve();
    };
    sink.on('drain', done);
    unfollow = onClose(res, done);
  });
}

export function sendStatus(req: IncomingMessage, res: ServerResponse, err: ApiError | Status): void {
  const status = err instanceof ApiError ? err.status : err;
  const headers: Record<string, string> = {};
  if (status.details?.retryAfterSeconds) headers['Retry-After'] = String(status.details.retryAfterSeconds);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(req, res, status.code, status, headers);
}
