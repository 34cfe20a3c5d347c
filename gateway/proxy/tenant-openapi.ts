import { sendJson } from '../../apiserver/handlers/http-io.js';
import { pathNotFoundError } from '../../translate/context.js';
import { openapiDocumentDown, openapiIndexDown, openapiPathUp } from '../../translate/openapi.js';
import type { TenantRequest } from '../server/tenant-request.js';
import { upstreamErrorStatus } from '../upstream/upstream-failure.js';

const OPENAPI_FAILED = 'the cluster could not serve its OpenAPI document';

/** `/openapi/v2` is an empty document: kubectl then validates on the server, as with the devcluster. */
export function serveOpenApiV2(r: TenantRequest): void {
  r.res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': '0' });
  r.res.end();
}

/** The cluster's OpenAPI v3 index and documents (cached per cluster), with the tenant's groups and names. */
export async function serveOpenApiV3(r: TenantRequest): Promise<void> {
  const { ctx, upstream, path } = r;
  if (path === '/openapi/v3')
    return sendDocument(
      r,
      await upstream.document('/openapi/v3', 'application/json'),
      openapiIndexDown,
      'no-cache, private',
    );
  const upstreamPath = openapiPathUp(ctx, path);
  if (!upstreamPath) throw pathNotFoundError();
  const query = r.url.search;
  const cache = new URLSearchParams(query).has('hash') ? 'public, immutable' : 'no-cache, private';
  sendDocument(r, await upstream.document(upstreamPath + query, 'application/json'), openapiDocumentDown, cache);
}

/** An upstream OpenAPI document converted down, or its failure as the tenant's Status. */
function sendDocument(
  r: TenantRequest,
  doc: { status: number; body: string },
  down: (ctx: TenantRequest['ctx'], document: any) => unknown,
  cacheControl: string,
): void {
  const { req, res, ctx } = r;
  const body =
    doc.status === 200
      ? down(ctx, JSON.parse(doc.body))
      : upstreamErrorStatus(ctx, doc.status, doc.body, OPENAPI_FAILED);
  sendJson(req, res, doc.status, body, { 'Cache-Control': cacheControl });
}
