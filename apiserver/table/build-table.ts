/** Assembles a meta.k8s.io/v1 Table, as kube-apiserver answers `Accept: application/json;as=Table;...`. */
import type { Printer } from './printers/printer.js';

/** `?includeObject=`: what each row carries besides its cells. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** The list metadata a Table keeps; empty values are left out, as Go's omitempty does. */
function tableMetadata(listMeta: Record<string, unknown>): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  for (const key of ['resourceVersion', 'continue', 'remainingItemCount']) {
    const value = listMeta[key];
    if (value !== undefined && value !== null && value !== '') metadata[key] = value;
  }
  return metadata;
}

function rowObject(object: any, includeObject: IncludeObject): unknown {
  switch (includeObject) {
    case 'Object':
      return object;
    case 'Metadata':
      return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata ?? {} };
    case 'None':
      // kube leaves the row's RawExtension empty, which serializes as null.
      return null;
  }
}

/**
 * A meta.k8s.io/v1 Table for `objects` (already-decoded API objects). Rows carry `object`:
 * PartialObjectMetadata {kind:'PartialObjectMetadata', apiVersion:'meta.k8s.io/v1', metadata} for
 * Metadata (the default), the full object for Object, null for None. `listMeta` is the list's
 * metadata (resourceVersion, continue, remainingItemCount); for a single object, pass its
 * resourceVersion. `omitHeaders` (used for watch events after the first) sends
 * `columnDefinitions: null`, as kube does for `TableOptions.noHeaders`.
 */
export function buildTable(
  printer: Printer,
  objects: any[],
  options: { includeObject: IncludeObject; listMeta: Record<string, unknown>; now: Date; omitHeaders?: boolean },
): object {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: tableMetadata(options.listMeta),
    columnDefinitions: options.omitHeaders ? null : printer.columns,
    rows: objects.map((object) => {
      const conditions = printer.conditions?.(object);
      return {
        cells: printer.cells(object, options.now),
        ...(conditions ? { conditions } : {}),
        object: rowObject(object, options.includeObject),
      };
    }),
  };
}

/**
 * The same Table as JSON text, from rows already written (`tableRowText`): a list answered from
 * text (the gateway's cache) need not parse and serialize each row's object again.
 */
export function tableText(
  printer: Printer,
  rowTexts: readonly string[],
  options: { listMeta: Record<string, unknown>; omitHeaders?: boolean },
): string {
  const head = {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: tableMetadata(options.listMeta),
    columnDefinitions: options.omitHeaders ? null : printer.columns,
  };
  return `${JSON.stringify(head).slice(0, -1)},"rows":[${rowTexts.join(',')}]}`;
}

/**
 * One row of `buildTable` as text: the cells and conditions from `printable` (the object, parsed),
 * the row's object given as text (`objectText`: the object's, its metadata's inside
 * PartialObjectMetadata, or `null`, as `includeObject` asks).
 */
export function tableRowText(printer: Printer, printable: any, objectText: string, now: Date): string {
  const conditions = printer.conditions?.(printable);
  const cells = JSON.stringify(printer.cells(printable, now));
  return `{"cells":${cells}${conditions ? `,"conditions":${JSON.stringify(conditions)}` : ''},"object":${objectText}}`;
}

/** The row object of `includeObject=Metadata`, from the object's metadata as text. */
export function partialObjectMetadataText(metadataText: string): string {
  return `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":${metadataText}}`;
}
