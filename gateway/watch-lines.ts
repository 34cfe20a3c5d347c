import type { Readable } from 'node:stream';
import type { TenantContext } from '../translate/context.js';
import type { RowKind } from '../translate/table.js';
import { watchEventDown, type WatchEvent } from '../translate/watch-event.js';

/**
 * The newline-terminated lines of a watch stream as they arrive, a batch per chunk read: a busy
 * stream delivers many events per chunk, and answering them with one write instead of one each
 * saves a socket write per event. Never buffers the whole stream.
 */
export async function* watchLineBatches(body: Readable): AsyncGenerator<string[]> {
  let buffer = '';
  for await (const chunk of body) {
    buffer += (chunk as Buffer).toString('utf8');
    const end = buffer.lastIndexOf('\n');
    if (end < 0) continue;
    const lines = buffer.slice(0, end).split('\n').filter((line) => line !== '');
    buffer = buffer.slice(end + 1);
    if (lines.length) yield lines;
  }
}

/**
 * Upstream watch events into the tenant's, for one tenant stream (fed by one upstream watch or
 * several): foreign events dropped; a Table watch's column definitions, which come with the
 * first upstream event (maybe another tenant's), carried to the first event the tenant sees.
 */
export class WatchEventsDown {
  private columns: unknown;
  private sentColumns = false;

  constructor(
    private readonly ctx: TenantContext,
    private readonly rowKind: RowKind,
  ) {}

  /** The parsed upstream event, or undefined when the line is not JSON. */
  static parse(line: string): WatchEvent | undefined {
    try {
      const event = JSON.parse(line);
      return event && typeof event === 'object' && typeof event.type === 'string' ? event : undefined;
    } catch {
      return undefined;
    }
  }

  /** The tenant's event, or null when it is not the tenant's to see. */
  down(event: WatchEvent): WatchEvent | null {
    if (event.object?.kind === 'Table' && event.object.columnDefinitions) this.columns ??= event.object.columnDefinitions;
    const down = watchEventDown(this.ctx, event, this.rowKind);
    if (!down || down.object.kind !== 'Table') return down;
    if (!this.sentColumns) down.object.columnDefinitions ??= this.columns;
    this.sentColumns = true;
    return down;
  }
}
