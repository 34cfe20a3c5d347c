/**
 * A list or Table converted down while it arrives: the head as soon as its members before the
 * items are in, then each item (or row) as soon as its closing brace is, each through the same
 * shadow conversion as list-text.ts. The gateway so writes the first items to the tenant while
 * the upstream still sends the last ones, instead of holding a 40 MB answer to convert it whole.
 * Pure: text in, text out.
 *
 * It streams when the head's `kind` (and a list's `apiVersion`) come before the items, as kube
 * writes them. Otherwise, or when the text is not a list or a Table at all (a Status, an object),
 * it gives nothing and keeps the whole text for the caller to convert at once.
 */
import { JsonScanner } from './json-shadow.js';
import { elementConverter, type ElementConverter } from './list-text.js';
import { apiVersionDown, type TenantContext } from './context.js';
import type { RowKind } from './table.js';

type State =
  'open' | 'member' | 'afterMember' | 'element' | 'afterElement' | 'tailMember' | 'afterTail' | 'done' | 'whole';

export class CollectionStreamError extends Error {
  override name = 'CollectionStreamError';
}

export class CollectionStreamDown {
  /** Text not yet consumed; until the stream commits (reaches the items), all of it from the start. */
  private text = '';
  private pos = 0;
  private state: State = 'open';
  private readonly head: Record<string, any> = {};
  private readonly tail: Record<string, any> = {};
  private convert?: ElementConverter;
  private kept = 0;
  /** Items or rows read upstream, foreign ones included. */
  read = 0;

  /**
   * `headDown` converts the head's members (all of them but the items, each member once: those
   * that follow the items are passed to it on their own).
   */
  constructor(
    private readonly ctx: TenantContext,
    private readonly rowKind: RowKind,
    private readonly wantsNoObject: boolean,
    private readonly headDown: (head: Record<string, any>) => Record<string, any>,
  ) {}

  /** Whether the head has gone out: from then on the text is converted as it comes, and never held whole. */
  get streaming(): boolean {
    return this.convert !== undefined;
  }

  /** The text not yet converted when the stream did not commit: all of it. */
  get wholeText(): string {
    return this.text;
  }

  /** The converted text that is ready ('' when none is yet). */
  push(chunk: string): string {
    if (this.state === 'whole') {
      this.text += chunk;
      return '';
    }
    this.text = this.streaming ? this.text.slice(this.pos) + chunk : this.text + chunk;
    if (this.streaming) this.pos = 0;
    return this.advance();
  }

  /** At the end of the text: whether the text streamed (else see wholeText). Throws when a streamed list ended early. */
  end(): boolean {
    if (!this.streaming) return false;
    if (this.state !== 'done') throw new CollectionStreamError('the upstream list ended before it was complete');
    if (this.text.slice(this.pos).trim()) throw new CollectionStreamError('the upstream list has text after its end');
    return true;
  }

  private advance(): string {
    const text = this.text;
    const scanner = new JsonScanner(text);
    let out = '';
    for (;;) {
      const i = scanner.ws(this.pos);
      if (i >= text.length) return out;
      const c = text.charCodeAt(i);
      switch (this.state) {
        case 'open':
          if (c !== 123) return this.giveUp();
          this.pos = i + 1;
          this.state = 'member';
          break;
        case 'member':
        case 'tailMember': {
          const member = this.readMember(scanner, i);
          if (member === undefined) return out;
          if (member === null) return this.giveUp();
          const { key, valueStart } = member;
          if (this.state === 'member' && (key === 'items' || key === 'rows') && text.charCodeAt(valueStart) === 91) {
            const commit = this.commit(key);
            if (commit === null) return this.giveUp();
            out += commit;
            this.pos = valueStart + 1;
            this.state = 'element';
            break;
          }
          const end = valueEnd(scanner, valueStart);
          if (end < 0) return out;
          (this.state === 'member' ? this.head : this.tail)[key] = JSON.parse(text.slice(valueStart, end));
          this.pos = end;
          this.state = this.state === 'member' ? 'afterMember' : 'afterTail';
          break;
        }
        case 'afterMember':
          if (c !== 44) return this.giveUp();
          this.pos = i + 1;
          this.state = 'member';
          break;
        case 'element': {
          if (c === 93 && this.read === 0) {
            this.pos = i + 1;
            this.state = 'afterTail';
            break;
          }
          let converted: { end: number; text: string | null };
          try {
            converted = this.convert!(scanner, i);
          } catch {
            // Most likely the item is not all in yet; if it never is, end() says so.
            return out;
          }
          // Not known to be whole until something follows it.
          if (scanner.ws(converted.end) >= text.length) return out;
          this.read++;
          if (converted.text !== null) out += `${this.kept++ ? ',' : ''}${converted.text}`;
          this.pos = converted.end;
          this.state = 'afterElement';
          break;
        }
        case 'afterElement':
          if (c === 44) this.state = 'element';
          else if (c === 93) this.state = 'afterTail';
          else throw new CollectionStreamError(`the upstream list has ${JSON.stringify(text[i])} where , or ] belongs`);
          this.pos = i + 1;
          break;
        case 'afterTail':
          if (c === 44) this.state = 'tailMember';
          else if (c === 125) {
            out += this.closing();
            this.state = 'done';
          } else
            throw new CollectionStreamError(`the upstream list has ${JSON.stringify(text[i])} where , or } belongs`);
          this.pos = i + 1;
          break;
        case 'done':
        case 'whole':
          return out;
      }
    }
  }

  /** The member whose key starts at i: undefined when not all in yet, null when i is no key. */
  private readMember(scanner: JsonScanner, i: number): { key: string; valueStart: number } | null | undefined {
    const text = this.text;
    if (text.charCodeAt(i) !== 34) return null;
    let keyEnd: number;
    try {
      keyEnd = scanner.skipString(i);
    } catch {
      return undefined;
    }
    const colon = scanner.ws(keyEnd);
    if (colon >= text.length) return undefined;
    if (text.charCodeAt(colon) !== 58) return null;
    const valueStart = scanner.ws(colon + 1);
    if (valueStart >= text.length) return undefined;
    return { key: scanner.stringAt(i, keyEnd), valueStart };
  }

  /** The head as the tenant's, up to the opening of its items; null when it cannot stream. */
  private commit(key: 'items' | 'rows'): string | null {
    if (key === 'items' && this.head.apiVersion === undefined) return null;
    const convert = elementConverter(this.ctx, this.head, key, this.rowKind, this.wantsNoObject);
    if (!convert) return null;
    this.convert = convert;
    const converted = { ...this.head };
    if (key === 'items' && typeof converted.apiVersion === 'string')
      converted.apiVersion = apiVersionDown(this.ctx, converted.apiVersion) ?? converted.apiVersion;
    const head = JSON.stringify(this.headDown(converted));
    return `${head.length > 2 ? `${head.slice(0, -1)},` : '{'}${JSON.stringify(key)}:[`;
  }

  private closing(): string {
    const tail = Object.keys(this.tail).length ? JSON.stringify(this.headDown(this.tail)) : '{}';
    return tail.length > 2 ? `],${tail.slice(1)}` : ']}';
  }

  private giveUp(): string {
    if (this.streaming) throw new CollectionStreamError('the upstream list has an unexpected member after its items');
    this.state = 'whole';
    return '';
  }
}

/** The end of the value at start when it is all in (something follows it), else -1. */
function valueEnd(scanner: JsonScanner, start: number): number {
  let end: number;
  try {
    end = scanner.skipValue(start);
  } catch {
    return -1;
  }
  return scanner.ws(end) < scanner.text.length ? end : -1;
}
