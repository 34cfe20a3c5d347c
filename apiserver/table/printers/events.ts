/**
 * Events, core/v1 and events.k8s.io/v1: LAST SEEN TYPE REASON OBJECT MESSAGE, wide SUBOBJECT SOURCE
 * FIRST SEEN COUNT NAME. kube prints both versions from one internal type, so the events.k8s.io
 * field names are read as their core/v1 equivalents.
 */
import { column, METADATA_DESCRIPTIONS, wideColumn } from './columns.js';
import type { Printer } from './printer.js';
import { parseTimestamp, since } from './timestamps.js';

/** The core/v1 fields of an event of either API version. */
function coreFields(event: any) {
  return {
    involvedObject: event.involvedObject ?? event.regarding ?? {},
    message: event.message ?? event.note ?? '',
    source: event.source ?? event.deprecatedSource ?? {},
    firstTimestamp: event.firstTimestamp ?? event.deprecatedFirstTimestamp,
    lastTimestamp: event.lastTimestamp ?? event.deprecatedLastTimestamp,
    count: event.count ?? event.deprecatedCount ?? 0,
  };
}

/** Component and host, falling back to the reporting controller and instance of newer clients. */
function source(event: any, fields: ReturnType<typeof coreFields>): string {
  const component = fields.source.component || event.reportingController || '';
  const instance = fields.source.host || event.reportingInstance || '';
  return instance ? `${component}, ${instance}` : component;
}

export const eventPrinter: Printer = {
  columns: [
    column('Last Seen', 'string'),
    column('Type', 'string'),
    column('Reason', 'string'),
    column('Object', 'string'),
    wideColumn('Subobject', 'string'),
    wideColumn('Source', 'string'),
    column('Message', 'string'),
    wideColumn('First Seen', 'string'),
    wideColumn('Count', 'string'),
    { name: 'Name', type: 'string', format: 'name', description: METADATA_DESCRIPTIONS.name, priority: 1 },
  ],
  cells(event, now) {
    const fields = coreFields(event);
    const firstSeen =
      parseTimestamp(fields.firstTimestamp) === undefined
        ? since(event.eventTime, now)
        : since(fields.firstTimestamp, now);
    let lastSeen = parseTimestamp(fields.lastTimestamp) === undefined ? firstSeen : since(fields.lastTimestamp, now);
    let count: number = fields.count;
    if (event.series) {
      lastSeen = since(event.series.lastObservedTime, now);
      count = event.series.count ?? 0;
    } else if (count === 0) {
      // Singleton events of the events.k8s.io API carry no count.
      count = 1;
    }
    const { kind = '', name = '', fieldPath = '' } = fields.involvedObject;
    return [
      lastSeen,
      event.type ?? '',
      event.reason ?? '',
      name ? `${kind.toLowerCase()}/${name}` : kind.toLowerCase(),
      fieldPath,
      source(event, fields),
      fields.message.trim(),
      firstSeen,
      count,
      event.metadata?.name ?? '',
    ];
  },
};
