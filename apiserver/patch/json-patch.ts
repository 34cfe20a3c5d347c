/**
 * JSON patch (RFC 6902) with the semantics of evanphx/json-patch v4, which kube-apiserver applies:
 * `replace` of a missing object member adds it, negative array indices count from the end, a
 * missing or null `value` is null, and `test` of a missing member against null passes. Paths are
 * resolved here, with v4's error messages; fast-json-patch performs each change.
 */
import jsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { cloneJson } from '../json.js';
import { PatchError } from './patch-error.js';

type JsonObject = { [key: string]: unknown };
type Container = JsonObject | unknown[];

/** kube-apiserver's maxJSONPatchOperations. */
export const maxJsonPatchOperations = 10000;

/** Where a path points: the object or array holding the target, and the target's key in it. */
interface Location {
  container: Container;
  key: string;
}

/** An operation failure; kube-apiserver hides its text behind a generic 422. */
class OperationError extends Error {}

/** Returns `document` patched by the operations of `patch`; `document` is not modified. */
export function applyJsonPatch(document: object, patch: unknown): unknown {
  const operations = decodeOperations(patch);
  if (operations.length > maxJsonPatchOperations) {
    throw new PatchError(
      `Request entity too large: The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${operations.length}`,
      413,
    );
  }
  const doc = { root: cloneJson(document) as unknown };
  for (const operation of operations) {
    try {
      applyOperation(doc, operation);
    } catch (err) {
      if (!(err instanceof OperationError)) throw err;
      throw PatchError.rejected(err.message);
    }
  }
  return doc.root;
}

function decodeOperations(patch: unknown): (JsonObject | null)[] {
  if (patch === null) return [];
  if (!Array.isArray(patch))
    throw new PatchError(`json: cannot unmarshal ${jsonKind(patch)} into Go value of type jsonpatch.Patch`, 400);
  for (const operation of patch) {
    if (operation !== null && (typeof operation !== 'object' || Array.isArray(operation))) {
      throw new PatchError(
        `json: cannot unmarshal ${jsonKind(operation)} into Go value of type jsonpatch.Operation`,
        400,
      );
    }
  }
  return patch as (JsonObject | null)[];
}

function applyOperation(doc: { root: unknown }, operation: JsonObject | null): void {
  const kind = typeof operation?.op === 'string' ? operation.op : 'unknown';
  const op = operation ?? {};
  switch (kind) {
    case 'add':
      return add(doc, op);
    case 'remove':
      return remove(doc, op);
    case 'replace':
      return replace(doc, op);
    case 'move':
      return move(doc, op);
    case 'test':
      return test(doc, op);
    case 'copy':
      return copy(doc, op);
    default:
      throw new OperationError(`Unexpected kind: ${kind}`);
  }
}

function add(doc: { root: unknown }, op: JsonObject): void {
  const path = pathOf(op, 'path');
  if (path instanceof Error) throw new OperationError('add operation failed to decode path: missing value');
  const location = find(doc.root, path);
  if (!location)
    throw new OperationError(`add operation does not apply: doc is missing path: "${path}": missing value`);
  const failure = insert(location, valueOf(op));
  if (failure) throw new OperationError(`error in add for path: '${path}': ${failure}`);
}

function remove(doc: { root: unknown }, op: JsonObject): void {
  const path = pathOf(op, 'path');
  if (path instanceof Error) throw new OperationError('remove operation failed to decode path: missing value');
  const location = find(doc.root, path);
  if (!location)
    throw new OperationError(`remove operation does not apply: doc is missing path: "${path}": missing value`);
  const failure = removeAt(location);
  if (failure) throw new OperationError(`error in remove for path: '${path}': ${failure}`);
}

function replace(doc: { root: unknown }, op: JsonObject): void {
  const path = pathOf(op, 'path');
  if (path instanceof Error) throw new OperationError(`replace operation failed to decode path: ${path.message}`);
  if (path === '') {
    const value = op.value;
    if (typeof value !== 'object' || value === null) {
      // v4 wraps a nil error here, which Go prints as %!w(<nil>).
      throw new OperationError('replace operation value must be object or array: %!w(<nil>)');
    }
    doc.root = cloneJson(value);
    return;
  }
  const location = find(doc.root, path);
  if (!location)
    throw new OperationError(`replace operation does not apply: doc is missing path: ${path}: missing value`);
  if (Array.isArray(location.container)) {
    const index = arrayIndex(location.container, location.key);
    if (typeof index === 'string')
      throw new OperationError(`replace operation does not apply: doc is missing key: ${path}: missing value`);
    change(location, String(index), 'replace', valueOf(op));
  } else {
    change(location, location.key, 'add', valueOf(op));
  }
}

function move(doc: { root: unknown }, op: JsonObject): void {
  const from = pathOf(op, 'from');
  if (from instanceof Error) throw new OperationError(`move operation failed to decode from: ${from.message}`);
  const source = find(doc.root, from);
  if (!source)
    throw new OperationError(`move operation does not apply: doc is missing from path: ${from}: missing value`);
  const value = get(source);
  if (value instanceof Error) throw new OperationError(`error in move for path: '${source.key}': ${value.message}`);
  const removeFailure = removeAt(source);
  if (removeFailure) throw new OperationError(`error in move for path: '${source.key}': ${removeFailure}`);
  const path = pathOf(op, 'path');
  if (path instanceof Error) throw new OperationError(`move operation failed to decode path: ${path.message}`);
  const destination = find(doc.root, path);
  if (!destination)
    throw new OperationError(`move operation does not apply: doc is missing destination path: ${path}: missing value`);
  const failure = insert(destination, value ?? null);
  if (failure) throw new OperationError(`error in move for path: '${path}': ${failure}`);
}

