/**
 * Field paths of objects and sets of them, as sigs.k8s.io/structured-merge-diff keeps them for
 * `metadata.managedFields`, with their fieldsV1 JSON. A path element is kept in its fieldsV1
 * spelling: `f:<field>`, `k:<the key fields as JSON>` (an item of a list merged by key),
 * `v:<JSON value>` (an item of a set of scalars), `i:<index>`.
 *
 * Which lists are merged by key comes from the strategic-merge metadata (patch-meta.ts): a list
 * with a merge key is a map of items, one with the merge strategy and no key a set, any other
 * list atomic (a single value).
 */
import { isDeepStrictEqual } from 'node:util';
import type { FieldPatchMeta } from '../patch/patch-meta.js';
import { goQuote } from '../go-quote.js';
import { isObject, type Json } from '../json.js';

export type PathElement = string;
export type FieldPath = readonly PathElement[];

/**
 * The element naming each item of a list, or null when the list is atomic — including a list
 * whose items lack their key or repeat one, which structured-merge-diff cannot merge either.
 */
export function listItemElements(list: unknown[], meta: FieldPatchMeta | undefined): PathElement[] | null {
  if (!isMergedList(meta)) return null;
  const key = meta?.mergeKey;
  const elements: PathElement[] = [];
  const seen = new Set<PathElement>();
  for (const item of list) {
    const element = itemElement(item, key);
    if (element === null || seen.has(element)) return null;
    seen.add(element);
    elements.push(element);
  }
  return elements;
}

/** A list merged item by item: by its merge key, or as a set of scalars (merge strategy, no key). */
export function isMergedList(meta: FieldPatchMeta | undefined): boolean {
  return meta?.mergeKey !== undefined || meta?.strategy?.startsWith('merge') === true;
}

/** An item of a list merged by `key`, or of a set of scalars without one; null when it cannot be named. */
export function itemElement(item: unknown, key: string | undefined): PathElement | null {
  if (!key) return item === null || typeof item === 'object' ? null : `v:${JSON.stringify(item)}`;
  if (!isObject(item)) return null;
  const value = item[key];
  if (value === undefined || value === null || typeof value === 'object') return null;
  return `k:{${JSON.stringify(key)}:${JSON.stringify(value)}}`;
}

/** The metadata of a list's items: their fields are the list's `fields`. */
export function itemMeta(meta: FieldPatchMeta | undefined): FieldPatchMeta | undefined {
  return meta?.fields ? { fields: meta.fields } : undefined;
}

/** The children of a map or of a non-atomic list, by element; null for anything else (a leaf). */
export function childrenOf(
  value: unknown,
  meta: FieldPatchMeta | undefined,
): Map<PathElement, { value: unknown; meta: FieldPatchMeta | undefined }> | null {
  if (isObject(value)) {
    return new Map(
      Object.entries(value).map(([name, child]) => [`f:${name}`, { value: child, meta: meta?.fields?.[name] }]),
    );
  }
  if (!Array.isArray(value)) return null;
  const elements = listItemElements(value, meta);
  if (!elements) return null;
  const items = itemMeta(meta);
  return new Map(elements.map((element, i) => [element, { value: value[i], meta: items }]));
}

/**
 * A set of paths as a tree: `members` are paths ending at this node, `children` the sets below
 * each element. An element may be both, as `".": {}` writes it in fieldsV1.
 */
export class FieldSet {
  private readonly members = new Set<PathElement>();
  private readonly children = new Map<PathElement, FieldSet>();

  static fromPaths(paths: Iterable<FieldPath>): FieldSet {
    const set = new FieldSet();
    for (const path of paths) set.insert(path);
    return set;
  }

  /** fieldsV1 JSON; anything that is not an object is read as nothing. */
  static fromFieldsV1(json: unknown): FieldSet {
    const set = new FieldSet();
    if (!isObject(json)) return set;
    for (const [element, inner] of Object.entries(json)) {
      if (element === '.') continue;
      const child = FieldSet.fromFieldsV1(inner);
      if (!isObject(inner) || Object.keys(inner).length === 0 || '.' in inner) set.members.add(element);
      if (!child.isEmpty()) set.children.set(element, child);
    }
    return set;
  }

  insert(path: FieldPath): void {
    if (path.length === 0) return;
    let children = this.children;
    let members = this.members;
    for (let i = 0; i < path.length - 1; i++) {
      let child = children.get(path[i]);
      if (!child) children.set(path[i], (child = new FieldSet()));
      ({ children, members } = child);
    }
    members.add(path[path.length - 1]);
  }

