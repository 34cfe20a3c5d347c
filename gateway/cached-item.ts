/** One cached object as a tenant's answer carries it: converted down, and what a Table row of it holds. */
import type { IncludeObject } from '../apiserver/table/build-table.js';
import type { CachedObject } from '../cache/cached-object.js';
import type { ClusterResourceStore } from '../cache/cluster-resource-store.js';
import { JsonScanner } from '../translate/json-shadow.js';
import { elementConverter } from '../translate/list-text.js';
import type { TenantRequest } from './tenant-request.js';

/**
 * A cached object's text as the tenant sees it (still without kind and apiVersion), or null
 * when it is not the tenant's: the conversion a forwarded list's items get (translate/list-text.ts).
 */
export function tenantItemConverter(
  r: TenantRequest,
  store: ClusterResourceStore,
): (object: CachedObject) => string | null {
  const head = { kind: `${store.type.kind}List`, apiVersion: store.type.apiVersion };
  const convert = elementConverter(r.ctx, head, 'items', r.rowKind, false)!;
  return (object) => convert(new JsonScanner(object.text), 0).text;
}

/** `?includeObject=` of a Table request: Metadata unless None or Object is asked. */
export function includeObjectOf(r: TenantRequest): IncludeObject {
  const value = r.url.searchParams.get('includeObject');
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}
