import { sendJson, sendJsonText } from '../../apiserver/handlers/http-io.js';
import { objectTextDown } from '../../translate/list-text.js';
import { afterWrite } from './after-write.js';
import { notFound, parseJson, rawDown, responseDown, warningsDown } from './answer-down.js';
import { checkedWrite, type WriteRequest } from './checked-write.js';
import { ownerCheck } from './owner-lookup.js';
import { sendAsTenant } from '../auth/tenant-credentials.js';
import { pathWithQuery, type TenantRequest } from '../server/tenant-request.js';

/**
 * A request of one object (get, create, update, patch, delete, a subresource) sent upstream and
 * its answer converted down; a write checked on its way (checked-write.ts) and followed by what
 * it changes beyond itself (after-write.ts).
 */
export async function forwardRequest(r: TenantRequest, write?: WriteRequest): Promise<void> {
  const { req, res, ctx, t, upstream, metrics } = r;
  const response = write
    ? await checkedWrite(
        write,
        (verb, method, query, sent, contentType) =>
          sendAsTenant(r, (as) =>
            r.upstreamRequest(
              verb,
              method,
              pathWithQuery(t.path, query),
              contentType ? { ...as, 'content-type': contentType } : as,
              sent,
            ),
          ),
        ownerCheck(r),
      ).then(async (answer) => ({ ...answer, text: await answer.body.text() }))
    : await sendAsTenant(r, (as) => r.upstreamWhole(t.info.verb, r.method, pathWithQuery(t.path, t.query), as, r.body));
  const { text } = response;
  if (response.status < 300 && r.method !== 'GET') await afterWrite(ctx, t, r.cluster, [{ path: t.path, text }]);
  if (t.info.group === 'apiextensions.k8s.io' && r.method !== 'GET') upstream.invalidate();
  // An object converted from its text, as list items are; a namespace made is parsed, for the index below.
  const made = t.info.group === '' && t.info.resource === 'namespaces' && r.method === 'POST';
  const down = response.status < 300 && !made ? metrics.time('down', () => objectTextDown(ctx, text)) : undefined;
  if (down === null) throw notFound(t);
  if (down !== undefined) return sendJsonText(req, res, response.status, down, warningsDown(ctx, response.headers));
  const parsed = parseJson(text);
  if (!parsed) return rawDown(r, response, text);
  // The tenant's next `get -A` must see the namespace it just made, before the index's watch does.
  if (
    t.info.group === '' &&
    t.info.resource === 'namespaces' &&
    response.status === 201 &&
    typeof parsed.metadata?.name === 'string'
  )
    r.cluster.namespaceIndex.added(ctx.tenantId, parsed.metadata.name);
  const out = metrics.time('down', () => responseDown(ctx, parsed, r.rowKind, r.wantsNoObject));
  if (out === null) throw notFound(t);
  sendJson(req, res, response.status, out, warningsDown(ctx, response.headers));
}