  hasMember(element: PathElement): boolean {
    return this.members.has(element);
  }

  child(element: PathElement): FieldSet | undefined {
    return this.children.get(element);
  }

  isEmpty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  union(other: FieldSet): FieldSet {
    const result = new FieldSet();
    result.addAll(this);
    result.addAll(other);
    return result;
  }

  /** Paths of this set that `other` does not hold; members below one of other's members stay. */
  difference(other: FieldSet): FieldSet {
    const result = new FieldSet();
    for (const member of this.members) if (!other.members.has(member)) result.members.add(member);
    for (const [element, mine] of this.children) {
      const theirs = other.children.get(element);
      const rest = theirs ? mine.difference(theirs) : mine.union(EMPTY);
      if (!rest.isEmpty()) result.children.set(element, rest);
    }
    return result;
  }

  intersection(other: FieldSet): FieldSet {
    const result = new FieldSet();
    for (const member of this.members) if (other.members.has(member)) result.members.add(member);
    for (const [element, mine] of this.children) {
      const theirs = other.children.get(element);
      const common = theirs ? mine.intersection(theirs) : undefined;
      if (common && !common.isEmpty()) result.children.set(element, common);
    }
    return result;
  }

  /** Every path, in structured-merge-diff's order: this node's members, then each child's. */
  paths(prefix: FieldPath = []): FieldPath[] {
    const own = sortElements([...this.members]).map((member) => [...prefix, member]);
    const below = sortElements([...this.children.keys()]).flatMap((element) =>
      this.children.get(element)!.paths([...prefix, element]),
    );
    return [...own, ...below];
  }

  private addAll(other: FieldSet): void {
    for (const member of other.members) this.members.add(member);
    for (const [element, theirs] of other.children) {
      let mine = this.children.get(element);
      if (!mine) this.children.set(element, (mine = new FieldSet()));
      mine.addAll(theirs);
    }
  }

  toFieldsV1(): Json {
    const json: Json = {};
    this.writeFieldsV1(json);
    return json;
  }

  /** Into `json`, which may hold `"."` already: every element in order, an element both member and parent as `{".": {}, …}`. */
  private writeFieldsV1(json: Json): void {
    const elements = [...this.members];
    for (const element of this.children.keys()) if (!this.members.has(element)) elements.push(element);
    for (const element of sortElements(elements)) {
      const child = this.children.get(element);
      const inner: Json = child && this.members.has(element) ? { '.': {} } : {};
      child?.writeFieldsV1(inner);
      json[element] = inner;
    }
  }
}

const EMPTY = new FieldSet();

/** An element's place by its type: fields, keyed items, set items, indexes (anything else first). */
function elementRank(element: PathElement): number {
  switch (element.charCodeAt(0)) {
    case 102: // f
      return 0;
    case 107: // k
      return 1;
    case 118: // v
      return 2;
    case 105: // i
      return 3;
    default:
      return -1;
  }
}

