import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_REQUEST_BYTES, readBody, sendJson } from '../../apiserver/handlers/http-io.js';
import type { TenantContext } from '../../translate/context.js';
import { proxyPathUp } from '../../translate/proxy-path.js';
import type { TranslatedRequest } from '../../translate/request.js';
import { streamBody } from '../upstream/stream-body.js';
import type { UpstreamConnection } from '../../clusters/upstream-connection.js';
import { upstreamStatus } from '../upstream/upstream-failure.js';

/** Request headers that describe the content and are the workload's business; the rest are this hop's. */
const FORWARDED = [
  'accept',
  'content-type',
  'user-agent',
  'if-none-match',
  'if-modified-since',
  'range',
  'cache-control',
];
/** Response headers that belong to this hop, not to the workload's answer. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'te',
  'trailer',
  'upgrade',
]);

/**
 * `pods/<name>[:port]/proxy/...`, `services/...` and `nodes/<name>/proxy/healthz`: the path
 * translated (translate/proxy-path.ts), the tenant user impersonated, the body sent as it
 * came, and the workload's answer streamed back untouched — it is the tenant's own workload
 * speaking. The cluster's own refusals (404 pod, 503 no endpoints) are Status, translated.
 */
export async function proxySubresource(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: TenantContext,
  t: TranslatedRequest,
  upstream: UpstreamConnection,
  impersonation: Record<string, string | string[]>,
  rawPath: string,
  maxRequestBytes = MAX_REQUEST_BYTES,
): Promise<void> {
  const path = proxyPathUp(t, rawPath);
  const headers: Record<string, string | string[]> = { ...impersonation };
  for (const name of FORWARDED) {
    const value = req.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  const body = ['GET', 'HEAD', 'OPTIONS'].includes(req.method ?? 'GET')
    ? undefined
    : await readBody(req, maxRequestBytes);
  const query = t.query.toString();
  const response = await upstream.stream(query ? `${path}?${query}` : path, headers, req.method ?? 'GET', body);
  const contentType = String(response.headers['content-type'] ?? '');
  if (response.status >= 400 && contentType.startsWith('application/json')) {
    const text = await response.body.text();
    const status = upstreamStatus(ctx, text);
    if (status) return sendJson(req, res, response.status, status);
    // Not a Status: the workload's own JSON error, passed on as it is.
    res.writeHead(response.status, { 'Content-Type': contentType });
    res.end(text);
    return;
  }
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(response.headers))
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  res.writeHead(response.status, out);
  await streamBody(response, res);
}
