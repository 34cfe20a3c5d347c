/**
 * Object conversion between a tenant's view and the upstream cluster, for whole objects, lists
 * and partial objects (patch bodies): metadata rules for every kind, then the kind's own
 * convertor from the table in kinds/kind-records.ts.
 */
import { goJsonMarshal, goJsonMarshalUnstructured } from '../apiserver/go-json/marshal.js';
import { isObject, type Json } from '../apiserver/json.js';
import {
  ADMIN_GROUPS,
  apiVersionDown,
  apiVersionUp,
  groupDown,
  groupOfApiVersion,
  podApiAdding,
  TranslationError,
  type TenantContext,
} from './context.js';
import { metadataDown, metadataUp } from './kinds/metadata.js';
import { convertorFor } from './kinds/kind-records.js';

export { textDown } from './kinds/text.js';

/** The type of a JSON object as its `apiVersion` and `kind` say (upstream's words down). */
export interface TypeMeta {
  apiVersion: string;
  kind: string;
}

function isList(object: Json, kind: string): object is Json & { items: unknown[] } {
  return kind.endsWith('List') && Array.isArray(object.items);
}

function typeOf(object: Json, inherited: TypeMeta): TypeMeta {
  return {
    apiVersion: typeof object.apiVersion === 'string' ? object.apiVersion : inherited.apiVersion,
    kind: typeof object.kind === 'string' ? object.kind : inherited.kind,
  };
}

/** Items of a typed list leave out kind and apiVersion: they are the list's (`PodList` → `Pod`). */
const listItemType = (list: TypeMeta): TypeMeta => ({
  apiVersion: list.apiVersion,
  kind: list.kind.slice(0, -'List'.length),
});

/** Tenant object → upstream object (a new object; the input is not modified). Throws TranslationError for what must be refused. */
export function objectUp(ctx: TenantContext, object: Record<string, any>): Record<string, any> {
  const copy = structuredClone(object);
  convertUp(ctx, copy, typeOf(copy, { apiVersion: '', kind: '' }));
  return copy;
}

function convertUp(ctx: TenantContext, object: Json, type: TypeMeta): void {
  const group = groupOfApiVersion(type.apiVersion);
  if (ADMIN_GROUPS.has(group))
    throw new TranslationError(403, 'Forbidden', `the API group "${group}" is not available to tenants`, {
      group,
      kind: type.kind,
    });
  if (typeof object.apiVersion === 'string') object.apiVersion = apiVersionUp(ctx, object.apiVersion);
  if (isList(object, type.kind)) {
    for (const item of object.items) if (isObject(item)) convertUp(ctx, item, typeOf(item, listItemType(type)));
    return;
  }
  // Kind convertors always see the tenant's metadata (for their error messages): before it goes up, after it comes down.
  convertorFor(group, type.kind)?.up(ctx, object);
  metadataUp(ctx, object, { group, kind: type.kind });
  // Up as kubectl and the cluster write it (Go's encoding of a map: keys sorted), so that a record
  // read and sent back unchanged goes up as the cluster keeps it, whatever the gateway added in it.
  convertLastApplied(
    object,
    (applied) => {
      convertUp(appliedRecordOf(ctx), applied, typeOf(applied, type));
      return true;
    },
    goJsonMarshalUnstructured,
  );
}

/** Upstream object → tenant object (a new object), or null when the object is foreign (another tenant's or the admin's). */
export function objectDown(ctx: TenantContext, object: Record<string, any>): Record<string, any> | null {
  const copy = structuredClone(object);
  return objectDownInPlace(ctx, copy) ? copy : null;
}

/**
 * objectDown for an object the caller owns (just parsed from an upstream answer): converted where
 * it lies, since copying every object of a 10k-item list costs more than converting it. false
 * when the object is foreign; its content is then unspecified.
 */
export function objectDownInPlace(
  ctx: TenantContext,
  object: Record<string, any>,
  inherited: TypeMeta = { apiVersion: '', kind: '' },
): boolean {
  return convertDown(ctx, object, typeOf(object, inherited));
}

/** false when the object is foreign. Lists drop foreign items and are never foreign for them. */
function convertDown(ctx: TenantContext, object: Json, type: TypeMeta): boolean {
  const group = groupDown(ctx, groupOfApiVersion(type.apiVersion));
  if (group === null) return false;
  if (typeof object.apiVersion === 'string') object.apiVersion = apiVersionDown(ctx, object.apiVersion);
  if (isList(object, type.kind)) {
    object.items = object.items.filter(
      (item) => isObject(item) && convertDown(ctx, item, typeOf(item, listItemType(type))),
    );
    return true;
  }
  if (!metadataDown(ctx, object, { group, kind: type.kind })) return false;
  if (!(convertorFor(group, type.kind)?.down(ctx, object) ?? true)) return false;
  convertLastApplied(
    object,
    (applied) => convertDown(appliedRecordOf(ctx), applied, typeOf(applied, type)),
    goJsonMarshal,
  );
  return true;
}

/**
 * The context a record of what kubectl applied converts in (TenantContext.appliedRecord). The
 * cluster writes the record itself from what a server-side apply sent (the pod pointed at the
 * gateway), kubectl from what it sends: converted alike, the record reads back as kubectl wrote
 * it and goes up as the cluster keeps it, so kubectl's next apply finds it unchanged.
 */
function appliedRecordOf(ctx: TenantContext): TenantContext {
  return ctx.appliedRecord ? ctx : { ...podApiAdding(ctx, 'all'), appliedRecord: true };
}

/** kubectl's record of what it applied (client-side, and kept by the cluster after a server-side apply). */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * The annotation holds a whole object of the same kind as JSON text, which kubectl reads back and
 * the cluster compares with the object: it is converted as an object. One that does not convert
 * (not JSON, or not in the view it is converted from, as written before it was converted) stays
 * as it is: whatever is in it came from the tenant.
 */
function convertLastApplied(
  object: Json,
  convert: (applied: Json) => boolean,
  encode: (applied: Json) => string,
): void {
  const annotations = object.metadata?.annotations;
  const text: unknown = isObject(annotations) ? annotations[LAST_APPLIED] : undefined;
  if (typeof text !== 'string') return;
  let applied: unknown;
  try {
    applied = JSON.parse(text);
  } catch {
    return;
  }
  if (!isObject(applied) || !convert(applied)) return;
  annotations[LAST_APPLIED] = `${encode(applied)}${text.endsWith('\n') ? '\n' : ''}`;
}
