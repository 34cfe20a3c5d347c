/**
 * Lists and Tables down, from their JSON text: each item (or row) is converted through a shadow of
 * the few members the rules read (json-shadow.ts) and its text kept apart from those, so a
 * 10k-Pod list costs a scan and a few small parses rather than a full parse and serialisation.
 * The members come from the same field table the protobuf rewrite uses (protobuf-fields.ts), so
 * the conversion is objects.ts's own, run on a sparse object. An item the shadow cannot express
 * (its conversion changed its shape) is parsed in full.
 */
import { apiVersionDown, groupOfApiVersion, type TenantContext } from './context.js';
import { JsonScanner, LEAF, membersOf, objectShape, readShadow, writeShadow, type ShapeNode } from './json-shadow.js';
import { objectDownInPlace, type TypeMeta } from './objects.js';
import { protobufFieldsOf } from './kinds/kind-records.js';
import { POD_KINDS } from './kinds/pod-spec.js';
import { METADATA, type FieldRule, type MessageFields } from './protobuf-fields.js';
import { tableDown, type RowKind } from './table.js';

type ObjectShape = ShapeNode & { kind: 'object' };

/** One page of a list or Table, converted: everything but its items, and each kept item's text. */
export interface CollectionPage {
  head: Record<string, any>;
  key: 'items' | 'rows';
  elements: string[];
  /** Items or rows read upstream, foreign ones included. */
  read: number;
}

/**
 * The page, or null when the text is not a list or a Table (a Status, a single object). The
 * items are converted as the scan meets them when the head's kind and apiVersion came first (as
 * kube writes them), so a 40 MB list is scanned once; otherwise they are skipped and converted
 * after the head.
 */
export function collectionDown(
  ctx: TenantContext,
  text: string,
  rowKind: RowKind,
  wantsNoObject: boolean,
): CollectionPage | null {
  const scanner = new JsonScanner(text);
  const head: Record<string, any> = {};
  let range: { key: 'items' | 'rows'; start: number } | undefined;
  let converted: ReturnType<typeof elementsDown> | undefined;
  scanner.members(scanner.ws(0), (key, valueStart) => {
    if ((key === 'items' || key === 'rows') && text.charCodeAt(valueStart) === 91) {
      range = { key, start: valueStart };
      if (typeof head.kind !== 'string' || (key === 'items' && head.apiVersion === undefined))
        return scanner.skipValue(valueStart);
      converted = elementsDown(ctx, scanner, head, range, rowKind, wantsNoObject);
      return converted ? converted.end : scanner.skipValue(valueStart);
    }
    const end = scanner.skipValue(valueStart);
    head[key] = JSON.parse(text.slice(valueStart, end));
    return end;
  });
  if (!range || typeof head.kind !== 'string') return null;
  converted ??= elementsDown(ctx, scanner, head, range, rowKind, wantsNoObject);
  if (!converted) return null;
  if (range.key === 'items' && typeof head.apiVersion === 'string')
    head.apiVersion = apiVersionDown(ctx, head.apiVersion) ?? head.apiVersion;
  return { head, key: range.key, elements: converted.elements, read: converted.read };
}

/** The kept items or rows of the array at range.start, converted, and the array's end; null when the head is not a list or a Table. */
function elementsDown(
  ctx: TenantContext,
  scanner: JsonScanner,
  head: Record<string, any>,
  range: { key: 'items' | 'rows'; start: number },
  rowKind: RowKind,
  wantsNoObject: boolean,
): { elements: string[]; read: number; end: number } | null {
  const convert = elementConverter(ctx, head, range.key, rowKind, wantsNoObject);
  if (!convert) return null;
  const elements: string[] = [];
  let read = 0;
  const end = scanner.elements(range.start, (_, start) => {
    read++;
    const { end: itemEnd, text: element } = convert(scanner, start);
    if (element !== null) elements.push(element);
    return itemEnd;
  });
  return { elements, read, end };
}

