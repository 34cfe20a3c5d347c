import type { Readable } from 'node:stream';
import type { TenantContext } from '../translate/context.js';
import type { RowKind } from '../translate/table.js';
import { watchEventDown, type WatchEvent } from '../translate/watch-event.js';

/** Each newline-terminated line of a watch stream as it arrives; never buffers the whole stream. */
export async function* watchLines(body: Readable): AsyncGenerator<string> {
  let buffer = '';
  for await (const chunk of body) {
    buffer += (chunk as Buffer).toString('utf8');
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line) yield line;
    }
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
