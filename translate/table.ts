import { apiVersionDown, isSharedKind, stripPrefix, type TenantContext } from './context.js';
import { objectDown, textDown } from './objects.js';
import { namespaceConvertor } from './kinds/namespace.js';
import { podMetadataDown } from './kinds/pod-api.js';
import { POD_PATHS } from './kinds/pod-spec.js';
import { nameRuleFor } from './kinds/names.js';
import { TENANT_LABEL } from './kinds/tenant-label.js';

/** Scope of the rows' kind, which the row objects (PartialObjectMetadata) do not carry. */
export interface RowKind {
  group: string;
  kind: string;
  namespaced: boolean;
}

/**
 * A meta.k8s.io Table down: rows of foreign objects are dropped; the rest have their row object
 * translated (PartialObjectMetadata: namespace and, for cluster-scoped kinds, name) and every
 * text cell stripped of the tenant's prefix (names, `ClusterRole/<p>view`, `<p>ns/claim`).
 */
export function tableDown(ctx: TenantContext, table: Record<string, any>, rowKind: RowKind): Record<string, any> {
  const rows = (table.rows ?? []).flatMap((row: Record<string, any>) => {
    const object = rowObjectDown(ctx, row.object, rowKind);
    if (object === undefined) return [];
    const cells = (row.cells ?? []).map((cell: unknown) => (typeof cell === 'string' ? textDown(ctx, cell) : cell));
    return [{ ...row, cells, ...(row.object !== undefined ? { object } : {}) }];
  });
  return { ...table, rows };
}

/** The translated row object; undefined when the row is foreign (or cannot be told to be ours). */
function rowObjectDown(
  ctx: TenantContext,
  object: Record<string, any> | null | undefined,
  rowKind: RowKind,
): Record<string, any> | null | undefined {
  if (!object || typeof object !== 'object') return undefined;
  if (object.kind === 'PartialObjectMetadata') {
    const meta = object.metadata ?? {};
    const out = { ...meta };
    if (rowKind.namespaced) {
      const namespace = typeof meta.namespace === 'string' ? stripPrefix(ctx, meta.namespace) : null;
      if (namespace === null) return undefined;
      out.namespace = namespace;
    } else if (!isSharedKind(rowKind.group, rowKind.kind)) {
      const name = typeof meta.name === 'string' ? nameRuleFor(rowKind.group, rowKind.kind).down(ctx, meta.name) : null;
      if (name === null) return undefined;
      out.name = name;
    }
    if (out.labels) {
      out.labels = { ...out.labels };
      delete out.labels[TENANT_LABEL];
    }
    if (rowKind.group === '' && rowKind.kind === 'Namespace') namespaceConvertor.down(ctx, { metadata: out });
    if (out.ownerReferences) delete out.ownerReferences;
    if (Array.isArray(out.managedFields)) {
      out.managedFields = out.managedFields.flatMap((entry: Record<string, any>) => {
        const apiVersion =
          typeof entry.apiVersion === 'string' ? apiVersionDown(ctx, entry.apiVersion) : entry.apiVersion;
        return apiVersion === null ? [] : [{ ...entry, apiVersion }];
      });
    }
    const podPath = POD_PATHS.get(`${rowKind.group}/${rowKind.kind}`);
    if (podPath) {
      // Rewritten in place: the row's own copies.
      if (out.annotations) out.annotations = { ...out.annotations };
      if (out.managedFields) out.managedFields = structuredClone(out.managedFields);
      podMetadataDown(ctx, out, podPath);
    }
    return { ...object, metadata: out };
  }
  return objectDown(ctx, object) ?? undefined;
}
