/**
 * Ownership bookkeeping in `metadata.managedFields`, as kube-apiserver's field manager keeps it:
 * one entry per manager (name, operation, apiVersion for Updates, subresource), and how an
 * ordinary write — an Update — moves ownership: the writer takes every field it changed, from
 * everyone else.
 */
import { isObject, type Json } from '../json.js';
import { patchMetaFor, type FieldPatchMeta } from '../patch/patch-meta.js';
import { compareObjects, FieldSet, type Comparison } from './field-set.js';

export type Operation = 'Apply' | 'Update';

export interface ManagerIdentity {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource?: string;
}

export interface ManagerEntry extends ManagerIdentity {
  time?: string;
  fields: FieldSet;
}

/** The field metadata of a whole object of a kind. */
export function kindMeta(group: string, kind: string): FieldPatchMeta {
  return { fields: patchMetaFor(group, kind) };
}

/** Set by the server, owned by no one (kube-apiserver's stripped fields). */
const SERVER_FIELDS = FieldSet.fromPaths([
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata'],
  ...[
    'name',
    'namespace',
    'creationTimestamp',
    'selfLink',
    'uid',
    'generation',
    'managedFields',
    'resourceVersion',
  ].map((field) => ['f:metadata', `f:${field}`]),
]);

export function withoutServerFields(set: FieldSet): FieldSet {
  return set.difference(SERVER_FIELDS);
}

/** Apply entries are one per manager whatever the version they applied at; Updates are per version. */
export function isSameManager(a: ManagerIdentity, b: ManagerIdentity): boolean {
  return (
    a.manager === b.manager &&
    a.operation === b.operation &&
    (a.subresource ?? '') === (b.subresource ?? '') &&
    (a.operation === 'Apply' || a.apiVersion === b.apiVersion)
  );
}

/** Entries that are not objects are skipped rather than failing the write. */
export function decodeManagedFields(value: unknown): ManagerEntry[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((entry) => {
    const decoded: ManagerEntry = {
      manager: String(entry.manager ?? ''),
      operation: entry.operation === 'Apply' ? 'Apply' : 'Update',
      apiVersion: String(entry.apiVersion ?? ''),
      fields: FieldSet.fromFieldsV1(entry.fieldsV1),
    };
    if (typeof entry.time === 'string') decoded.time = entry.time;
    if (typeof entry.subresource === 'string' && entry.subresource) decoded.subresource = entry.subresource;
    return decoded;
  });
}

/** In kube's order: Apply entries first, then by time, manager, apiVersion and subresource. */
export function encodeManagedFields(entries: ManagerEntry[]): Json[] {
  const sortKey = (e: ManagerEntry) => [e.operation, e.time ?? '', e.manager, e.apiVersion, e.subresource ?? ''];
  return [...entries]
    .sort((a, b) => {
      const [x, y] = [sortKey(a), sortKey(b)];
      const at = x.findIndex((value, i) => value !== y[i]);
      return at < 0 ? 0 : x[at] < y[at] ? -1 : 1;
    })
    .map((e) => {
      const json: Json = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion };
      if (e.time) json.time = e.time;
      json.fieldsType = 'FieldsV1';
      json.fieldsV1 = e.fields.toFieldsV1();
      if (e.subresource) json.subresource = e.subresource;
      return json;
    });
}

/** What an Update changed that a manager can own; null when it changed nothing ownable. */
export function ownableChanges(comparison: Comparison): { changed: FieldSet; removed: FieldSet } | null {
  const changed = withoutServerFields(comparison.added.union(comparison.modified));
  const removed = withoutServerFields(comparison.removed);
  return changed.isEmpty() && removed.isEmpty() ? null : { changed, removed };
}

/**
 * The entries after an Update by `writer`: the writer's entry gains what changed (and is
 * timestamped), every other entry loses it, and everyone loses what was removed. Entries left
 * owning nothing disappear.
 */
export function ownershipAfterUpdate(
  entries: ManagerEntry[],
  changes: { changed: FieldSet; removed: FieldSet },
  writer: Omit<ManagerIdentity, 'operation'>,
  now: string,
): ManagerEntry[] {
  const { changed, removed } = changes;
  const identity: ManagerIdentity = { ...writer, operation: 'Update' };
  const result: ManagerEntry[] = [];
  let own: ManagerEntry | undefined;
  for (const entry of entries) {
    const kept = { ...entry, fields: entry.fields.difference(changed).difference(removed) };
    if (isSameManager(entry, identity)) own = kept;
    else if (!kept.fields.isEmpty()) result.push(kept);
  }
  if (!changed.isEmpty()) own = { ...identity, time: now, fields: (own?.fields ?? new FieldSet()).union(changed) };
  if (own && !own.fields.isEmpty()) result.push(own);
  return result;
}

/**
 * What a create is compared with: kube compares with the kind's zero value, in which top-level
 * structs such as spec already exist, so a creator owns spec's fields but not spec itself.
 */
export function zeroValueOf(object: Json): Json {
  return Object.fromEntries(
    Object.entries(object)
      .filter(([, value]) => isObject(value))
      .map(([field]) => [field, {}]),
  );
}

