/**
 * Kinds without a printer of their own (roles, CRDs, ...): kube's default table convertor
 * (rest.NewDefaultTableConvertor), NAME and CREATED AT as an RFC 3339 timestamp.
 */
import { METADATA_DESCRIPTIONS, nameColumn } from './columns.js';
import type { Printer } from './printer.js';
import { parseTimestamp } from './timestamps.js';

/** What Go prints for a missing creationTimestamp: the zero time. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

/** Go's time.RFC3339 in UTC: whole seconds, `Z`. */
function rfc3339(timestamp: unknown): string {
  const ms = parseTimestamp(timestamp);
  return ms === undefined ? ZERO_TIME : new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export const genericPrinter: Printer = {
  columns: [
    nameColumn,
    { name: 'Created At', type: 'date', format: '', description: METADATA_DESCRIPTIONS.creationTimestamp, priority: 0 },
  ],
  cells: (object) => [object.metadata?.name ?? '', rfc3339(object.metadata?.creationTimestamp)],
};
