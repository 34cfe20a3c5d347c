/** Upstream answers converted down for the tenant: objects, lists, Tables, Status, text and Warning headers. */
import { TranslationError, type TenantContext } from '../../translate/context.js';
import { objectDownInPlace, textDown } from '../../translate/objects.js';
import { statusDown } from '../../translate/status.js';
import { tableDown, type RowKind } from '../../translate/table.js';
import type { TranslatedRequest } from '../../translate/request.js';
import type { TenantRequest } from '../server/tenant-request.js';
import type { UpstreamResponse } from '../../clusters/cluster-connection.js';
import { sendUpstreamError } from '../upstream/upstream-failure.js';

/** Any JSON response down: Status, Table, list or object (null when the object is foreign; a list is never foreign, its foreign items are dropped). */
export function responseDown(
  ctx: TenantContext,
  body: Record<string, any>,
  rowKind: RowKind,
  wantsNoObject: boolean,
): Record<string, any> | null {
  if (body.kind === 'Status') return statusDown(ctx, body);
  if (body.kind === 'Table') {
    const table = tableDown(ctx, body, rowKind);
    if (wantsNoObject) table.rows = table.rows.map((row: Record<string, unknown>) => ({ ...row, object: null }));
    return table;
  }
  // The body was parsed for this request alone: converted where it lies, no copies.
  if (objectDownInPlace(ctx, body)) return body;
  return Array.isArray(body.items) ? { ...body, items: [] } : null;
}

/** A non-JSON upstream answer: its status with the text stripped of the prefix. */
export function rawDown(r: TenantRequest, response: Pick<UpstreamResponse, 'status' | 'headers'>, text: string): void {
  const { req, res, ctx } = r;
  if (response.status >= 400)
    return sendUpstreamError(req, res, ctx, response.status, text, textDown(ctx, text.slice(0, 1000)));
  res.writeHead(response.status, { 'Content-Type': String(response.headers['content-type'] ?? 'text/plain') });
  res.end(textDown(ctx, text));
}

/** The upstream's Warning headers with the tenant's names. */
export function warningsDown(
  ctx: TenantContext,
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const warning = headers.warning;
  if (!warning) return {};
  return { Warning: textDown(ctx, Array.isArray(warning) ? warning.join(', ') : warning) };
}

/** What the tenant is told of an object that is not its own: that it does not exist. */
export function notFound(t: TranslatedRequest): TranslationError {
  return new TranslationError(404, 'NotFound', `${t.info.resource} "${t.info.name}" not found`, {
    name: t.info.name,
    group: t.info.group,
    kind: t.info.resource,
  });
}

export function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