/** Converts the item or row at `start`: its end, and its text for the tenant or null when it is not the tenant's. */
export type ElementConverter = (scanner: JsonScanner, start: number) => { end: number; text: string | null };

/** How the elements under `key` of a collection with this head are converted; null when the head is not a list or a Table. */
export function elementConverter(
  ctx: TenantContext,
  head: Record<string, any>,
  key: string,
  rowKind: RowKind,
  wantsNoObject: boolean,
): ElementConverter | null {
  if (typeof head.kind !== 'string') return null;
  if (key === 'rows' && head.kind === 'Table')
    return (scanner, start) => rowDown(ctx, scanner, start, rowKind, wantsNoObject);
  if (key !== 'items' || !head.kind.endsWith('List')) return null;
  const itemType: TypeMeta = { apiVersion: String(head.apiVersion ?? ''), kind: head.kind.slice(0, -'List'.length) };
  const shape = shapeOfKind(itemType.apiVersion, itemType.kind);
  return (scanner, start) => itemDown(ctx, scanner, start, itemType, shape);
}

/** Items or rows go out in pieces of about this many characters (render below). */
const PIECE_CHARS = 1 << 20;

/**
 * The page's JSON text in pieces of about a MiB, written one after another: the head's members,
 * then the items. A 40 MB list never becomes one string, which would cost two more copies of it
 * (the join, and flattening it before encoding).
 */
export function renderCollection(page: Pick<CollectionPage, 'head' | 'key' | 'elements'>): string[] {
  const head = JSON.stringify(page.head);
  const pieces = [`${head.length > 2 ? `${head.slice(0, -1)},` : '{'}${JSON.stringify(page.key)}:[`];
  let group: string[] = [];
  let chars = 0;
  const flush = () => {
    pieces.push(`${pieces.length > 1 ? ',' : ''}${group.join(',')}`);
    group = [];
    chars = 0;
  };
  for (const element of page.elements) {
    group.push(element);
    chars += element.length;
    if (chars >= PIECE_CHARS) flush();
  }
  if (group.length) flush();
  pieces.push(']}');
  return pieces;
}

/**
 * A single object (a GET's, a create's answer) down from its text, as a list's item is: its text
 * for the tenant, or null when it is foreign. Undefined when the text is not a plain object whose
 * `kind` and `apiVersion` come first (as kube writes them) of a kind with a shape: a Status, a
 * Table, a list, a kind parsed in full, or text the scanner does not expect. The caller then
 * parses it.
 */
export function objectTextDown(ctx: TenantContext, text: string): string | null | undefined {
  try {
    const scanner = new JsonScanner(text);
    const start = scanner.ws(0);
    const type = leadingType(scanner, start);
    if (!type || type.kind === 'Status' || type.kind === 'Table' || type.kind.endsWith('List')) return undefined;
    const shape = shapeOfKind(type.apiVersion, type.kind);
    if (!shape) return undefined;
    const { end, text: down } = itemDown(ctx, scanner, start, type, shape, true);
    return scanner.ws(end) === text.length ? down : undefined;
  } catch {
    return undefined;
  }
}

/** Where the text's object ends, when it ends with its closing brace (and whitespace); -1 otherwise. */
function lastBrace(text: string): number {
  let end = text.length;
  while (end > 0 && ' \n\r\t'.includes(text[end - 1])) end--;
  return text.charCodeAt(end - 1) === 125 ? end : -1;
}

/** `kind` and `apiVersion` when they are the object's first two members. */
function leadingType(scanner: JsonScanner, start: number): TypeMeta | undefined {
  const text = scanner.text;
  scanner.expect(start, 123);
  let i = scanner.ws(start + 1);
  const found: Record<string, unknown> = {};
  for (let member = 0; member < 2 && text.charCodeAt(i) === 34; member++) {
    const keyEnd = scanner.skipString(i);
    const key = scanner.stringAt(i, keyEnd);
    let j = scanner.ws(keyEnd);
    scanner.expect(j, 58);
    j = scanner.ws(j + 1);
    const end = scanner.skipValue(j);
    found[key] = scanner.valueAt(j, end);
    i = scanner.ws(end);
    if (text.charCodeAt(i) !== 44) break;
    i = scanner.ws(i + 1);
  }
  return typeof found.kind === 'string' && typeof found.apiVersion === 'string'
    ? { kind: found.kind, apiVersion: found.apiVersion }
    : undefined;
}