export interface UpdateOptions {
  manager: string;
  apiVersion: string;
  group: string;
  kind: string;
  now: string;
  subresource?: string;
}

/**
 * The entries a non-apply write starts from, as kube's decodeLiveOrNew chooses them: the
 * request's own managedFields when every entry decodes and there is at least one, none when the
 * request resets them (`[]` or `[{}]`), else the live object's — so a client that does not know
 * managedFields cannot drop them by accident, and one that does can rewrite them (kubectl's
 * client-side to server-side apply migration). A write to a subresource never sets them.
 */
function startingEntries(
  live: unknown,
  requested: unknown,
  subresource: string | undefined,
): { entries: ManagerEntry[]; fromRequest: boolean } {
  if (!subresource) {
    if (isReset(requested)) return { entries: [], fromRequest: true };
    const decoded = decodeRequestedManagedFields(requested);
    if (decoded && decoded.length > 0) return { entries: decoded, fromRequest: true };
  }
  return { entries: decodeManagedFields(live), fromRequest: false };
}

/** `[]`, or one entry with nothing set. */
function isReset(requested: unknown): boolean {
  if (!Array.isArray(requested)) return false;
  if (requested.length === 0) return true;
  return (
    requested.length === 1 &&
    isObject(requested[0]) &&
    Object.values(requested[0]).every((value) => value === null || value === '')
  );
}

/**
 * Entries as kube's DecodeManagedFields reads them, null when one of them does not decode
 * (operation Apply or Update, an apiVersion, fieldsType FieldsV1, fieldsV1 a set of path
 * elements). A manager named twice keeps its last entry, as kube's map of managers does.
 */
export function decodeRequestedManagedFields(value: unknown): ManagerEntry[] | null {
  if (!Array.isArray(value)) return null;
  const byIdentity = new Map<string, ManagerEntry>();
  for (const entry of value) {
    if (!isObject(entry)) return null;
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') return null;
    if (typeof entry.apiVersion !== 'string' || entry.apiVersion === '') return null;
    if (entry.fieldsType !== 'FieldsV1') return null;
    if (entry.fieldsV1 !== undefined && entry.fieldsV1 !== null && !isFieldsV1(entry.fieldsV1)) return null;
    const [decoded] = decodeManagedFields([entry]);
    byIdentity.set(identityOf(decoded), decoded);
  }
  return [...byIdentity.values()];
}

function identityOf(entry: ManagerIdentity): string {
  const apiVersion = entry.operation === 'Apply' ? '' : entry.apiVersion;
  return JSON.stringify([entry.manager, entry.operation, apiVersion, entry.subresource ?? '']);
}

/** structured-merge-diff's path elements: `.`, `f:<name>`, `k:<JSON object>`, `v:<JSON value>`, `i:<index>`. */
function isFieldsV1(value: unknown): boolean {
  if (!isObject(value)) return false;
  return Object.entries(value).every(([element, below]) => {
    if (element === '.') return isObject(below) && Object.keys(below).length === 0;
    return isPathElement(element) && isFieldsV1(below);
  });
}

function isPathElement(element: string): boolean {
  const rest = element.slice(2);
  switch (element.slice(0, 2)) {
    case 'f:':
      return true;
    case 'i:':
      return /^\d+$/.test(rest);
    case 'k:':
      return parsesAs(rest, isObject);
    case 'v:':
      return parsesAs(rest, () => true);
    default:
      return false;
  }
}

function parsesAs(text: string, accept: (value: unknown) => boolean): boolean {
  try {
    return accept(JSON.parse(text));
  } catch {
    return false;
  }
}

/**
 * For non-apply writes: `next` with the managedFields of an Update by `manager` (compared with
 * `previous`, null on create), starting from the entries kube would start from (above). An
 * existing object tracked by no one stays untracked, as in kube: only creates start tracking.
 */
export function recordUpdate(previous: Json | null, next: Json, options: UpdateOptions): Json {
  const { managedFields: requested, ...metadata } = isObject(next.metadata) ? next.metadata : {};
  const untracked = { ...next, metadata };
  const live: unknown = previous?.metadata?.managedFields;
  const { entries, fromRequest } = startingEntries(live, requested, options.subresource);
  if (previous && entries.length === 0) return untracked;
  const changes = ownableChanges(
    compareObjects(previous ?? zeroValueOf(untracked), untracked, kindMeta(options.group, options.kind)),
  );
  let after = entries;
  if (changes) {
    const writer = {
      manager: options.manager,
      apiVersion: options.apiVersion,
      ...(options.subresource ? { subresource: options.subresource } : {}),
    };
    after = ownershipAfterUpdate(entries, changes, writer, options.now);
  } else if (previous && !fromRequest) {
    // The stored entries as they are: nothing to re-encode, which keeps no-op writes no-ops.
    return { ...next, metadata: { ...metadata, managedFields: live } };
  }
  const managedFields = encodeManagedFields(after);
  return managedFields.length ? { ...next, metadata: { ...metadata, managedFields } } : untracked;
}
