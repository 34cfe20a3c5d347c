/**
 * What a tenant is told when its cluster does not give a proper answer: one Status for each kind
 * of failure, whichever path met it (requests, lists, watches, logs, upgrades, discovery). The
 * messages say what failed and nothing of the cluster itself (its address, the socket's error),
 * which other tenants share.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../../apiserver/handlers/http-io.js';
import { isObject } from '../../apiserver/json.js';
import { ApiError, statusOf, type Status } from '../../apiserver/status.js';
import { TranslationError, type TenantContext } from '../../translate/context.js';
import { statusDown } from '../../translate/status.js';
import { BARE_TEXT, errorText, logger } from '../../log/log.js';

/** The gateway's own failures (500s), under where they happened; text mode writes `<where>: <stack>`. */
const log = logger('gateway', { text: BARE_TEXT });

/**
 * Why a request to a cluster failed without an answer, in the few words the metrics use
 * (`paddock_upstream_errors_total{reason}`): the cluster did not answer in time, refused the
 * connection, cut it (reset, a broken pipe, undici's "other side closed"), could not be resolved,
 * could not be routed to, or failed the TLS handshake (a certificate not trusted, a name that does
 * not match, a protocol error).
 */
export type UpstreamFailureReason = 'timeout' | 'refused' | 'reset' | 'dns' | 'unreachable' | 'tls';

/** Node's and undici's codes of a connection that could not be made or was lost, and TLS's failures, by reason. */
const REASONS: readonly [RegExp, UpstreamFailureReason][] = [
  [/^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT)$/, 'timeout'],
  [/^ECONNREFUSED$/, 'refused'],
  [/^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/, 'reset'],
  [/^(ENOTFOUND|EAI_AGAIN)$/, 'dns'],
  [/^(EHOSTUNREACH|ENETUNREACH)$/, 'unreachable'],
  [
    /^(EPROTO|ERR_TLS_\w+|ERR_SSL_\w+|CERT_\w+|UNABLE_TO_\w+|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH)$/,
    'tls',
  ],
];

/** Where failures to talk to a cluster are counted (GatewayMetrics: `paddock_upstream_errors_total`). */
export interface UpstreamFailures {
  /** Counts `err` under `cluster` when it is a failure to talk to the cluster; anything else is not the cluster's. */
  upstreamFailed(cluster: string, err: unknown): void;
}

/** The request out of time while waiting for the cluster's answer: kube's 504 Timeout. */
function isHeadersTimeout(err: unknown): boolean {
  const { name, code } = isObject(err) ? err : {};
  return code === 'UND_ERR_HEADERS_TIMEOUT' || name === 'HeadersTimeoutError';
}

/** Why `err` is a failure to talk to the cluster; undefined when it is none (the gateway's own error). */
export function upstreamFailureReason(err: unknown): UpstreamFailureReason | undefined {
  if (isHeadersTimeout(err)) return 'timeout';
  const code = isObject(err) ? err.code : undefined;
  if (typeof code !== 'string') return undefined;
  return REASONS.find(([pattern]) => pattern.test(code))?.[1];
}

/**
 * An error met while serving a tenant, as its Status. A failure to talk to the tenant's cluster
 * (`upstreamFailureReason`), in kube's reasons: 504 Timeout when it did not answer in time, 503
 * ServiceUnavailable when it could not be reached (refused, reset, unresolvable, a connection that
 * could not be made in time, or a TLS handshake that failed), both with Retry-After, as either may
 * pass. Any other error is the gateway's own: 500, its detail only in the gateway's log, under
 * `where`. `cluster` names the cluster as its reader knows it: a tenant's is "the tenant's
 * cluster" (the name is the provider's, shared by other tenants); the admin's is named.
 */
export function failureStatus(err: unknown, where: string, cluster = "the tenant's cluster"): Status {
  if (isHeadersTimeout(err))
    return statusOf(504, 'Timeout', `${cluster} did not answer in time`, { retryAfterSeconds: 1 });
  if (upstreamFailureReason(err) !== undefined)
    return statusOf(503, 'ServiceUnavailable', `${cluster} is unreachable`, { retryAfterSeconds: 1 });
  log.error(where, { error: errorText(err) });
  return statusOf(500, 'InternalError', 'the gateway failed to handle the request');
}

/** The tenant's cluster has no connection on this gateway (not placed yet, or not one it serves). */
export function clusterUnavailableStatus(tenantId: string): Status {
  return statusOf(503, 'ServiceUnavailable', `the cluster of tenant ${tenantId} is not available`, {
    retryAfterSeconds: 1,
  });
}

/** The cluster's Status in an answer's body, in the tenant's terms; undefined when the body is no Status. */
export function upstreamStatus(ctx: TenantContext, body: string): Status | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  return isObject(parsed) && parsed.kind === 'Status' ? (statusDown(ctx, parsed) as Status) : undefined;
}

/**
 * An error answer of the cluster as the tenant's Status: the cluster's own, translated; for a body
 * that is none (a proxy's page, a cut-off answer), one with the answer's code saying `what` failed.
 */
export function upstreamErrorStatus(ctx: TenantContext, code: number, body: string, what: string): Status {
  return upstreamStatus(ctx, body) ?? statusOf(code, 'InternalError', what);
}

/**
 * Whatever a tenant request failed with, as its Status: a refusal of the conversion as it was
 * raised, the cluster's own Status in the tenant's terms, any other failure as `failureStatus`.
 */
export function tenantFailureStatus(ctx: TenantContext, err: unknown, where: string): Status {
  if (err instanceof TranslationError) return statusOf(err.code, err.reason, err.message, err.details as never);
  if (err instanceof ApiError) return statusDown(ctx, err.status) as Status;
  return failureStatus(err, where);
}

/** An error answer of the cluster sent on as the tenant's Status (`upstreamErrorStatus`). */
export function sendUpstreamError(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: TenantContext,
  code: number,
  body: string,
  what: string,
): void {
  sendJson(req, res, code, upstreamErrorStatus(ctx, code, body, what));
}

/** The admin's default cluster, by name, as a failure of an admin request names it. */
export function adminClusterName(name: string): string {
  return `the default cluster ${name}`;
}

/** An admin request that needs the default cluster when it has no connection, or its discovery could not be read. */
export function defaultClusterUnavailable(name: string | undefined): Status {
  const message = name ? `${adminClusterName(name)} is unavailable` : 'no default cluster is registered and reachable';
  return statusOf(503, 'ServiceUnavailable', message, { retryAfterSeconds: 1 });
}

/** The cluster's refusal of an admin's upgrade: its own Status, passed on as it is, else one saying what it answered. */
export function adminUpgradeRefusal(code: number, body: string): Status {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not a Status: described below.
  }
  if (isObject(parsed) && parsed.kind === 'Status') return parsed as Status;
  return statusOf(code, 'InternalError', `the cluster answered the upgrade with ${code}: ${body.slice(0, 200)}`);
}