function itemDown(
  ctx: TenantContext,
  scanner: JsonScanner,
  start: number,
  type: TypeMeta,
  shape: ObjectShape | undefined,
  /** The text is this one object: its marks are looked for once, without keeping where they were. */
  alone = false,
): { end: number; text: string | null } {
  if (shape && scanner.text.charCodeAt(start) === 123) {
    const shadow = readShadow(scanner, start, shape, alone ? lastBrace(scanner.text) : -1);
    const marks = WHOLE_WHEN_TEXT.get(`${groupOfApiVersion(type.apiVersion)}/${type.kind}`);
    if (!marks || !marked(scanner, marks, start, shadow.end, alone)) {
      if (!objectDownInPlace(ctx, shadow.object, type)) return { end: shadow.end, text: null };
      const text = writeShadow(scanner.text, shadow, shadow.object);
      if (text !== null) return { end: shadow.end, text };
    }
  }
  const end = scanner.skipValue(start);
  const object = JSON.parse(scanner.text.slice(start, end));
  return {
    end,
    text: object && typeof object === 'object' && objectDownInPlace(ctx, object, type) ? JSON.stringify(object) : null,
  };
}

const ROW_SHAPE: ObjectShape = objectShape([
  ['cells', LEAF],
  ['object', objectShape([['kind', LEAF], ['apiVersion', LEAF], ...membersOf(shapeOfFields(METADATA))])],
]);
/** Without the object, the row's object is a leaf: the conversion replaces it with null. */
const ROW_SHAPE_NO_OBJECT: ObjectShape = objectShape([
  ['cells', LEAF],
  ['object', LEAF],
]);

/** Rows of PartialObjectMetadata (kubectl's default) through a shadow; rows of whole objects parsed. */
function rowDown(
  ctx: TenantContext,
  scanner: JsonScanner,
  start: number,
  rowKind: RowKind,
  wantsNoObject: boolean,
): { end: number; text: string | null } {
  const convert = (row: Record<string, any>): Record<string, any> | null => {
    const down = tableDown(ctx, { rows: [row] }, rowKind).rows[0] as Record<string, any> | undefined;
    if (!down) return null;
    if (wantsNoObject) down.object = null;
    return down;
  };
  const shadow = readShadow(scanner, start, wantsNoObject ? ROW_SHAPE_NO_OBJECT : ROW_SHAPE);
  const object = shadow.object.object;
  // A row of a pod or template the gateway pointed at itself: its managedFields are converted (kinds/pod-api.ts).
  const marks = WHOLE_WHEN_TEXT.get(`${rowKind.group}/${rowKind.kind}`);
  const whole = !wantsNoObject && marks !== undefined && marked(scanner, marks, start, shadow.end);
  if (wantsNoObject || (object?.kind === 'PartialObjectMetadata' && !whole)) {
    const down = convert(shadow.object);
    if (!down) return { end: shadow.end, text: null };
    const text = writeShadow(scanner.text, shadow, down);
    if (text !== null) return { end: shadow.end, text };
  }
  const row = JSON.parse(scanner.text.slice(start, shadow.end));
  const down = convert(row);
  return { end: shadow.end, text: down ? JSON.stringify(down) : null };
}

const shapes = new Map<string, ObjectShape | undefined>();

/**
 * The field table is written for the way up; some rules read more on the way down: an Event's
 * prose loses the prefix. Listed here, by the tenant's `group/Kind` as in kinds/kind-records.ts.
 */
