/**
 * The gateway's request log (`paddock serve --request-log line`): one line per request, when it
 * ends. It names who asked for what and how it went, never a body, a header or a query (a query
 * can carry a token or a label selector with a tenant's data; the path and verb say enough to
 * find the request in `/metrics` and the upstream's logs).
 */
import { requestUrl } from '../../apiserver/request-info.js';
import type { Identity } from '../auth/authenticate.js';

/** What one finished request leaves in the log. */
export interface RequestLogEntry {
  /** When the request came in (ms since the epoch). */
  started: number;
  /** The certificate's user (`admin`, `<tid>-admin`); undefined for a certificate the gateway refused. */
  user?: string;
  /** The tenant the user belongs to; undefined for the admin and refused certificates. */
  tenant?: string;
  /** kube's verb (get, list, watch, create, …), or the HTTP method off the resource paths. */
  verb: string;
  /** The request's path, without its query. */
  path: string;
  /** The HTTP status sent, or 101 for an upgraded session (exec, attach, port-forward). */
  code: number;
  /** How long the request ran, until its response (or upgraded socket) closed, in ms. */
  durationMs: number;
}

export const REQUEST_LOG_MODES = ['off', 'line'] as const;
export type RequestLogMode = (typeof REQUEST_LOG_MODES)[number];

export function isRequestLogMode(text: string): text is RequestLogMode {
  return (REQUEST_LOG_MODES as readonly string[]).includes(text);
}

/**
 * `2026-12-01T20:10:00.123Z foofoo-admin foofoo get /api/v1/namespaces/default/configmaps/x 200 3ms`:
 * fields split on spaces, `-` for none (no user, no tenant). Whitespace and control characters
 * in a field are %-escaped, so no value can forge a field or a line.
 */
export function requestLogLine(entry: RequestLogEntry): string {
  return [
    new Date(entry.started).toISOString(),
    field(entry.user),
    field(entry.tenant),
    field(entry.verb),
    field(entry.path),
    entry.code,
    `${Math.round(entry.durationMs)}ms`,
  ].join(' ');
}

function field(text: string | undefined): string {
  if (!text) return '-';
  // eslint-disable-next-line no-control-regex -- control characters are what this escapes
  return text.replace(/[\s\x00-\x1f\x7f]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}`);
}

/** Where a gateway sends its request log entries (`GatewayOptions.onRequest`). */
export type RequestLogSink = (entry: RequestLogEntry) => void;

/**
 * Logs the request when `closed` (its response, or its upgraded socket) closes: a watch or an
 * exec session is one line, with how long it ran. `code` is read then.
 */
export function logWhenClosed(
  sink: RequestLogSink,
  closed: { once(event: 'close', listener: () => void): unknown },
  request: { identity: Identity | { refused: unknown }; verb: string; url: string | undefined },
  code: () => number,
): void {
  const started = Date.now();
  const startedAt = performance.now();
  const { identity } = request;
  closed.once('close', () =>
    sink({
      started,
      user: 'refused' in identity ? undefined : identity.user,
      tenant: 'refused' in identity || identity.kind === 'admin' ? undefined : identity.tenant,
      verb: request.verb,
      path: requestUrl(request.url).pathname,
      code: code(),
      durationMs: performance.now() - startedAt,
    }),
  );
}
