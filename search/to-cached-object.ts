/**
 * An object as a cluster sent it, turned into what the multi-cluster cache keeps (CachedObject):
 * its text, and only the values keys, indexes and selectors read. The parsed object is dropped
 * after this, so a cached object costs about its text.
 */
import type { Json } from '../apiserver/json.js';
import { selectableFields } from '../apiserver/selectors/selectable-fields.js';
import { CachedObject, type SplicedText } from './cached-object.js';
import { cachedTextParts } from './cached-object-text.js';
import { flatString, ownCopy } from './flat-string.js';
import { SharedValues } from './shared-values.js';

/** The values of a resource's selectable fields for one object, as field selectors read them. */
export type SelectableFieldsOf = (object: Json) => Record<string, string>;

/**
 * Distinct names and namespaces, label sets and field path lists met recently: but for names,
 * far fewer than objects in a cluster of any size, so a pool of this many shares nearly all of them.
 * Names and namespaces share one pool: a namespace's name is the namespace of every object in it,
 * and names repeat from namespace to namespace (every one's `kube-root-ca.crt` and `default`, a
 * tenant's bindings); names held once (pods') only pass through it.
 */
const SHARED_LIMIT = 10_000;
const names = new SharedValues<string>(SHARED_LIMIT);
const labelSets = new SharedValues<Readonly<Record<string, string>>>(SHARED_LIMIT);
const fieldPathLists = new SharedValues<readonly string[]>(SHARED_LIMIT);
/** Selectable fields' values as JSON array texts: every namespace's `["Active"]`, pods' of one node and phase. */
const fieldValueLists = new SharedValues<string>(SHARED_LIMIT);
/** Long `data` and annotation values (as JSON string literals) met recently, for objects that hold the same one. */
const longValues = new SharedValues<string>(SHARED_LIMIT);
/** The texts of `managedFields` entries on either side of their `time`, met recently. */
const managedFieldsPieces = new SharedValues<string>(SHARED_LIMIT);
/**
 * Bodies (what follows `metadata`) met recently, up to LONG_BODY long: fewer than the other pools
 * hold, since a body no other object has is held here until the pool empties.
 */
const bodies = new SharedValues<string>(1_000);
/** A longer body is a pod's or a workload's, rarely another's too. */
const LONG_BODY = 512;
/** Short texts between those values, met recently (ownPiece). */
const shortPieces = new SharedValues<string>(SHARED_LIMIT);
/** The longest text between shared values that is looked up in `shortPieces`: a uid alone is 36. */
const SHORT_PIECE = 80;

/**
 * A value this long is worth holding once when another object holds it too: a CA bundle is 600
 * bytes to 2 KB, the description kube puts on every `kube-root-ca.crt` 220.
 */
const LONG_VALUE = 128;

/**
 * A piece of a `managedFields` entry this long is worth holding once: each shared piece costs the
 * object a slot and a string header (about 30 bytes); an entry's text before its time is 60 to 110
 * bytes, after it 100 to 300.
 */
const LONG_PIECE = 48;

/** What the fields of a resource are: kube's selectable fields of that group and resource. */
export function selectableFieldsOf(group: string, resource: string, namespaced: boolean): SelectableFieldsOf {
  return (object) => selectableFields(group, resource, namespaced, object);
}

/**
 * `withoutHeld`: the text leaves out the name, namespace and labels, which the object holds beside
 * it; for objects only the gateway's own controllers read, through parsedObject (cached-object-informers.ts).
 */
export function toCachedObject(
  raw: Json,
  fieldsOf: SelectableFieldsOf,
  { withoutHeld = false }: { withoutHeld?: boolean } = {},
): CachedObject {
  const meta: Json = raw.metadata ?? {};
  const name = typeof meta.name === 'string' ? names.shared(meta.name, () => meta.name as string) : '';
  const namespace =
    typeof meta.namespace === 'string' && meta.namespace !== ''
      ? names.shared(meta.namespace, () => meta.namespace as string)
      : undefined;
  const labels = sharedLabels(meta.labels, name);
  // A selector reads a missing field as "", and name and namespace are in metadata: neither is kept twice.
  const paths: string[] = [];
  const values: string[] = [];
  for (const [path, value] of Object.entries(fieldsOf(raw))) {
    if (path === 'metadata.name' || path === 'metadata.namespace') continue;
    paths.push(path);
    values.push(value);
  }
  const fieldPaths = fieldPathLists.shared(paths.join('\n'), () => Object.freeze(paths));
  const fieldValues = values.some((value) => value !== '') ? sharedFieldValues(JSON.stringify(values)) : undefined;
  const { text, bodyLength } = cachedTextParts(raw, { withoutHeld });
  return new CachedObject(splicedText(text, bodyLength, raw), name, namespace, labels, fieldPaths, fieldValues);
}

/**
 * The text, spliced around the long annotation and `data` values (a ConfigMap's or Secret's), the
 * `managedFields` entries' texts beside their `time`, and the members after `metadata` (a
 * binding's roleRef and subjects, the same in each namespace of a tenant) that an object met
 * before holds too, so that it holds the pool's copy of each; whole when there is none. The first
 * object to hold a value keeps its text whole: a value no other object holds costs no splice.
 */
