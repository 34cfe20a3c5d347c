import { requestUrl } from '../../apiserver/request-info.js';
import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect } from 'node:tls';
import { statusOf, type Status } from '../../apiserver/status.js';
import type { UpgradeTarget } from '../../clusters/upgrade-target.js';
import { pathNotFoundError, type TenantContext, TranslationError } from '../../translate/context.js';
import { proxyPathUp } from '../../translate/proxy-path.js';
import { requestUp } from '../../translate/request.js';
import { clientImpersonationRefusal } from '../auth/client-impersonation.js';
import { failureStatus, upstreamErrorStatus } from '../upstream/upstream-failure.js';

/** Connection-level headers that belong to one hop, and those the gateway sets itself. */
const DROPPED = new Set([
  'host',
  'authorization',
  'proxy-authorization',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'te',
  'trailer',
]);
const UPGRADABLE = new Set(['exec', 'attach', 'portforward']);

/**
 * `exec`, `attach`, `portforward` and upgrades on `proxy` (a WebSocket to a pod) through the gateway: the path is translated like any
 * request (the client's own impersonation headers are refused), its credential headers are
 * dropped and the tenant user's impersonation headers added, and once the cluster switches protocols (101) the two
 * connections are piped byte for byte — WebSocket and SPDY alike, since nothing in them is
 * read. A refusal from the cluster comes back as a translated Status.
 */
export function proxyUpgrade(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  ctx: TenantContext,
  impersonation: Record<string, string | string[]>,
  target: UpgradeTarget,
  failed: (err: unknown) => void,
): void {
  const impersonating = clientImpersonationRefusal(req.headers);
  if (impersonating) return refuseUpgrade(client, impersonating);
  let translated;
  try {
    const url = requestUrl(req.url);
    translated = requestUp(ctx, req.method ?? 'GET', url.pathname, url.searchParams);
    if (translated?.info.subresource === 'proxy')
      translated = { ...translated, path: proxyPathUp(translated, url.pathname) };
    else if (!translated || translated.info.resource !== 'pods' || !UPGRADABLE.has(translated.info.subresource)) {
      throw pathNotFoundError();
    }
  } catch (err) {
    const status =
      err instanceof TranslationError
        ? statusOf(err.code, err.reason, err.message, err.details as never)
        : statusOf(400, 'BadRequest', (err as Error).message);
    return refuseUpgrade(client, status);
  }
  const query = translated.query.toString();
  pipeUpgrade(
    req,
    client,
    head,
    query ? `${translated.path}?${query}` : translated.path,
    impersonation,
    target,
    (code, text) => upstreamErrorStatus(ctx, code, text, 'the cluster refused the upgrade'),
    failed,
  );
}

/**
 * Sends an upgrade request to the cluster at `path` as `impersonation` (the client's credential
 * headers dropped) and, once the cluster switches protocols, pipes the two connections byte for
 * byte. A refusal from the cluster is answered with `refusal(code, body)`.
 */
export function pipeUpgrade(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  path: string,
  impersonation: Record<string, string | string[]>,
  target: UpgradeTarget,
  refusal: (code: number, text: string) => Status,
  failed: (err: unknown) => void,
): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headersDistinct)) {
    if (value && !DROPPED.has(name)) headers[name] = value.length === 1 ? value[0] : value;
  }
  Object.assign(headers, impersonation, { host: target.server.host });
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  const upstream = request({
    method: req.method,
    path,
    headers,
    createConnection: () =>
      connect({
        host: target.server.hostname,
        port: Number(target.server.port),
        ...(isIP(target.server.hostname) ? {} : { servername: target.server.hostname }),
        ...target.tls,
      }),
  });
  upstream.on('upgrade', (res, socket, upstreamHead) => {
    if (client.destroyed) return socket.destroy();
    client.write(responseHead(res.statusCode ?? 101, res.statusMessage ?? 'Switching Protocols', res.headers));
    if (upstreamHead.length) client.write(upstreamHead);
    if (head.length) socket.write(head);
    socket.pipe(client).pipe(socket);
    const close = () => {
      socket.destroy();
      client.destroy();
    };
    socket.on('error', close).on('close', close);
    client.on('error', close).on('close', close);
  });
  upstream.on('response', (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => refuseUpgrade(client, refusal(res.statusCode ?? 502, text)));
  });
  upstream.on('error', (err) => {
    failed(err);
    refuseUpgrade(client, failureStatus(err, `upgrade proxy: ${req.method} ${req.url}`));
  });
  // The client gone (hung up, or cut off when its certificate was revoked) before the cluster
  // answered: the upgrade request upstream is abandoned too.
  client.on('error', () => upstream.destroy());
  client.once('close', () => upstream.destroy());
  upstream.end();
}

function responseHead(code: number, message: string, headers: IncomingHttpHeaders): string {
  const lines = [`HTTP/1.1 ${code} ${message}`];
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) lines.push(`${name}: ${v}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** A Status on the raw socket, as the answer to the upgrade request (with Retry-After, as sendStatus gives it). */
export function refuseUpgrade(client: Duplex, status: Status): void {
  if (client.destroyed) return;
  const body = JSON.stringify(status);
  const retryAfter = status.details?.retryAfterSeconds ? `Retry-After: ${status.details.retryAfterSeconds}\r\n` : '';
  client.end(
    `HTTP/1.1 ${status.code} ${status.reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${retryAfter}Connection: close\r\n\r\n${body}`,
  );
}
