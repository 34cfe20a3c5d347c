/** One cached object as a tenant's answer carries it: converted down, and as a Table row. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { partialObjectMetadataText, tableRowText, type IncludeObject } from '../../apiserver/table/build-table.js';
import type { Printer } from '../../apiserver/table/printers-by-resource.js';
import type { CachedObject } from '../../search/cached-object.js';
import type { ClusterResourceStore } from '../../search/cluster-resource-store.js';
import { JsonScanner } from '../../translate/json-shadow.js';
import type { TenantContext } from '../../translate/context.js';
import { elementConverter } from '../../translate/list-text.js';
import type { TranslatedRequest } from '../../translate/request.js';
import type { RowKind } from '../../translate/table.js';

/**
 * What an answer from the cache reads of a tenant request (a TenantRequest, tenant-request.ts):
 * named here rather than imported, since the tenant request's services hold the cache's watch sets.
 */
export interface CachedAnswerRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly ctx: TenantContext;
  readonly url: URL;
  readonly t: TranslatedRequest;
  readonly rowKind: RowKind;
}

/**
 * A cached object's text as the tenant sees it (still without kind and apiVersion), or null
 * when it is not the tenant's: the conversion a forwarded list's items get (translate/list-text.ts).
 */
export function tenantItemConverter(
  r: CachedAnswerRequest,
  store: ClusterResourceStore,
): (object: CachedObject) => string | null {
  const head = { kind: `${store.type.kind}List`, apiVersion: store.type.apiVersion };
  const convert = elementConverter(r.ctx, head, 'items', r.rowKind, false)!;
  return (object) => convert(new JsonScanner(object.text), 0).text;
}

/** `?includeObject=` of a Table request: Metadata unless None or Object is asked. */
export function includeObjectOf(r: CachedAnswerRequest): IncludeObject {
  const value = r.url.searchParams.get('includeObject');
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}

/**
 * One Table row of an object from its tenant text (kind in front), without parsing what the
 * printer does not read: its `managedFields` (often half the object) are cut from the text that is
 * parsed for the cells, and the row's object is copied as text.
 */
export function cachedTableRow(printer: Printer, text: string, includeObject: IncludeObject, now: Date): string {
  const scanner = new JsonScanner(text);
  let metadata: [number, number] | undefined;
  let managedFields: [number, number] | undefined;
  scanner.members(0, (key, valueStart) => {
    const end = scanner.skipValue(valueStart);
    if (key === 'metadata' && text.charCodeAt(valueStart) === 123) {
      metadata = [valueStart, end];
      scanner.members(valueStart, (field, fieldStart) => {
        const fieldEnd = scanner.skipValue(fieldStart);
        if (field === 'managedFields') managedFields = [text.lastIndexOf('"managedFields"', fieldStart), fieldEnd];
        return fieldEnd;
      });
    }
    return end;
  });
  const printable = JSON.parse(managedFields ? withoutMember(text, ...managedFields) : text);
  const objectText =
    includeObject === 'Object'
      ? text
      : includeObject === 'None'
        ? 'null'
        : partialObjectMetadataText(metadata ? text.slice(...metadata) : '{}');
  return tableRowText(printer, printable, objectText, now);
}

/** The text with the member from `start` (its key's quote) to `end` (its value's end) removed, and one comma beside it. */
function withoutMember(text: string, start: number, end: number): string {
  let after = end;
  while (isSpace(text.charCodeAt(after))) after++;
  if (text.charCodeAt(after) === 44) return text.slice(0, start) + text.slice(after + 1);
  let before = start - 1;
  while (isSpace(text.charCodeAt(before))) before--;
  return text.charCodeAt(before) === 44
    ? text.slice(0, before) + text.slice(end)
    : text.slice(0, start) + text.slice(end);
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}
