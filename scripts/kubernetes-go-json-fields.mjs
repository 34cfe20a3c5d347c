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
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const [release, apiDir, apimachineryDir, apiextensionsDir] = process.argv.slice(2);
if (!release || !apiDir || !apimachineryDir || !apiextensionsDir) {
  process.stderr.write('usage: kubernetes-go-json-fields.mjs RELEASE API_DIR APIMACHINERY_DIR APIEXTENSIONS_DIR\n');
  process.exit(2);
}

/** A served API version: v1, v2 (kube-apiserver 1.32 serves no beta API by default). */
const GA_VERSION = /^v\d+$/;

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

/**
 * @typedef {{ name: string | undefined, type: string, omitempty: boolean, embedded: boolean, skip: boolean }} GoField
 * @typedef {{ kind: 'struct', fields: GoField[] } | { kind: 'alias', type: string }} GoType
 * @typedef {{ id: string, group: string | undefined, version: string, types: Map<string, GoType>, imports: Map<string, Map<string, string>>, fileOf: Map<string, string>, custom: Set<string>, kinds: string[] }} Package
 */

/** Package ids by Go import path; the packages' own dirs are read below. */
const PACKAGE_IDS = new Map([
  ['k8s.io/apimachinery/pkg/apis/meta/v1', 'meta/v1'],
  ['k8s.io/apimachinery/pkg/runtime', 'runtime'],
  ['k8s.io/apimachinery/pkg/util/intstr', 'intstr'],
  ['k8s.io/apimachinery/pkg/api/resource', 'resource'],
  ['k8s.io/apimachinery/pkg/types', 'types'],
  ['k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1', 'apiextensions/v1'],
]);

/** @param {string} dir @param {string} id @param {boolean} registered */
function readPackage(dir, id, registered) {
  const names = readdirSync(dir).filter(
    (name) => name.endsWith('.go') && !name.endsWith('_test.go') && !name.startsWith('zz_generated'),
  );
  /** @type {Package} */
  const pkg = {
    id,
    group: undefined,
    version: path.basename(dir),
    types: new Map(),
    imports: new Map(),
    fileOf: new Map(),
    custom: new Set(),
    kinds: [],
  };
  for (const name of names) {
    const text = readFileSync(path.join(dir, name), 'utf8');
    pkg.imports.set(name, importsOf(text));
    for (const m of text.matchAll(/^func \(\w+ \*?(\w+)\) MarshalJSON\(\)/gm)) pkg.custom.add(m[1]);
    for (const [typeName, type] of typesOf(text)) {
      pkg.types.set(typeName, type);
      pkg.fileOf.set(typeName, name);
    }
  }
  if (registered) {
    const register = readFileSync(path.join(dir, 'register.go'), 'utf8');
    pkg.group = /const GroupName = "([^"]*)"/.exec(register)?.[1];
    const body = /func addKnownTypes\([^)]*\) error \{([\s\S]*?)\n\}/.exec(register)?.[1] ?? '';
    pkg.kinds = [...body.matchAll(/&(\w+)\{\}/g)].map((m) => m[1]).filter((kind) => !kind.endsWith('List'));
  }
  return pkg;
}

/** A file's imports: local name → package id (only the Kubernetes packages read here count). */
function importsOf(text) {
  /** @type {Map<string, string>} */
  const imports = new Map();
  const block = /^import \(([\s\S]*?)\n\)/m.exec(text)?.[1] ?? /^import (.*)$/m.exec(text)?.[1] ?? '';
  for (const m of block.matchAll(/(?:^|\n)\s*(\w+)?\s*"([^"]+)"/g)) {
    const importPath = m[2];
    const id = PACKAGE_IDS.get(importPath) ?? /^k8s\.io\/api\/(\w+\/v\w+)$/.exec(importPath)?.[1];
    if (id) imports.set(m[1] ?? importPath.split('/').pop(), id);
  }
  return imports;
}

/** @param {string} text @returns {[string, GoType][]} */
function typesOf(text) {
  /** @type {[string, GoType][]} */
  const types = [];
  for (const m of text.matchAll(/^type (\w+) (struct ?\{(?:\}|([\s\S]*?)\n\})|[^\n]+)/gm)) {
    if (!m[2].startsWith('struct')) {
      types.push([m[1], { kind: 'alias', type: m[2].replace(/\s*\/\/.*$/, '').trim() }]);
      continue;
    }
    /** @type {GoField[]} */
    const fields = [];
    for (const line of (m[3] ?? '').split('\n')) {
      const field = /^\t(?:(\w+) +)?([\w.*[\]]+) *(?:`([^`]*)`)?\s*(?:\/\/.*)?$/.exec(line);
      if (!field || line.trim().startsWith('//')) continue;
      const tags = Object.fromEntries([...(field[3] ?? '').matchAll(/(\w+):"([^"]*)"/g)].map((t) => [t[1], t[2]]));
      const [jsonName, ...options] = (tags.json ?? '').split(',');
      const embedded = field[1] === undefined;
      fields.push({
        name: jsonName || (embedded ? undefined : field[1]),
        type: field[2],
        omitempty: options.includes('omitempty'),
        embedded: embedded && !jsonName,
        skip: jsonName === '-' || (field[1] !== undefined && /^[a-z]/.test(field[1])),
      });
    }
    types.push([m[1], { kind: 'struct', fields }]);
  }
  return types;
}

const api = readdirSync(apiDir, { withFileTypes: true })
  .filter((group) => group.isDirectory() && !group.name.startsWith('.'))
  .flatMap((group) =>
    readdirSync(path.join(apiDir, group.name))
      .filter(
        (version) => GA_VERSION.test(version) && existsSync(path.join(apiDir, group.name, version, 'register.go')),
      )
      .map((version) => readPackage(path.join(apiDir, group.name, version), `${group.name}/${version}`, true)),
  );
/** @type {Package[]} */
const packages = [
  readPackage(path.join(apimachineryDir, 'pkg/apis/meta/v1'), 'meta/v1', false),
  readPackage(path.join(apimachineryDir, 'pkg/runtime'), 'runtime', false),
  readPackage(path.join(apimachineryDir, 'pkg/util/intstr'), 'intstr', false),
  readPackage(path.join(apimachineryDir, 'pkg/api/resource'), 'resource', false),
  readPackage(path.join(apimachineryDir, 'pkg/types'), 'types', false),
  ...api,
  readPackage(path.join(apiextensionsDir, 'pkg/apis/apiextensions/v1'), 'apiextensions/v1', true),
];
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
    if (field.skip) return [];
    const resolved = resolve(field.type, pkg, file);
    if (field.embedded) {
      if (resolved.of?.kind !== 'struct') throw new Error(`${pkg.id}.${local}: embeds ${field.type}`);
      const [id, embeddedLocal] = splitName(resolved.of.name);
      return jsonFields(/** @type {Package} */ (byId.get(id)), embeddedLocal);
    }
    return [{ name: /** @type {string} */ (field.name), field, type: resolved }];
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
process.stdout.write(`${JSON.stringify({ release, kinds: sorted(kinds), types: sorted(types) }, null, 1)}\n`);
