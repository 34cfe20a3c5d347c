/**
 * Custom resources: NAME, then the CRD version's additionalPrinterColumns, each the first JSONPath
 * match converted to the column's type as apiextensions' tableconvertor does; AGE when none are declared.
 */
import { humanDuration } from '../duration.js';
import { METADATA_DESCRIPTIONS, nameColumn } from './columns.js';
import { goText } from './go-text.js';
import { compileJsonPath } from './json-path.js';
import type { Printer } from './printer.js';

/** apiextensions.k8s.io/v1 CustomResourceColumnDefinition. */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** What kube serves for a CRD version that declares no columns. */
const DEFAULT_COLUMNS: PrinterColumn[] = [
  {
    name: 'Age',
    type: 'date',
    description: METADATA_DESCRIPTIONS.creationTimestamp,
    jsonPath: '.metadata.creationTimestamp',
  },
];

/** Go's time.RFC3339 layout, which also accepts fractional seconds. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A `date` cell: the age of an RFC 3339 timestamp; `""` and `"null"` are Go's zero time. */
function dateCell(value: string, now: Date): string {
  if (value === '' || value === 'null') return '<unknown>';
  const ms = RFC3339.test(value) ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? '<invalid>' : humanDuration(now.getTime() - ms);
}

/** The cell for a column's value; null (shown as `<none>`) when missing or of the wrong JSON type. */
function cell(type: string, value: unknown, now: Date): unknown {
  switch (type) {
    case 'string':
      return goText(value) ?? null;
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? dateCell(value, now) : null;
    default:
      return null;
  }
}

/** The printer for one served version of a CRD, given its `additionalPrinterColumns`. */
export function customResourcePrinter(additionalPrinterColumns: PrinterColumn[] | undefined): Printer {
  const declared = additionalPrinterColumns?.length ? additionalPrinterColumns : DEFAULT_COLUMNS;
  const paths = declared.map((c) => compileJsonPath(c.jsonPath));
  return {
    columns: [
      nameColumn,
      ...declared.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
        priority: c.priority ?? 0,
      })),
    ],
    cells: (object, now) => [
      object.metadata?.name ?? '',
      // Like kube, only the first match counts, even for a path with `[*]`.
      ...declared.map((c, i) => cell(c.type, paths[i]?.(object)[0], now)),
    ],
  };
}
