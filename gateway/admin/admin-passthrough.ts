import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { readBody, sendStatus } from '../../apiserver/handlers/http-io.js';
import { parseRequestInfo, requestUrl } from '../../apiserver/request-info.js';
import { ApiError } from '../../apiserver/status.js';
import type { ClusterMember } from '../../clusters/cluster-roster.js';
import type { AdminIdentity } from '../auth/authenticate.js';
import { streamBody } from '../upstream/stream-body.js';
import { pipeUpgrade } from '../proxy/upgrade-proxy.js';
import { ADMIN_CLAIM } from '../../clusters/upstream-seats.js';
import {
  adminClusterName,
  adminUpgradeRefusal,
  failureStatus,
  type UpstreamFailures,
} from '../upstream/upstream-failure.js';

/** Headers of one hop, and credentials the gateway replaces with its own. */
const HOP_HEADERS = new Set([
  'host',
  'authorization',
  'proxy-authorization',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
]);

/**
 * Who an admin request runs as on the default cluster: the gateway's own credentials,
 * impersonating the admin (user and groups), so the cluster's audit names who asked. An admin who
 * impersonates someone else (`kubectl --as`) keeps those headers: the admin is `system:masters`.
 */
export function adminImpersonation(req: IncomingMessage, admin: AdminIdentity): Record<string, string | string[]> {
  if (req.headers['impersonate-user'] !== undefined) return {};
  return { 'impersonate-user': admin.user, 'impersonate-group': admin.groups };
}

/**
 * The admin's request sent unchanged to a cluster (the default one, or the one the search proxy
 * chose), and its answer sent back as it comes (watches and logs stream). `target.path` replaces
 * the request's path and query (the search proxy's inner path); `target.body` its body. A cluster
 * that could not be reached is counted in `failures`.
 */
export async function passThrough(
  req: IncomingMessage,
  res: ServerResponse,
  admin: AdminIdentity,
  cluster: ClusterMember,
  failures: UpstreamFailures,
  target: { path?: string; body?: Buffer } = {},
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(req.headersDistinct))
    if (values && !HOP_HEADERS.has(name)) headers[name] = values.length === 1 ? values[0] : values;
  Object.assign(headers, adminImpersonation(req, admin));
  const method = req.method ?? 'GET';
  const body = target.body ?? (method === 'GET' || method === 'HEAD' ? undefined : await readBody(req));
  const path = target.path ?? req.url ?? '/';
  const url = requestUrl(path);
  const info = parseRequestInfo(method, url.pathname, url.searchParams);
  let response;
  try {
    response = isLongRunning(info, url.searchParams)
      ? await cluster.connection.stream(path, headers, method, body)
      : await cluster.connection.request(method, path, headers, body, undefined, ADMIN_CLAIM);
  } catch (err) {
    // No seat for it (upstream-seats.ts): the 429 as it was made.
    if (err instanceof ApiError) return sendStatus(req, res, err);
    failures.upstreamFailed(cluster.name, err);
    return sendStatus(
      req,
      res,
      failureStatus(err, `admin: ${method} ${path} on ${cluster.name}`, adminClusterName(cluster.name)),
    );
  }
  const answer: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(response.headers))
    if (value !== undefined && !HOP_HEADERS.has(name)) answer[name] = value;
  res.writeHead(response.status, answer);
  // A watch's head goes at once: client-go waits for it before it reads events, which may be minutes away.
  res.flushHeaders();
  await streamBody(response, res);
}

/** An admin upgrade (exec, attach, port-forward, a proxied WebSocket) piped to a cluster as it is; `path` replaces the request's (the search proxy's inner path). */
export function passThroughUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  admin: AdminIdentity,
  cluster: ClusterMember,
  failures: UpstreamFailures,
  path = req.url ?? '/',
): void {
  pipeUpgrade(
    req,
    socket,
    head,
    path,
    adminImpersonation(req, admin),
    cluster.upgradeTarget,
    adminUpgradeRefusal,
    (err) => failures.upstreamFailed(cluster.name, err),
  );
}

function isLongRunning(info: ReturnType<typeof parseRequestInfo>, query: URLSearchParams): boolean {
  if (!info.isResourceRequest) return false;
  return (
    info.verb === 'watch' ||
    info.subresource === 'log' ||
    info.subresource === 'proxy' ||
    query.get('follow') === 'true'
  );
}