function splicedText(text: string, bodyLength: number, raw: Json): string | SplicedText {
  let pieces: string[] | undefined;
  let from = 0;
  // In the text's order: annotations, then managedFields (both in metadata), then `data`'s values
  // (a ConfigMap's or Secret's) or, for another kind, the body whole.
  const shareable = [
    ...longStrings(raw.metadata?.annotations).map((value) => inPool(longValues, JSON.stringify(value))),
    ...managedFieldsTexts(raw.metadata?.managedFields).map((piece) => inPool(managedFieldsPieces, piece)),
    ...longStrings(raw.data).map((value) => inPool(longValues, JSON.stringify(value))),
    ...(raw.data === undefined && bodyLength >= LONG_VALUE && bodyLength <= LONG_BODY
      ? // A copy: the pool's key, as a slice, would keep the whole text alive.
        [inPool(bodies, ownCopy(text.slice(text.length - 1 - bodyLength, text.length - 1)))]
      : []),
  ];
  for (const { pool, literal } of shareable) {
    let first = false;
    const shared = pool.shared(literal, () => ((first = true), ownCopy(literal)));
    if (first) continue;
    const at = text.indexOf(literal, from);
    if (at < 0) continue;
    (pieces ??= []).push(ownPiece(text.slice(from, at)), shared);
    from = at + literal.length;
  }
  if (!pieces) return text;
  pieces.push(ownPiece(text.slice(from)));
  // A copy of exactly its length: the array grown by push has room for 17 (96 bytes more for 5 pieces).
  return pieces.slice();
}

/**
 * A text between shared values, held once when it is short: objects made alike in one second
 * have the same (`},"creationTimestamp":"…","managedFields":[`, a `time`, the closing `}}`); a
 * longer one holds a uid or a resourceVersion, and is the object's own. A copy, never a slice,
 * which would keep the whole text alive, held and as the pool's key alike.
 */
function ownPiece(piece: string): string {
  const copy = ownCopy(piece);
  return copy.length <= SHORT_PIECE ? shortPieces.shared(copy, () => copy) : copy;
}

function sharedFieldValues(text: string): string {
  return fieldValueLists.shared(text, () => flatString(text));
}

function inPool(pool: SharedValues<string>, literal: string): { pool: SharedValues<string>; literal: string } {
  return { pool, literal };
}

/**
 * Each `managedFields` entry's text before and after its `time`, as the object's text has them:
 * the entries of objects one manager writes alike differ only by their time (their `fieldsV1`
 * is the same for every namespace or binding the gateway makes), which stays the object's own.
 */
function managedFieldsTexts(entries: unknown): string[] {
  if (!Array.isArray(entries)) return [];
  const texts: string[] = [];
  for (const entry of entries as unknown[]) {
    const text = JSON.stringify(entry);
    if (typeof text !== 'string') continue;
    const time = (entry as { time?: unknown } | null)?.time;
    const stamp = typeof time === 'string' ? `"time":${JSON.stringify(time)}` : undefined;
    const at = stamp === undefined ? -1 : text.indexOf(stamp);
    const around = at < 0 ? [text] : [text.slice(0, at + '"time":'.length), text.slice(at + stamp!.length)];
    texts.push(...around.filter((piece) => piece.length >= LONG_PIECE));
  }
  return texts;
}

/** The string values of a record at least LONG_VALUE long. */
function longStrings(record: unknown): string[] {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return [];
  return Object.values(record).filter(
    (value): value is string => typeof value === 'string' && value.length >= LONG_VALUE,
  );
}

/** The fields a field selector is matched against: the kept ones, with name and namespace. */
export function fieldsForSelector(object: CachedObject): Record<string, string> {
  return {
    ...object.fields,
    'metadata.name': object.metadata.name,
    'metadata.namespace': object.metadata.namespace ?? '',
  };
}

/**
 * The object's labels as one shared, frozen set; none when it has none. The copy is parsed from
 * the key rather than spread: once a process has made objects with thousands of different first
 * keys (records keyed by tenant or namespace), V8 gives every spread copy a hidden class of its own
 * (about 200 bytes beside the set), where JSON.parse still shares one per list of label keys. A
 * value that is the object's name (every Namespace's `kubernetes.io/metadata.name`) is the name's
 * own string, not a second copy of it.
 */
function sharedLabels(labels: unknown, name: string): Readonly<Record<string, string>> | undefined {
  if (labels === null || typeof labels !== 'object' || Array.isArray(labels)) return undefined;
  const set = labels as Record<string, string>;
  if (Object.keys(set).length === 0) return undefined;
  const key = JSON.stringify(set);
  return labelSets.shared(key, () => {
    const parsed = JSON.parse(key) as Record<string, string>;
    for (const label in parsed) if (parsed[label] === name) parsed[label] = name;
    return Object.freeze(parsed);
  });
}
