import type { ClientRequest, IncomingHttpHeaders } from 'node:http';
import { Agent, request } from 'node:https';
import { Pool } from 'undici';
import { parseServerCredentials } from '../../certs/kubeconfig.js';
import { dispatchWhole } from './whole-answer.js';

export interface RestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, when there is one. */
  body: any;
  text: string;
}

/**
 * node:https's Agent keys its pools by a name that joins the CA, certificate and key PEMs, kilobytes
 * built and hashed again on every request, every socket freed and every socket closed: 3-4% of the
 * gateway's CPU while it makes tenants. A client's agent serves one server with one set of
 * credentials, so one pool: one short name.
 */
class OneServerAgent extends Agent {
  override getName(): string {
    return 'server';
  }
}

/**
 * Told of every request the client sends (to count the watches among them, say): `req` is the
 * node:https request of a stream (`open`), undefined for a request read whole.
 */
export type RequestObserver = (method: string, path: string, req: ClientRequest | undefined) => void;

/** Request headers; a list goes as one line per value (`Impersonate-Group`, one per group). */
export type RequestHeaders = Record<string, string | string[]>;

/** Connections to the server, for requests read whole and for streams each. */
const MAX_CONNECTIONS = 64;

/**
 * A small HTTPS client for a Kubernetes API, authenticated with a kubeconfig's client certificate or token:
 * what the tenant controller uses upstream and the `paddock tenant` command uses against the
 * gateway. Connections are kept alive and reused. A request read whole goes through an undici
 * pool: node:https's client machinery was a fifth of the gateway's CPU while it made tenants (a
 * dozen writes upstream each). A stream (`open`: watches) stays a node:https request, as its
 * readers take it.
 */
export class RestClient {
  private readonly agent: Agent;
  private pool: Pool | undefined;
  private readonly connect: { ca?: string; cert?: string; key?: string; rejectUnauthorized: boolean };
  private readonly authorization: Record<string, string>;

  constructor(
    readonly server: URL,
    tls: { ca?: string; cert?: string; key?: string; token?: string; insecureSkipTlsVerify?: boolean },
    private readonly observe?: RequestObserver,
  ) {
    this.connect = { ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: !tls.insecureSkipTlsVerify };
    this.agent = new OneServerAgent({ keepAlive: true, maxSockets: MAX_CONNECTIONS, ...this.connect });
    this.authorization = tls.token ? { Authorization: `Bearer ${tls.token}` } : {};
  }

  static fromKubeconfig(text: string, observe?: RequestObserver): RestClient {
    const parsed = parseServerCredentials(text);
    return new RestClient(
      new URL(parsed.server),
      {
        ca: parsed.caPem,
        cert: parsed.certPem,
        key: parsed.keyPem,
        token: parsed.token,
        insecureSkipTlsVerify: parsed.insecureSkipTlsVerify,
      },
      observe,
    );
  }

  /**
   * `signal` aborts the request (the promise rejects with an AbortError, caused by the abort's
   * reason, as node:https's requests do). A GET, HEAD or OPTIONS whose connection failed before
   * any answer (a kept-alive one the server closed as it was sent: its idle timeout, 5 s on a Node
   * server, can fire while the request is on the wire) goes again once on a new connection, as
   * Go's transport does for a replayable request on a reused connection: such a request was never
   * answered, and a poll every few seconds meets that race.
   */
  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: RequestHeaders = {},
    signal?: AbortSignal,
  ): Promise<RestResponse> {
    try {
      return await this.requestOnce(method, path, body, headers, signal);
    } catch (err) {
      if (!(err instanceof ClosedBeforeAnswer)) throw err;
      if (!REPLAYABLE.has(method)) throw err.cause;
      return this.requestOnce(method, path, body, headers, signal);
    }
  }

  private async requestOnce(
    method: string,
    path: string,
    body: unknown,
    headers: RequestHeaders,
    signal: AbortSignal | undefined,
  ): Promise<RestResponse> {
    this.observe?.(method, path, undefined);
    this.pool ??= new Pool(this.server.origin, {
      connections: MAX_CONNECTIONS,
      connect: this.connect,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const answer = await dispatchWhole(
      this.pool,
      { method, path, headers: requestHeaders(headers, this.authorization), body: payload },
      signal,
      (err, answered) => (!answered && !signal?.aborted && isSocketError(err) ? new ClosedBeforeAnswer(err) : err),
    );
    return restResponse(answer.status, answer.headers, answer.text);
  }

  /** A request whose response the caller reads as a stream (watches); `signal` aborts it. */
  open(method: string, path: string, headers: RequestHeaders, signal?: AbortSignal): ClientRequest {
    const { hostname: host, port } = this.server;
    const req = request({
      method,
      host,
      port,
      path,
      headers: { ...headers, ...this.authorization },
      agent: this.agent,
      signal,
    });
    this.observe?.(method, path, req);
    return req;
  }

  /** Closes every connection; a later request opens new ones. */
  close(): void {
    this.agent.destroy();
    this.pool?.destroy().catch(() => undefined);
    this.pool = undefined;
  }
}

/** Methods Go's transport sends again when a reused connection fails before an answer (`isReplayable`). */
const REPLAYABLE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A connection that failed before any answer: the request was not answered. */
class ClosedBeforeAnswer extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message, { cause });
  }
}

/**
 * JSON by default, the caller's headers over that, the credentials over both; by lowercase name,
 * as node:https merged them: undici sends two spellings of one header as two headers (a PATCH's
 * `content-type` beside the default `Content-Type` read as an unknown media type).
 */
function requestHeaders(headers: RequestHeaders, authorization: Record<string, string>): RequestHeaders {
  const merged: RequestHeaders = { 'content-type': 'application/json', accept: 'application/json' };
  for (const [name, value] of Object.entries(headers)) merged[name.toLowerCase()] = value;
  for (const [name, value] of Object.entries(authorization)) merged[name.toLowerCase()] = value;
  return merged;
}

/** The connection ended or failed under the request (undici's SocketError, or the socket's own error). */
function isSocketError(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

/** Throws the server's Status message unless the response is one of `ok` statuses. */
export function expectStatus(res: RestResponse, what: string, ...ok: number[]): RestResponse {
  if (!ok.includes(res.status)) {
    const message = res.body?.message ?? res.text.slice(0, 300);
    throw new Error(`${what}: ${res.status} ${message}`);
  }
  return res;
}

/**
 * The answer, its JSON parsed when `body` is first read: most callers (a create whose echo
 * nobody reads) never read it, and parsing every echoed object was 2.6% of the gateway's time
 * creating tenants. Unparsable text reads as undefined.
 */
function restResponse(status: number, headers: IncomingHttpHeaders, text: string): RestResponse {
  let body: unknown;
  let parsed = false;
  return {
    status,
    headers,
    text,
    get body() {
      if (!parsed) {
        parsed = true;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
      }
      return body;
    },
    set body(value: unknown) {
      parsed = true;
      body = value;
    },
  };
}
