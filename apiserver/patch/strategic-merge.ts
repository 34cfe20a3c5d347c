/**
 * Strategic merge patch as kube-apiserver applies it (apimachinery strategicpatch.StrategicMergeMapPatch):
 * maps merge recursively and `null` deletes; lists tagged `merge` are merged by their merge key (or
 * as sets of scalars) and ordered by the patch; other lists and `replace` fields are replaced; the
 * directives `$patch`, `$retainKeys`, `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>`
 * are honoured. Fields absent from the metadata tree behave as untagged fields. Error messages are
 * apimachinery's; the status is the one kube-apiserver answers with for each.
 */
import { cloneJson, isObject } from '../json.js';
import { PatchError } from './patch-error.js';
import type { FieldPatchMeta, PatchMetaTree } from './patch-meta.js';

type JsonObject = { [key: string]: unknown };

const directiveMarker = '$patch';
const retainKeysDirective = '$retainKeys';
const setElementOrderPrefix = '$setElementOrder';
const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList';

// The mergepatch errors kube-apiserver answers with 400; other failures are plain errors, hence 500.
const badPrimitiveListFormat = 'invalid patch format of primitive list';
const badRetainKeysFormat = 'invalid patch format of retainKeys';
const badSetElementOrderFormat = 'invalid patch format of setElementOrder list';

type GoType = 'map' | 'slice' | 'string' | 'number' | 'bool' | 'nil';

/** Returns `original` patched by `patch`; neither input is modified. A null patch changes nothing. */
export function strategicMergePatch(original: object, patch: unknown, meta: PatchMetaTree): JsonObject {
  const copy = cloneJson(original) as JsonObject;
  if (patch === null) return copy;
  if (!isObject(patch)) {
    throw new PatchError(
      `json: cannot unmarshal ${jsonKind(patch)} into Go value of type map[string]interface {}`,
      400,
    );
  }
  // kube-apiserver decodes the merged map into the typed object, which drops directive keys that
  // values taken from the patch as they are may still carry.
  return withoutDirectiveKeys(mergeMap(copy, cloneJson(patch), meta)) as JsonObject;
}

function mergeMap(original: JsonObject, patch: JsonObject, meta: PatchMetaTree): JsonObject {
  if (Object.hasOwn(patch, directiveMarker)) return mapWithDirective(patch);
  applyRetainKeys(original, patch);
  mergeOrderedLists(original, patch, meta);

  for (const [patchKey, patchValue] of Object.entries(patch)) {
    const isDeleteList = patchKey.startsWith(deleteFromPrimitiveListPrefix);
    const key = isDeleteList
      ? directiveTarget(patchKey, deleteFromPrimitiveListPrefix, badPrimitiveListFormat)
      : patchKey;
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const current = original[key];
    if (!Object.hasOwn(original, key) || goType(current) !== goType(patchValue)) {
      if (!isDeleteList) {
        discardNulls(patchValue);
        setPatchValue(original, key, patchValue);
      }
      continue;
    }
    const field = meta[key];
    if (isObject(current)) original[key] = mergeObjectField(current, patchValue as JsonObject, field);
    else if (Array.isArray(current))
      original[key] = mergeListField(current, patchValue as unknown[], field, isDeleteList);
    else setPatchValue(original, key, patchValue);
  }
  return original;
}

/** `$patch` in a map: `replace` takes the map as it is, `delete` empties it. */
function mapWithDirective(patch: JsonObject): JsonObject {
  const directive = patch[directiveMarker];
  if (directive === 'replace') {
    delete patch[directiveMarker];
    return patch;
  }
  if (directive === 'delete') return {};
  throw unknownPatchType(directive, patch);
}

function mergeObjectField(current: JsonObject, patch: JsonObject, field: FieldPatchMeta | undefined): JsonObject {
  return strategyOf(field) === 'replace' ? patch : mergeMap(current, patch, field?.fields ?? {});
}

function mergeListField(
  current: unknown[],
  patch: unknown[],
  field: FieldPatchMeta | undefined,
  isDeleteList: boolean,
): unknown[] {
  if (strategyOf(field) !== 'merge' && !isDeleteList) return patch;
  return mergeList(current, patch, field?.fields ?? {}, field?.mergeKey ?? '', isDeleteList);
}

/** The strategy other than retainKeys, which only matters when a patch is computed, not applied. */
function strategyOf(field: FieldPatchMeta | undefined): string | undefined {
  return field?.strategy?.split(',').find((strategy) => strategy !== 'retainKeys');
}

