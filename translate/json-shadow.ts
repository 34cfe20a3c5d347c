/**
 * Rewrites a JSON document without parsing all of it: only the members a shape names are parsed
 * into a sparse "shadow" of the document; a conversion runs on the shadow; the members whose
 * values it changed (or removed) are spliced into the original text, and every other byte is
 * kept as it came. This is how the gateway converts large lists (docs/translate.md, "Lists from their text"): a
 * Pod's conversion looks at a dozen short strings of its 3 KB, so parsing and serialising the
 * rest is waste. Pure; the input is assumed to be valid JSON (an upstream answer) and anything
 * unexpected throws, so the caller can fall back to a full parse.
 */

/**
 * Which members to read: a leaf takes the whole value; an object shape descends into the members
 * it names (`names[k]`'s shape is `children[k]`); an array shape descends into each element.
 */
export type ShapeNode =
  | { kind: 'leaf' }
  | { kind: 'object'; names: readonly string[]; children: readonly ShapeNode[] }
  | { kind: 'array'; each: ShapeNode };

export const LEAF: ShapeNode = { kind: 'leaf' };

/** The shape of an object that reads these members. */
export function objectShape(members: readonly (readonly [string, ShapeNode])[]): ShapeNode & { kind: 'object' } {
  return { kind: 'object', names: members.map(([name]) => name), children: members.map(([, child]) => child) };
}

/** Each member of an object shape, as objectShape took them. */
export function membersOf(shape: ShapeNode & { kind: 'object' }): [string, ShapeNode][] {
  return shape.names.map((name, k) => [name, shape.children[k]]);
}

/**
 * Text the scanner did not expect. Thrown as control flow — the caller falls back to a full
 * parse, and a streamed list whose last item is cut by the end of a chunk waits for the next —
 * so it carries no stack: capturing one cost a fifth of converting a list that arrives in 10 KB
 * chunks.
 */
export class ShadowError extends Error {
  override name = 'ShadowError';

  constructor(message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

interface Leaf {
  kind: 'leaf';
  /** Where the member starts (its key's quote); -1 for an array element. */
  memberStart: number;
  valueStart: number;
  valueEnd: number;
  /** The comma before the member, or -1 when it is the first. */
  commaBefore: number;
  /** The comma after the member, or -1 when it is the last. */
  commaAfter: number;
  /** A string, number, boolean or null as read; undefined for an object or array (compared by its text). */
  primitive: unknown;
}

/**
 * What was read of one object or array: its members (or elements) that are leaves or containers
 * read further. An object's members are by their index in its shape (`members[k]` is what was read
 * of `shape.names[k]`), in an array of exactly the shape's length: a Map each weighed 160 bytes,
 * and a forwarded GET's conversion of a pod allocated 9.9 KB (5.2 now: BENCHMARKS.md, "A tenant's
 * memory by the arrays it holds, and translating a forwarded GET").
 */
type Skeleton =
  | { kind: 'object'; shape: ShapeNode & { kind: 'object' }; members: (Skeleton | Leaf | undefined)[] }
  | { kind: 'array'; elements: (Skeleton | Leaf)[] };

/** The shadow of one JSON object and what is needed to write its changes back. */
export interface Shadow {
  object: Record<string, any>;
  skeleton: Skeleton & { kind: 'object' };
  start: number;
  end: number;
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COMMA = 44;
const COLON = 58;

/** A cursor over JSON text that can skip whole values cheaply (strings by indexOf). */
export class JsonScanner {
  constructor(readonly text: string) {}

  ws(i: number): number {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else return i;
    }
  }

  /** i at the opening quote; returns the index after the closing quote. */
  skipString(i: number): number {
    const t = this.text;
    let j = i + 1;
    for (;;) {
      const q = t.indexOf('"', j);
      if (q < 0) throw new ShadowError('unterminated string');
      let backslashes = 0;
      for (let k = q - 1; t.charCodeAt(k) === BACKSLASH; k--) backslashes++;
      if (backslashes % 2 === 0) return q + 1;
      j = q + 1;
    }
  }

  /** The end of the value starting at i. */
  skipValue(i: number): number {
    const t = this.text;
    const c = t.charCodeAt(i);
    if (c === QUOTE) return this.skipString(i);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      let depth = 0;
      for (let j = i; j < t.length;) {
        const d = t.charCodeAt(j);
        if (d === QUOTE) {
          j = this.skipString(j);
          continue;
        }
        if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
        else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
          depth--;
          if (depth === 0) return j + 1;
        }
        j++;
      }
      throw new ShadowError('unterminated container');
    }
    let j = i;
    for (; j < t.length; j++) {
      const d = t.charCodeAt(j);
      if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || d === 32 || d === 10 || d === 13 || d === 9) break;
    }
    if (j === i) throw new ShadowError(`unexpected character at ${i}`);
    return j;
  }

  /** A string value's content (parsed only when it has escapes). */
  stringAt(start: number, end: number): string {
    const raw = this.text.slice(start + 1, end - 1);
    return raw.includes('\\') ? JSON.parse(this.text.slice(start, end)) : raw;
  }

  valueAt(start: number, end: number): unknown {
    return this.text.charCodeAt(start) === QUOTE ? this.stringAt(start, end) : JSON.parse(this.text.slice(start, end));
  }

  expect(i: number, code: number): void {
    if (this.text.charCodeAt(i) !== code) throw new ShadowError(`expected ${String.fromCharCode(code)} at ${i}`);
  }

  /**
   * Each member of the object at i: `visit(key, valueStart)` returns the value's end. Returns the
   * object's end. (readShadow has a loop of its own, which also tracks the commas.)
   */
  members(i: number, visit: (key: string, valueStart: number) => number): number {
    this.expect(i, OPEN_BRACE);
    i = this.ws(i + 1);
    if (this.text.charCodeAt(i) === CLOSE_BRACE) return i + 1;
    for (;;) {
      this.expect(i, QUOTE);
      const keyEnd = this.skipString(i);
      const key = this.stringAt(i, keyEnd);
      let j = this.ws(keyEnd);
      this.expect(j, COLON);
      j = this.ws(visit(key, this.ws(j + 1)));
      const c = this.text.charCodeAt(j);
      if (c === CLOSE_BRACE) return j + 1;
      if (c !== COMMA) throw new ShadowError(`expected , or } at ${j}`);
      i = this.ws(j + 1);
    }
  }

  /** Each element of the array at i: `visit(index, valueStart)` returns the element's end. */
  elements(i: number, visit: (index: number, valueStart: number) => number): number {
    this.expect(i, OPEN_BRACKET);
    i = this.ws(i + 1);
    if (this.text.charCodeAt(i) === CLOSE_BRACKET) return i + 1;
    for (let index = 0; ; index++) {
      const end = visit(index, i);
      const j = this.ws(end);
      const c = this.text.charCodeAt(j);
      if (c === CLOSE_BRACKET) return j + 1;
      if (c !== COMMA) throw new ShadowError(`expected , or ] at ${j}`);
      i = this.ws(j + 1);
    }
  }
}

