// @ts-check
/**
 * Writes the table of what Go's encoding/json prints for Kubernetes' types even when a client never
 * sent it (apiserver/go-json/kubernetes/fields.json), from checkouts of k8s.io/api,
 * k8s.io/apimachinery and k8s.io/apiextensions-apiserver at one release:
 *
 *   node scripts/kubernetes-go-json-fields.mjs RELEASE API_DIR APIMACHINERY_DIR APIEXTENSIONS_DIR > fields.json
 *
 * kube-apiserver decodes every object into its Go struct and encodes it back, so its answers carry
 * the struct's zero values wherever Go prints them: a field whose type is a struct (not a pointer)
 * is always printed, `omitempty` or not (`status: {}`, `resources: {}`, a pod template's
 * `metadata: {creationTimestamp: null}`), and so is any field without `omitempty` (`rules: null`,
 * `reportingComponent: ""`, `replicas: 0`). Neither OpenAPI nor protobuf says which fields those
 * are: only the Go types do. For every type reachable from a registered kind the table lists those
 * fields with the value Go prints for them when zero (`zero`), and the fields that hold structs to
 * look into (`of`, with `map` for a map of them).
 */
import process from 'node:process';
import { checkoutsFromArgs, readKubernetesPackages } from './kubernetes-go-types.mjs';

/** @typedef {import('./kubernetes-go-types.mjs').GoPackage} Package */
/** @typedef {import('./kubernetes-go-types.mjs').GoField} GoField */

const checkouts = checkoutsFromArgs('kubernetes-go-json-fields.mjs');

/**
 * Types that write their own JSON, by package-qualified name, and what each prints when zero.
 * Another type with a MarshalJSON stops the script: its zero must be looked up first.
 */
const CUSTOM_ZERO = new Map([
  ['meta/v1.Time', null],
  ['meta/v1.MicroTime', null],
  ['meta/v1.Duration', '0s'],
  ['meta/v1.FieldsV1', null],
  ['resource.Quantity', '0'],
  ['intstr.IntOrString', 0],
  ['runtime.RawExtension', null],
  ['apiextensions/v1.JSON', null],
  ['apiextensions/v1.JSONSchemaPropsOrBool', false],
  ['apiextensions/v1.JSONSchemaPropsOrStringArray', null],
  ['apiextensions/v1.JSONSchemaPropsOrArray', null],
]);

const GO_SCALARS = new Map([
  ['string', ''],
  ['bool', false],
  ...['int', 'int32', 'int64', 'uint', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64', 'byte'].map(
    (name) => /** @type {[string, number]} */ ([name, 0]),
  ),
]);

const packages = readKubernetesPackages(checkouts);
const byId = new Map(packages.map((pkg) => [pkg.id, pkg]));

/**
 * A Go type expression in `pkg` (a file's imports resolve qualified names), resolved to what JSON
 * sees: a pointer, a slice, a map, a struct (by qualified name), a custom type, or a scalar.
 * @param {string} expr @param {Package} pkg @param {string} file
 * @returns {{ pointer?: boolean, slice?: boolean, map?: boolean, of?: Resolved }}
 * @typedef {{ kind: 'struct' | 'custom' | 'scalar', name: string, zero?: unknown }} Resolved
 */
function resolve(expr, pkg, file) {
  if (expr.startsWith('*')) return { ...resolve(expr.slice(1), pkg, file), pointer: true };
  if (expr.startsWith('[]')) return { slice: true, of: resolve(expr.slice(2), pkg, file).of };
  const map = /^map\[[^\]]+\](.+)$/.exec(expr);
  if (map) return { map: true, of: resolve(map[1], pkg, file).of };
  if (GO_SCALARS.has(expr)) return { of: { kind: 'scalar', name: expr, zero: GO_SCALARS.get(expr) } };
  const [qualifier, local] = expr.includes('.') ? expr.split('.') : [undefined, expr];
  const owner = qualifier ? byId.get(pkg.imports.get(file)?.get(qualifier) ?? '') : pkg;
  if (!owner) throw new Error(`${pkg.id} ${file}: cannot resolve ${expr}`);
  const name = `${owner.id}.${local}`;
  if (owner.custom.has(local)) {
    if (!CUSTOM_ZERO.has(name)) throw new Error(`${name} writes its own JSON: add what it prints when zero`);
    return { of: { kind: 'custom', name, zero: CUSTOM_ZERO.get(name) } };
  }
  const type = owner.types.get(local);
  if (!type) throw new Error(`${pkg.id} ${file}: no type ${expr}`);
  if (type.kind === 'struct') return { of: { kind: 'struct', name } };
  // A named type: JSON sees what it is declared as (a string, a slice, a map).
  return resolve(type.type, owner, owner.fileOf.get(local) ?? file);
}

