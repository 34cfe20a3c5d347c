import { drained, onClose } from '../../apiserver/handlers/http-io.js';
import { refuseWatch, watchAcrossNamespaces } from './cross-namespace-watch.js';
import { sendAsTenant } from '../auth/tenant-credentials.js';
import { pathWithQuery, type TenantRequest } from '../server/tenant-request.js';
import { WatchEventsDown, watchLineBatches } from './watch-lines.js';

/**
 * A watch streamed line by line; the tenant's hang-up closes the upstream watch. Across all
 * namespaces it fans out over the tenant's namespaces (cross-namespace-watch.ts).
 */
export async function watch(r: TenantRequest): Promise<void> {
  const { req, res, ctx, t, upstream, metrics, headers } = r;
  const events = new WatchEventsDown(ctx, r.rowKind);
  const memo = String(headers.accept).includes('as=Table') ? undefined : r.cluster.watchLines;
  if (t.namespaced && !t.info.namespace)
    return watchAcrossNamespaces(req, res, {
      ctx,
      cluster: r.cluster,
      metrics,
      path: t.path,
      query: t.query,
      headers,
      events,
      memo,
      lease: r.lease,
    });
  const response = await sendAsTenant(r, (as) => r.upstreamWatch(pathWithQuery(t.path, t.query), as));
  if (response.status !== 200) return refuseWatch(req, res, ctx, response);
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  res.flushHeaders();
  const close = () => response.body.destroy();
  const unfollow = onClose(res, close);
  try {
    for await (const lines of watchLineBatches(response.body)) {
      metrics.watchEventsRead.inc({ cluster: upstream.name }, lines.length);
      let out = '';
      for (const line of lines) out += events.downLine(line, memo) ?? '';
      if (out && !res.write(out) && !res.destroyed) await drained(res, res);
    }
  } catch {
    // The upstream stream ended abnormally or the tenant hung up: end the tenant's stream.
  } finally {
    unfollow();
    if (!res.destroyed) res.end();
  }
}