/** The shadow of the object at `start`, reading only what `shape` names. */
export function readShadow(
  scanner: JsonScanner,
  start: number,
  shape: ShapeNode & { kind: 'object' },
  /**
   * The object's end, when the text is this one object: its reading stops once it has read every
   * member the shape names, and the rest is kept as it came (a pod's status, a quarter of it).
   */
  knownEnd = -1,
): Shadow {
  const text = scanner.text;
  /** The leaf at valueStart, its value stored at into[key]. */
  const leafAt = (
    valueStart: number,
    memberStart: number,
    commaBefore: number,
    into: Record<string, any>,
    key: string | number,
  ): Leaf => {
    const valueEnd = scanner.skipValue(valueStart);
    const value = scanner.valueAt(valueStart, valueEnd);
    into[key] = value;
    const primitive = value !== null && typeof value === 'object' ? undefined : value;
    return { kind: 'leaf', memberStart, valueStart, valueEnd, commaBefore, commaAfter: -1, primitive };
  };
  // A loop of its own rather than scanner.members: this runs for every object of every item of
  // a list, and two callbacks per object were a fifth of the conversion's time.
  const readObject = (
    at: number,
    node: ShapeNode & { kind: 'object' },
    into: Record<string, any>,
    skeleton: Skeleton & { kind: 'object' },
    /** The object's end, when known: no member after the shape's last need be read. */
    objectEnd = -1,
  ): number => {
    scanner.expect(at, OPEN_BRACE);
    let i = scanner.ws(at + 1);
    if (text.charCodeAt(i) === CLOSE_BRACE) return i + 1;
    let commaBefore = -1;
    let unread = node.names.length;
    for (;;) {
      scanner.expect(i, QUOTE);
      const keyEnd = scanner.skipString(i);
      const field = fieldOf(text, node, i, keyEnd);
      let j = scanner.ws(keyEnd);
      scanner.expect(j, COLON);
      const valueStart = scanner.ws(j + 1);
      let end: number;
      let leaf: Leaf | undefined;
      // A key written twice counts once: reading stops only once every member has been read.
      const first = field >= 0 && skeleton.members[field] === undefined;
      const c = text.charCodeAt(valueStart);
      if (field < 0) end = scanner.skipValue(valueStart);
      else {
        const key = node.names[field];
        const child = node.children[field];
        if (child.kind === 'object' && c === OPEN_BRACE) {
          const inner = objectSkeleton(child);
          skeleton.members[field] = inner;
          end = readObject(valueStart, child, (into[key] = {}), inner);
        } else if (child.kind === 'array' && c === OPEN_BRACKET) {
          const inner: Skeleton & { kind: 'array' } = { kind: 'array', elements: [] };
          skeleton.members[field] = inner;
          end = readArray(valueStart, child, (into[key] = []), inner);
        } else {
          leaf = leafAt(valueStart, i, commaBefore, into, key);
          skeleton.members[field] = leaf;
          end = leaf.valueEnd;
        }
      }
      j = scanner.ws(end);
      const after = text.charCodeAt(j);
      if (after === CLOSE_BRACE) return j + 1;
      if (after !== COMMA) throw new ShadowError(`expected , or } at ${j}`);
      if (leaf) leaf.commaAfter = j;
      if (first && --unread === 0 && objectEnd >= 0) return objectEnd;
      commaBefore = j;
      i = scanner.ws(j + 1);
    }
  };
  const readArray = (
    at: number,
    node: ShapeNode & { kind: 'array' },
    into: unknown[],
    skeleton: Skeleton & { kind: 'array' },
  ): number =>
    scanner.elements(at, (index, valueStart) => {
      const child = node.each;
      if (child.kind === 'object' && text.charCodeAt(valueStart) === OPEN_BRACE) {
        const inner = objectSkeleton(child);
        skeleton.elements.push(inner);
        return readObject(valueStart, child, (into[index] = {}) as Record<string, any>, inner);
      }
      const leaf = leafAt(valueStart, -1, -1, into, index);
      skeleton.elements.push(leaf);
      return leaf.valueEnd;
    });
  const skeleton = objectSkeleton(shape);
  const object: Record<string, any> = {};
  const end = readObject(start, shape, object, skeleton, knownEnd);
  return { object, skeleton, start, end };
}