/**
 * Merges `patch` into `original` and returns the result. For lists of maps it also leaves in
 * `original` what apimachinery leaves in the server list's array: Go deletes by shifting items left
 * within that array and appends into the slots freed, and a $setElementOrder of the same list then
 * places server-only items by what the array holds.
 */
function mergeList(
  original: unknown[],
  patch: unknown[],
  itemMeta: PatchMetaTree,
  mergeKey: string,
  isDeleteList: boolean,
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const elementType = elementTypeOf(original, patch);
  if (elementType !== 'map') {
    if (isDeleteList) return original.filter((item) => !patch.includes(item));
    return orderByPatch([...new Set([...original, ...patch])], patch, original, mergeKey, elementType);
  }
  if (!mergeKey) throw new PatchError('cannot merge lists without merge key for struct', 500);
  const { deletions, patchItems, replace } = readItemDirectives(patch as JsonObject[], mergeKey);
  let serverLength = original.length;
  for (const value of deletions) serverLength = deleteInPlace(original, serverLength, mergeKey, value);
  if (replace) return orderByPatch(patchItems, [], patchItems, mergeKey, elementType);

  const serverItems = original.slice(0, serverLength) as JsonObject[];
  const merged = mergeItems(serverItems, patchItems, mergeKey, itemMeta);
  for (let index = serverLength; index < Math.min(merged.length, original.length); index++)
    original[index] = merged[index];
  return orderByPatch(merged, patchItems, serverItems, mergeKey, elementType);
}

/** Items carrying `$patch`: `delete` names items to remove, `replace` drops the server's list. */
function readItemDirectives(patch: JsonObject[], mergeKey: string) {
  const deletions: unknown[] = [];
  const patchItems: JsonObject[] = [];
  let replace = false;
  for (const item of patch) {
    if (!Object.hasOwn(item, directiveMarker)) {
      patchItems.push(item);
      continue;
    }
    const directive = item[directiveMarker];
    if (directive === 'delete') {
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      deletions.push(item[mergeKey]);
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw new PatchError('merging lists cannot yet be specified in the patch', 500);
    } else {
      throw unknownPatchType(directive, item);
    }
  }
  return { deletions, patchItems, replace };
}

/** Go's in-place delete of every item with the merge key value; returns the list's new length. */
function deleteInPlace(list: unknown[], length: number, mergeKey: string, value: unknown): number {
  for (;;) {
    const index = list.slice(0, length).findIndex((item, i) => matchesKey(item, i, mergeKey, value));
    if (index < 0) return length;
    list.copyWithin(index, index + 1, length);
    length--;
  }
}

/** Merges each patch item into the item with its merge key, appending it when there is none. */
function mergeItems(
  serverItems: JsonObject[],
  patchItems: JsonObject[],
  mergeKey: string,
  itemMeta: PatchMetaTree,
): JsonObject[] {
  const merged = [...serverItems];
  for (const item of patchItems) {
    if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    const index = merged.findIndex((candidate, i) => matchesKey(candidate, i, mergeKey, item[mergeKey]));
    if (index >= 0) merged[index] = mergeMap(merged[index], item, itemMeta);
    else merged.push(item);
  }
  return merged;
}

function matchesKey(item: unknown, index: number, mergeKey: string, value: unknown): boolean {
  if (!isObject(item)) throw new PatchError(`value for key ${index} is not a map`, 500);
  return Object.hasOwn(item, mergeKey) && item[mergeKey] === value;
}

/** `$retainKeys`: clears every field of the original that the list does not name. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.hasOwn(patch, retainKeysDirective)) return;
  const retained = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(retained)) throw new PatchError(badRetainKeysFormat, 400);
  const keys = new Set<unknown>(retained);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(deleteFromPrimitiveListPrefix) || key.startsWith(setElementOrderPrefix))
      continue;
    if (!keys.has(key)) throw new PatchError(badRetainKeysFormat, 400);
  }
  for (const key of Object.keys(original)) if (!keys.has(key)) delete original[key];
}

/**
 * `$setElementOrder/<list>`: merges the list with its patch, if any, and orders the result by the
 * directive, keeping items only the server has next to their neighbours on the server.
 */