const DOWN_ONLY: ReadonlyMap<string, string[]> = new Map([
  ['/Event', ['message']],
  ['events.k8s.io/Event', ['note']],
]);
/** In the annotations' keys of what the gateway points at itself, and in managers' records of them. */
const POD_API_MARK = 'paddock.io/';
/**
 * Items a rule reads more of than their shadow holds, told by their text: a pod or template the
 * gateway wrote (its annotations), whose conversion (kinds/pod-api.ts) reaches its env, volumes,
 * mounts and managedFields; `kube-root-ca.crt`, which shows the gateway's CA in its `data`, which
 * no other ConfigMap's is parsed for. A pod made upstream directly is not (its projected tokens'
 * audiences, which only a tenant's own token could have written there, are shown as stored).
 */
const WHOLE_WHEN_TEXT: ReadonlyMap<string, readonly string[]> = new Map([
  ...[...POD_KINDS].map((kind): [string, string[]] => [kind, [POD_API_MARK]]),
  ['/ConfigMap', ['"kube-root-ca.crt"']],
]);
/** Per scanner and mark, where the mark is next found (-1: nowhere after), so a list is searched once, not once an item. */
const nextMarks = new WeakMap<JsonScanner, Map<string, { from: number; at: number }>>();

/** Whether one of `marks` is in the text between `start` and `end`. */
function marked(scanner: JsonScanner, marks: readonly string[], start: number, end: number, alone = false): boolean {
  if (alone) {
    for (const mark of marks) {
      const at = scanner.text.indexOf(mark, start);
      if (at !== -1 && at < end) return true;
    }
    return false;
  }
  let found = nextMarks.get(scanner);
  if (!found) nextMarks.set(scanner, (found = new Map()));
  return marks.some((mark) => {
    let next = found.get(mark);
    if (!next || start < next.from || (next.at !== -1 && next.at < start)) {
      next = { from: start, at: scanner.text.indexOf(mark, start) };
      found.set(mark, next);
    }
    return next.at !== -1 && next.at < end;
  });
}
/**
 * Kinds whose down conversion reads their status or other members the table leaves out (CRDs,
 * webhook configurations, reviews): rarely listed in bulk, so simply parsed in full.
 */
const PARSED_IN_FULL = new Set([
  'apiextensions.k8s.io/CustomResourceDefinition',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'authentication.k8s.io/TokenReview',
  'authentication.k8s.io/SelfSubjectReview',
  'authorization.k8s.io/SubjectAccessReview',
  'authorization.k8s.io/LocalSubjectAccessReview',
  'authorization.k8s.io/SelfSubjectAccessReview',
  'authorization.k8s.io/SelfSubjectRulesReview',
]);

/** The members an item of this type must show its conversion: its table's fields plus its type. Undefined: parse it in full. */
function shapeOfKind(apiVersion: string, kind: string): ObjectShape | undefined {
  const key = `${apiVersion}/${kind}`;
  if (!shapes.has(key)) {
    const typeKey = `${groupOfApiVersion(apiVersion)}/${kind}`;
    const fields = PARSED_IN_FULL.has(typeKey) ? undefined : protobufFieldsOf(apiVersion, kind);
    if (!fields) shapes.set(key, undefined);
    else {
      const shape = shapeOfFields(fields);
      const extra: [string, ShapeNode][] = (DOWN_ONLY.get(typeKey) ?? []).map((name) => [name, LEAF]);
      shapes.set(key, objectShape([...membersOf(shape), ...extra, ['apiVersion', LEAF], ['kind', LEAF]]));
    }
  }
  return shapes.get(key);
}

function shapeOfFields(fields: MessageFields): ObjectShape {
  const members: [string, ShapeNode][] = [];
  const add = (rule: FieldRule): void => {
    if (rule.type === 'inline') for (const inner of Object.values(rule.fields)) add(inner);
    else if (rule.type === 'message') {
      const inner = shapeOfFields(rule.fields);
      members.push([rule.name, rule.repeated ? { kind: 'array', each: inner } : inner]);
    } else members.push([rule.name, LEAF]);
  };
  for (const rule of Object.values(fields)) add(rule);
  return objectShape(members);
}
