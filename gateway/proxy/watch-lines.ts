import type { Readable } from 'node:stream';
import { LineSplitter } from '../../apiserver/client/line-splitter.js';
import type { TenantContext } from '../../translate/context.js';
import type { RowKind } from '../../translate/table.js';
import { watchEventDown, type WatchEvent } from '../../translate/watch-event.js';

/**
 * The newline-terminated lines of a watch stream as they arrive, a batch per chunk read: a busy
 * stream delivers many events per chunk, and answering them with one write instead of one each
 * saves a socket write per event. Never buffers the whole stream.
 */
export async function* watchLineBatches(body: Readable): AsyncGenerator<string[]> {
  const splitter = new LineSplitter();
  for await (const chunk of body) {
    const lines = splitter.push(chunk as Buffer).filter((line) => line !== '');
    if (lines.length) yield lines;
  }
}

/** Lines longer than this are converted every time: a memo of them would hold too much. */
const MAX_MEMO_LINE_CHARS = 64 * 1024;

/**
 * Converted watch lines, shared by the watches of one upstream cluster. N watchers of the same
 * objects (a tenant's replicas of one controller, `kubectl get -w` in many terminals) each hold
 * an upstream watch, so every upstream event arrives N times as the same line; it is converted
 * once and the other N-1 reuse the text. Keyed by tenant and line: a line carries its object's
 * resourceVersion, so it names one state of one object, and the tenant fixes the conversion.
 * Bounded, oldest out first: the copies of a line arrive within moments of each other.
 */
export class WatchLineMemo {
  private readonly lines = new Map<string, string | null>();

  constructor(private readonly capacity = 1024) {}

  /** The converted line (with its newline), or null when the tenant is not to see it. */
  convert(tenantId: string, line: string, convert: (line: string) => string | null): string | null {
    if (line.length > MAX_MEMO_LINE_CHARS) return convert(line);
    const key = `${tenantId}\n${line}`;
    const known = this.lines.get(key);
    if (known !== undefined) return known;
    const converted = convert(line);
    if (this.lines.size >= this.capacity) this.lines.delete(this.lines.keys().next().value!);
    this.lines.set(key, converted);
    return converted;
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

  /**
   * One upstream line as the tenant's line, or null. The memo is for object watches only: a Table
   * watch's first event carries the column definitions this stream was sent.
   */
  downLine(line: string, memo: WatchLineMemo | undefined): string | null {
    if (!memo) return this.convertLine(line);
    return memo.convert(this.ctx.tenantId, line, (l) => this.convertLine(l));
  }

  private convertLine(line: string): string | null {
    const event = WatchEventsDown.parse(line);
    const down = event && this.down(event);
    return down ? `${JSON.stringify(down)}\n` : null;
  }

  /** The tenant's event, or null when it is not the tenant's to see. */
  down(event: WatchEvent): WatchEvent | null {
    if (event.object?.kind === 'Table' && event.object.columnDefinitions)
      this.columns ??= event.object.columnDefinitions;
    const down = watchEventDown(this.ctx, event, this.rowKind);
    if (!down || down.object.kind !== 'Table') return down;
    if (!this.sentColumns) down.object.columnDefinitions ??= this.columns;
    this.sentColumns = true;
    return down;
  }
}