function mergeOrderedLists(original: JsonObject, patch: JsonObject, meta: PatchMetaTree): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(setElementOrderPrefix)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw badArgType([], order);
    const fieldName = directiveTarget(key, setElementOrderPrefix, badSetElementOrderFormat);
    const hasOriginal = Object.hasOwn(original, fieldName);
    const hasPatch = Object.hasOwn(patch, fieldName);
    const originalList = hasOriginal ? original[fieldName] : [];
    const patchList = hasPatch ? patch[fieldName] : [];
    if (!Array.isArray(originalList)) throw badArgType([], originalList);
    if (!Array.isArray(patchList)) throw badArgType([], patchList);
    const field = meta[fieldName];
    const mergeKey = field?.mergeKey ?? '';
    validateOrderOfPatchList(patchList, order, mergeKey);

    let merged: unknown[];
    if (hasOriginal && hasPatch) merged = mergeListField(originalList, patchList, field, false);
    else if (hasOriginal) merged = originalList;
    else if (hasPatch) merged = removeDirectives(patchList) as unknown[];
    else continue;

    original[fieldName] = orderByPatch(merged, order, originalList, mergeKey, elementTypeOf(originalList, patchList));
    delete patch[fieldName];
  }
}

/** The items of the patch list, deletions and directives aside, must appear in the order the directive gives. */
function validateOrderOfPatchList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey ? patchList.filter((item) => directiveOf(item) !== 'delete') : patchList;
  let itemIndex = 0;
  let orderIndex = 0;
  while (itemIndex < items.length && orderIndex < order.length) {
    const item = items[itemIndex];
    if (isObject(item) && Object.hasOwn(item, directiveMarker)) {
      itemIndex++;
      continue;
    }
    if (mergeKeyValueEqual(item, order[orderIndex], mergeKey)) itemIndex++;
    orderIndex++;
  }
  if (itemIndex < items.length) {
    throw new PatchError(
      `the order in patch list:\n${goFormat(patchList)}\n doesn't match ${setElementOrderPrefix} list:\n${goFormat(order)}`,
      500,
    );
  }
}

function directiveOf(item: unknown): unknown {
  if (!isObject(item)) throw badArgType({}, item);
  return item[directiveMarker];
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return left === right;
  if (!isObject(left)) throw badArgType({}, left);
  if (!isObject(right)) throw badArgType({}, right);
  if (!Object.hasOwn(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!Object.hasOwn(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

/**
 * Orders merged items: those named by `patchOrder` in its order, the others in the server's order,
 * each of those placed before the first patch item that follows it on the server.
 */
function orderByPatch(
  merged: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  elementType: GoType,
): unknown[] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const item of merged) {
    if (mergeKey) {
      if (!isObject(item)) throw badArgType({}, item);
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      const found = patchOrder.some((candidate, index) => matchesKey(candidate, index, mergeKey, item[mergeKey]));
      (found ? inPatch : serverOnly).push(item);
    } else {
      (patchOrder.includes(item) ? inPatch : serverOnly).push(item);
    }
  }
  const position = (list: unknown[], item: unknown) => indexOfItem(list, item, mergeKey, elementType);
  const patchItems = sortByOrder(inPatch, patchOrder, mergeKey, elementType);
  const serverItems = sortByOrder(serverOnly, serverOrder, mergeKey, elementType);

  const ordered: unknown[] = [];
  let server = 0;
  let patched = 0;
  while (server < serverItems.length && patched < patchItems.length) {
    const serverIndex = position(serverOrder, serverItems[server]);
    const patchIndex = position(serverOrder, patchItems[patched]);
    if (serverIndex >= 0 && patchIndex >= 0 && serverIndex < patchIndex) ordered.push(serverItems[server++]);
    else ordered.push(patchItems[patched++]);
  }
  return [...ordered, ...serverItems.slice(server), ...patchItems.slice(patched)];
}

/**
 * Stable sort by position in `order`. apimachinery's comparator is inconsistent for items missing
 * from `order`; merged lists never have such items, and any would keep their relative order last.
 */
function sortByOrder(items: unknown[], order: unknown[], mergeKey: string, elementType: GoType): unknown[] {
  if (elementType === 'map') {
    for (const item of [...items, ...order]) {
      if (!isObject(item)) throw badArgType({}, item);
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    }
  }
  const positions = new Map(
    items.map((item) => {
      const index = indexOfItem(order, item, mergeKey, elementType);
      return [item, index >= 0 ? index : Number.POSITIVE_INFINITY] as const;
    }),
  );
  return [...items].sort((a, b) => positions.get(a)! - positions.get(b)!);
}

function indexOfItem(list: unknown[], item: unknown, mergeKey: string, elementType: GoType): number {
  if (elementType !== 'map') return list.indexOf(item);
  const keyOf = (value: unknown) => (isObject(value) ? (value[mergeKey] ?? null) : null);
  const key = keyOf(item);
  return list.findIndex((candidate) => keyOf(candidate) === key);
}

/** The common Go type of the elements of the lists; lists of lists are refused. */
function elementTypeOf(...lists: unknown[][]): GoType {
  let type: GoType | undefined;
  for (const item of lists.flat()) {
    const itemType = goType(item);
    if (type === undefined) {
      if (itemType === 'slice') throw PatchError.rejected('lists of lists are not supported');
      type = itemType;
    } else if (itemType !== type) {
      throw new PatchError(`list element types are not identical: ${goFormat(lists)}`, 500);
    }
  }
  if (type === undefined) throw new PatchError('no elements in any of the given slices', 500);
  return type;
}

/** The field a `<prefix>/<field>` directive names. */
function directiveTarget(key: string, prefix: string, formatError: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) throw new PatchError(formatError, 400);
  return key.slice(slash + 1);
}

/** Stores a value taken from the patch as it is, less maps carrying `$patch`; such a value is no value. */
function setPatchValue(target: JsonObject, key: string, value: unknown): void {
  const kept = removeDirectives(value);
  if (kept === undefined) delete target[key];
  else target[key] = kept;
}

/** Drops maps that carry `$patch`, at any depth; undefined when `value` itself is one. */
function removeDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(removeDirectives).filter((item) => item !== undefined);
  if (!isObject(value)) return value;
  if (Object.hasOwn(value, directiveMarker)) return undefined;
  for (const [key, member] of Object.entries(value)) setPatchValue(value, key, member);
  return value;
}