function test(doc: { root: unknown }, op: JsonObject): void {
  const path = pathOf(op, 'path');
  if (path instanceof Error) throw new OperationError(`test operation failed to decode path: ${path.message}`);
  let actual: unknown;
  if (path === '') {
    actual = doc.root;
  } else {
    const location = find(doc.root, path);
    if (!location) throw new OperationError(`test operation does not apply: is missing path: ${path}: missing value`);
    const value = get(location);
    if (value instanceof Error) throw new OperationError(`error in test for path: '${path}': ${value.message}`);
    actual = value ?? null;
  }
  const expected = op.value ?? null;
  const passed = actual === null || expected === null ? actual === expected : jsonPatch._areEquals(actual, expected);
  if (!passed) throw new OperationError(`testing value ${path} failed: test failed`);
}

function copy(doc: { root: unknown }, op: JsonObject): void {
  const from = pathOf(op, 'from');
  if (from instanceof Error) throw new OperationError(`copy operation failed to decode from: ${from.message}`);
  const source = find(doc.root, from);
  if (!source)
    throw new OperationError(`copy operation does not apply: doc is missing from path: ${from}: missing value`);
  const value = get(source);
  if (value instanceof Error) throw new OperationError(`error in copy for from: '${from}': ${value.message}`);
  const path = pathOf(op, 'path');
  if (path instanceof Error) throw new OperationError('copy operation failed to decode path: missing value');
  const destination = find(doc.root, path);
  if (!destination)
    throw new OperationError(`copy operation does not apply: doc is missing destination path: ${path}: missing value`);
  const failure = insert(destination, cloneJson(value ?? null));
  if (failure) throw new OperationError(`error while adding value during copy: ${failure}`);
}

/** The operation's `path` or `from`, or why it has none. */
function pathOf(op: JsonObject, member: 'path' | 'from'): string | Error {
  const value = op[member];
  if (value === undefined || value === null) {
    return new Error(
      member === 'path'
        ? 'operation missing path field: missing value'
        : 'operation, missing from field: missing value',
    );
  }
  if (typeof value !== 'string')
    return new Error(`json: cannot unmarshal ${jsonKind(value)} into Go value of type string`);
  return value;
}

/** A missing `value` adds null, as in v4. */
function valueOf(op: JsonObject): unknown {
  return cloneJson(op.value ?? null);
}

/** Resolves every token but the last; undefined when a parent is missing, null or a scalar. */
function find(root: unknown, path: string): Location | undefined {
  const tokens = path.split('/').map(unescapeToken);
  if (tokens.length < 2) return undefined;
  let node = root;
  for (const key of tokens.slice(1, -1)) {
    const next = isContainer(node) ? get({ container: node, key }) : undefined;
    if (next === undefined || next === null || next instanceof Error) return undefined;
    node = next;
  }
  return isContainer(node) ? { container: node, key: tokens[tokens.length - 1] } : undefined;
}

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/** The value at a location: undefined for a missing member, an Error for a bad array index. */
function get(location: Location): unknown {
  const { container, key } = location;
  if (!Array.isArray(container)) return Object.hasOwn(container, key) ? container[key] : undefined;
  const index = arrayIndex(container, key);
  return typeof index === 'string' ? new Error(index) : container[index];
}

/** v4's add: sets an object member, or inserts into an array at an index, `-` or a negative index. */
function insert(location: Location, value: unknown): string | undefined {
  const { container, key } = location;
  if (!Array.isArray(container) || key === '-') {
    change(location, key, 'add', value);
    return undefined;
  }
  const parsed = parseIndex(key);
  if (typeof parsed === 'string') return `value was not a proper array index: '${key}': ${parsed}`;
  const size = container.length + 1;
  if (parsed >= size || parsed < -size) return invalidIndex(parsed);
  change(location, String(parsed < 0 ? parsed + size : parsed), 'add', value);
  return undefined;
}

function removeAt(location: Location): string | undefined {
  const { container, key } = location;
  if (!Array.isArray(container)) {
    if (!Object.hasOwn(container, key)) return `Unable to remove nonexistent key: ${key}: missing value`;
    change(location, key, 'remove');
    return undefined;
  }
  const index = arrayIndex(container, key);
  if (typeof index === 'string') return index;
  change(location, String(index), 'remove');
  return undefined;
}

/** Performs a change whose container and key were checked above. */
function change(location: Location, key: string, op: 'add' | 'remove' | 'replace', value?: unknown): void {
  const path = `/${jsonPatch.escapePathComponent(key)}`;
  const operation = (op === 'remove' ? { op, path } : { op, path, value }) as Operation;
  try {
    jsonPatch.applyOperation(location.container, operation, false, true);
  } catch (err) {
    // fast-json-patch refuses keys such as __proto__, which v4 would store.
    throw new OperationError((err as Error).message);
  }
}

/** An existing element's index, negative ones counting from the end; otherwise v4's error text. */
function arrayIndex(array: unknown[], key: string): number | string {
  const parsed = parseIndex(key);
  if (typeof parsed === 'string') return parsed;
  if (parsed < -array.length || parsed >= array.length) return invalidIndex(parsed);
  return parsed < 0 ? parsed + array.length : parsed;
}

/** Go's strconv.Atoi, with its error text. */
function parseIndex(key: string): number | string {
  return /^[+-]?\d+$/.test(key) ? Number(key) : `strconv.Atoi: parsing "${key}": invalid syntax`;
}

function invalidIndex(index: number): string {
  return `Unable to access invalid index: ${index}: invalid index referenced`;
}

function unescapeToken(token: string): string {
  return token.replace(/~[01]/g, (escape) => (escape === '~1' ? '/' : '~'));
}

/** The JSON type named in Go's json.UnmarshalTypeError. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}