function objectSkeleton(shape: ShapeNode & { kind: 'object' }): Skeleton & { kind: 'object' } {
  return { kind: 'object', shape, members: new Array<Skeleton | Leaf | undefined>(shape.names.length) };
}

/**
 * Which of the shape's members the key between the quotes at `start` and `end - 1` names, or -1:
 * compared in place, as most keys name none and slicing each cost more than reading the rest.
 */
function fieldOf(text: string, node: ShapeNode & { kind: 'object' }, start: number, end: number): number {
  const { names } = node;
  const length = end - start - 2;
  for (let k = 0; k < names.length; k++)
    if (names[k].length === length && text.startsWith(names[k], start + 1)) return k;
  // A key written with escapes is longer than what it says (kube writes none in a name a shape reads).
  for (let c = start + 1; c < end - 1; c++)
    if (text.charCodeAt(c) === BACKSLASH) return names.indexOf(JSON.parse(text.slice(start, end)) as string);
  return -1;
}

/**
 * The object's text with the conversion's changes written in (`converted` is the shadow after the
 * conversion, the same object or a new one). Null when the conversion changed the shape — added a
 * member, removed an array element — which a splice cannot express: the caller parses in full.
 */
export function writeShadow(text: string, shadow: Shadow, converted: Record<string, any>): string | null {
  const splices: [number, number, string][] = [];
  if (!collectSplices(text, shadow.skeleton, converted, splices)) return null;
  if (splices.length === 0) return text.slice(shadow.start, shadow.end);
  splices.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = shadow.start;
  for (const [start, end, replacement] of splices) {
    if (start < at) return null;
    out += text.slice(at, start) + replacement;
    at = end;
  }
  return out + text.slice(at, shadow.end);
}

/** Walks the converted value along what was read; false when its shape is not the one read. */
function collectSplices(
  text: string,
  skeleton: Skeleton,
  converted: unknown,
  splices: [number, number, string][],
): boolean {
  if (converted === null || typeof converted !== 'object' || Array.isArray(converted) !== (skeleton.kind === 'array'))
    return false;
  if (skeleton.kind === 'array') {
    const elements = converted as unknown[];
    if (elements.length !== skeleton.elements.length) return false;
    for (let i = 0; i < elements.length; i++)
      if (!visit(text, skeleton.elements[i], elements[i], splices)) return false;
    return true;
  }
  const object = converted as Record<string, unknown>;
  const { names } = skeleton.shape;
  const { members } = skeleton;
  for (const key in object) {
    const field = names.indexOf(key);
    if (field < 0 || members[field] === undefined) return false;
  }
  for (let field = 0; field < names.length; field++) {
    const child = members[field];
    if (child !== undefined && !visit(text, child, object[names[field]], splices)) return false;
  }
  return true;
}

function visit(text: string, node: Skeleton | Leaf, now: unknown, splices: [number, number, string][]): boolean {
  if (node.kind !== 'leaf') return now !== undefined && collectSplices(text, node, now, splices);
  if (now === undefined) {
    if (node.memberStart < 0) return false;
    if (node.commaBefore >= 0) splices.push([node.commaBefore, node.valueEnd, '']);
    else if (node.commaAfter >= 0) splices.push([node.memberStart, node.commaAfter + 1, '']);
    else splices.push([node.memberStart, node.valueEnd, '']);
    return true;
  }
  if (node.primitive !== undefined && now === node.primitive) return true;
  const json = JSON.stringify(now);
  if (json !== text.slice(node.valueStart, node.valueEnd)) splices.push([node.valueStart, node.valueEnd, json]);
  return true;
}