/** Fields first, then keyed items, set items and indexes, as structured-merge-diff orders them. */
function sortElements(elements: PathElement[]): PathElement[] {
  return elements.sort((a, b) => {
    const byType = elementRank(a) - elementRank(b);
    if (byType !== 0) return byType;
    if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/** A path as kube prints it in conflicts: `.spec.template.spec.containers[name="app"].image`. */
export function pathString(path: FieldPath): string {
  return path
    .map((element) => {
      const rest = element.slice(2);
      switch (element[0]) {
        case 'f':
          return `.${rest}`;
        case 'k':
          return `[${Object.entries(JSON.parse(rest) as Json)
            .map(([name, value]) => `${name}=${printValue(value)}`)
            .join(',')}]`;
        case 'v':
          return `[=${printValue(JSON.parse(rest))}]`;
        default:
          return `[${rest}]`;
      }
    })
    .join('');
}

function printValue(value: unknown): string {
  return typeof value === 'string' ? goQuote(value) : String(value);
}

/**
 * The paths an apply configuration sets: its leaves (scalars, atomic lists, nulls and empty
 * maps) and the items of its keyed lists and sets.
 */
export function fieldSetOf(value: unknown, meta: FieldPatchMeta | undefined): FieldSet {
  const set = new FieldSet();
  collectLeaves([], value, meta, set);
  return set;
}

function collectLeaves(path: FieldPath, value: unknown, meta: FieldPatchMeta | undefined, set: FieldSet): void {
  for (const [element, child] of childrenOf(value, meta) ?? []) {
    const childPath = [...path, element];
    const below = childrenOf(child.value, child.meta);
    const isItem = element[0] !== 'f';
    if (isItem || below === null || (below.size === 0 && isObject(child.value))) set.insert(childPath);
    if (below) collectLeaves(childPath, child.value, child.meta, set);
  }
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * What changed from `previous` to `next`, as structured-merge-diff compares: changed leaves are
 * modified; a path present on one side only is added or removed, and so is everything below it —
 * which is why an Update entry owns a map it created (`".": {}`) but not one it only changed.
 */
export function compareObjects(previous: unknown, next: unknown, meta: FieldPatchMeta | undefined): Comparison {
  const result: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareAt([], previous, next, meta, result);
  return result;
}

/** A value's children as compareAt walks them: a map's fields, a merged list's items; null for a leaf. */
type Children =
  | { map: Record<string, unknown>; meta: FieldPatchMeta | undefined }
  | { items: Map<PathElement, unknown>; meta: FieldPatchMeta | undefined }
  | null;

/** What childrenOf finds, without the Map and the record per child it makes: this runs on every write. */
function childrenForComparison(value: unknown, meta: FieldPatchMeta | undefined): Children {
  if (isObject(value)) return { map: value, meta };
  if (!Array.isArray(value)) return null;
  const elements = listItemElements(value, meta);
  if (!elements) return null;
  return { items: new Map(elements.map((element, i) => [element, value[i]])), meta: itemMeta(meta) };
}

/** `path` is a stack compareAt pushes onto and pops: the sets copy the elements they insert, never the array. */
function compareAt(
  path: PathElement[],
  previous: unknown,
  next: unknown,
  meta: FieldPatchMeta | undefined,
  result: Comparison,
): void {
  const before = previous === undefined ? undefined : childrenForComparison(previous, meta);
  const after = next === undefined ? undefined : childrenForComparison(next, meta);
  const sameShape =
    before !== null &&
    after !== null &&
    (previous === undefined || next === undefined || Array.isArray(previous) === Array.isArray(next));
  if (!sameShape) {
    // A leaf present on one side only was recorded as added or removed by its parent.
    if (previous !== undefined && next !== undefined && !sameValue(previous, next)) result.modified.insert(path);
    return;
  }
  const visit = (
    element: PathElement,
    old: unknown,
    now: unknown,
    had: boolean,
    has: boolean,
    childMeta: FieldPatchMeta | undefined,
  ) => {
    path.push(element);
    if (!had) result.added.insert(path);
    if (!has) result.removed.insert(path);
    compareAt(path, old, now, childMeta, result);
    path.pop();
  };
  // Neither side: a field both hold as `undefined` (an object built in code, not parsed).
  const sides = before ?? after;
  if (!sides) return;
  if ('map' in sides) {
    const old = before && 'map' in before ? before.map : undefined;
    const now = after && 'map' in after ? after.map : undefined;
    const fields = meta?.fields;
    if (old)
      for (const name of Object.keys(old)) {
        const has = now !== undefined && Object.hasOwn(now, name);
        visit(`f:${name}`, old[name], has ? now[name] : undefined, true, has, fields?.[name]);
      }
    if (now)
      for (const name of Object.keys(now))
        if (old === undefined || !Object.hasOwn(old, name))
          visit(`f:${name}`, undefined, now[name], false, true, fields?.[name]);
    return;
  }
  const old = before && 'items' in before ? before.items : undefined;
  const now = after && 'items' in after ? after.items : undefined;
  if (old)
    for (const [element, item] of old) {
      const has = now !== undefined && now.has(element);
      visit(element, item, has ? now.get(element) : undefined, true, has, sides.meta);
    }
  if (now)
    for (const [element, item] of now)
      if (old === undefined || !old.has(element)) visit(element, undefined, item, false, true, sides.meta);
}

/** isDeepStrictEqual, without its setup for the scalars most leaves are (for them it is Object.is). */
function sameValue(a: unknown, b: unknown): boolean {
  return (typeof a === 'object' && a !== null) || (typeof b === 'object' && b !== null)
    ? isDeepStrictEqual(a, b)
    : Object.is(a, b);
}