/**
 * The JSON fields of a struct, embedded (inlined) structs' fields promoted, as encoding/json sees them.
 * @param {Package} pkg @param {string} local
 * @returns {{ name: string, field: GoField, type: ReturnType<typeof resolve> }[]}
 */
function jsonFields(pkg, local) {
  const type = pkg.types.get(local);
  if (!type || type.kind !== 'struct') throw new Error(`${pkg.id}.${local} is no struct`);
  const file = pkg.fileOf.get(local) ?? '';
  return type.fields.flatMap((field) => {
    // encoding/json leaves out unexported fields and `json:"-"`, and promotes an embedded struct's
    // fields unless its tag names it.
    if (field.json === '-' || (!field.embedded && /^[a-z]/.test(field.goName))) return [];
    const resolved = resolve(field.type, pkg, file);
    if (field.embedded && !field.json) {
      if (resolved.of?.kind !== 'struct') throw new Error(`${pkg.id}.${local}: embeds ${field.type}`);
      const [id, embeddedLocal] = splitName(resolved.of.name);
      return jsonFields(/** @type {Package} */ (byId.get(id)), embeddedLocal);
    }
    return [{ name: field.json || field.goName, field, type: resolved }];
  });
}

/** @param {string} name @returns {[string, string]} */
function splitName(name) {
  const dot = name.lastIndexOf('.');
  return [name.slice(0, dot), name.slice(dot + 1)];
}

/** What Go prints for a field the client left unset, or undefined when it leaves it out. */
function zeroOf(field, type) {
  if (type.pointer || type.slice || type.map) return field.omitempty ? undefined : null;
  const of = type.of;
  if (of.kind === 'struct') return {};
  if (of.kind === 'custom') return of.zero;
  return field.omitempty ? undefined : of.zero;
}

/** @type {Record<string, string>} */
const kinds = {};
/** @type {Record<string, Record<string, { zero?: unknown, of?: string, map?: true }>>} */
const types = {};
const pending = [];
for (const pkg of packages) {
  if (pkg.group === undefined) continue;
  for (const kind of pkg.kinds) {
    kinds[`${pkg.group}/${pkg.version}/${kind}`] = `${pkg.id}.${kind}`;
    pending.push(`${pkg.id}.${kind}`);
  }
}
while (pending.length) {
  const name = /** @type {string} */ (pending.pop());
  if (types[name]) continue;
  const [id, local] = splitName(name);
  /** @type {Record<string, { zero?: unknown, of?: string, map?: true }>} */
  const entries = {};
  for (const { name: jsonName, field, type } of jsonFields(/** @type {Package} */ (byId.get(id)), local)) {
    /** @type {{ zero?: unknown, of?: string, map?: true }} */
    const entry = {};
    const zero = zeroOf(field, type);
    if (zero !== undefined) entry.zero = zero;
    if (type.of?.kind === 'struct') {
      entry.of = type.of.name;
      if (type.map) entry.map = true;
      pending.push(type.of.name);
    }
    if (Object.keys(entry).length) entries[jsonName] = entry;
  }
  types[name] = entries;
}

const sorted = (record) => Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
process.stdout.write(
  `${JSON.stringify({ release: checkouts.release, kinds: sorted(kinds), types: sorted(types) }, null, 1)}\n`,
);