function discardNulls(value: unknown): void {
  if (Array.isArray(value)) {
    value.forEach(discardNulls);
  } else if (isObject(value)) {
    for (const [key, member] of Object.entries(value)) {
      if (member === null) delete value[key];
      else discardNulls(member);
    }
  }
}

function withoutDirectiveKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDirectiveKeys);
  if (!isObject(value)) return value;
  for (const [key, member] of Object.entries(value)) {
    const isDirective =
      key === directiveMarker ||
      key === retainKeysDirective ||
      key.startsWith(setElementOrderPrefix) ||
      key.startsWith(deleteFromPrimitiveListPrefix);
    if (isDirective) delete value[key];
    else value[key] = withoutDirectiveKeys(member);
  }
  return value;
}

/** The Go type a JSON value decodes to, which apimachinery compares. */
function goType(value: unknown): GoType {
  if (value === null) return 'nil';
  if (Array.isArray(value)) return 'slice';
  if (typeof value === 'object') return 'map';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'string' ? 'string' : 'number';
}

function goTypeName(value: unknown): string {
  const names = {
    map: 'map[string]interface {}',
    slice: '[]interface {}',
    string: 'string',
    bool: 'bool',
    nil: '<nil>',
  };
  const type = goType(value);
  if (type === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return names[type];
}

/** Go's `%v` of a decoded JSON value, as apimachinery's messages print them. */
function goFormat(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormat).join(' ')}]`;
  if (isObject(value)) {
    return `map[${Object.keys(value)
      .sort()
      .map((key) => `${key}:${goFormat(value[key])}`)
      .join(' ')}]`;
  }
  // Decoded JSON: a string, number or boolean is left; numbers and booleans print as JSON writes them.
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The JSON type named in Go's json.UnmarshalTypeError. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

function noMergeKey(item: JsonObject, mergeKey: string): PatchError {
  return new PatchError(`map: ${goFormat(item)} does not contain declared merge key: ${mergeKey}`, 500);
}

function badArgType(expected: unknown, actual: unknown): PatchError {
  return new PatchError(`expected a ${goTypeName(expected)}, but received a ${goTypeName(actual)}`, 500);
}

function unknownPatchType(directive: unknown, map: JsonObject): PatchError {
  const shown = typeof directive === 'string' ? directive : `%!s(${goTypeName(directive)}=${goFormat(directive)})`;
  return new PatchError(`unknown patch type: ${shown} in map: ${goFormat(map)}`, 500);
}
