import { acceptsAggregatedDiscovery } from '../../apiserver/discovery/aggregated.js';
import { sendJson } from '../../apiserver/handlers/http-io.js';
import { pathNotFoundError } from '../../translate/context.js';
import { apiGroupDown, apiResourceListDown, discoveryPathUp, discoveryRootDown } from '../../translate/discovery.js';
import type { TenantRequest } from '../server/tenant-request.js';
import { sendUpstreamError } from '../upstream/upstream-failure.js';

/** The cluster's discovery document (cached per cluster), legacy or aggregated as asked, converted for the tenant. */
export async function serveDiscovery(r: TenantRequest): Promise<void> {
  const { req, res, ctx, upstream, path } = r;
  const parts = path.split('/').filter(Boolean);
  const upstreamPath = discoveryPathUp(ctx, path);
  if (!upstreamPath) throw pathNotFoundError();
  const aggregated = parts.length === 1 ? acceptsAggregatedDiscovery(req.headers.accept ?? '') : null;
  const doc = await upstream.document(upstreamPath, aggregated ? String(req.headers.accept) : 'application/json');
  if (doc.status !== 200)
    return sendUpstreamError(req, res, ctx, doc.status, doc.body, 'the cluster could not serve its discovery document');
  const body = JSON.parse(doc.body);
  const down =
    parts.length === 1
      ? discoveryRootDown(ctx, body)
      : parts[0] === 'apis' && parts.length === 2
        ? apiGroupDown(ctx, body)
        : apiResourceListDown(ctx, body);
  if (!down) throw pathNotFoundError();
  sendJson(req, res, 200, down, { 'Content-Type': doc.contentType, Vary: 'Accept' });
}
