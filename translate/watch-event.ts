import { apiVersionDown, type TenantContext } from './context.js';
import { objectDownInPlace } from './objects.js';
import { statusDown } from './status.js';
import { tableDown, type RowKind } from './table.js';

export interface WatchEvent {
  type: string;
  object: Record<string, any>;
}

/**
 * One watch event down, or null when it is not the tenant's to see: objects as objectDown, but
 * converted in place (the event is the caller's, just parsed: a watch is a hot path),
 * one-row Tables as tableDown, ERROR Status as statusDown, BOOKMARKs with their apiVersion only.
 */
export function watchEventDown(ctx: TenantContext, event: WatchEvent, rowKind: RowKind): WatchEvent | null {
  const object = event.object ?? {};
  if (event.type === 'ERROR') return { type: 'ERROR', object: statusDown(ctx, object) };
  if (event.type === 'BOOKMARK') {
    const apiVersion =
      typeof object.apiVersion === 'string' ? apiVersionDown(ctx, object.apiVersion) : object.apiVersion;
    return apiVersion === null ? null : { type: 'BOOKMARK', object: { ...object, apiVersion } };
  }
  if (object.kind === 'Table') {
    const table = tableDown(ctx, object, rowKind);
    return table.rows.length ? { type: event.type, object: table } : null;
  }
  return objectDownInPlace(ctx, object) ? { type: event.type, object } : null;
}
