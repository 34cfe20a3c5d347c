// @ts-check
/**
 * Writes the table of Kubernetes' protobuf messages that apiserver/protobuf/schema.ts reads
 * (apiserver/protobuf/kubernetes/messages.json), from checkouts of k8s.io/api, k8s.io/apimachinery
 * and k8s.io/apiextensions-apiserver at one release. scripts/refresh-kubernetes-types.sh runs it.
 *
 *   node scripts/kubernetes-protobuf-messages.mjs RELEASE API_DIR APIMACHINERY_DIR APIEXTENSIONS_DIR > messages.json
 *
 * Two sources are read for each package because neither says everything: `generated.proto` gives
 * each message's field numbers, wire types and message types; the Go structs it was generated from
 * give what the JSON form needs and protobuf does not carry: the JSON name, `omitempty`, whether the
 * field is a pointer, and whether an embedded struct is inlined. They are matched by field number
 * (the Go struct tag `protobuf:"bytes,<number>,..."`), and anything that does not match stops the
 * script rather than writing a table that decodes a field wrongly.
 *
 * The table holds every message reachable from the kinds each package registers (its register.go's
 * addKnownTypes, and DeleteOptions, which every group version registers) in the packages of the
 * served API versions (v1, v2: no alpha or beta), plus the envelope (runtime.Unknown). Messages whose JSON is not their struct are marked: `custom` (the Go
 * type has its own MarshalJSON: Time, Quantity, IntOrString…; the decoder converts each by name) and
 * `lists` (a Go slice type such as `ExtraValue []string`, which protobuf wraps as `{items}`).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { checkoutsFromArgs, readKubernetesPackages } from './kubernetes-go-types.mjs';

/** @typedef {import('./kubernetes-go-types.mjs').GoPackage} GoPackage */
/** @typedef {import('./kubernetes-go-types.mjs').GoField} GoField */
/** @typedef {{ label: 'optional' | 'repeated' | 'map', type: string, keyType?: string, name: string, number: number }} ProtoField */
/**
 * A package with a generated.proto: its messages, and its structs' fields by protobuf number.
 * @typedef {GoPackage & { protoPackage: string, messages: Map<string, ProtoField[]>, protoFields: Map<string, Map<number, GoField>> }} Package
 */

const checkouts = checkoutsFromArgs('kubernetes-protobuf-messages.mjs');

/** @param {GoPackage} goPackage @returns {Package} */
function withProto(goPackage) {
  const proto = readFileSync(path.join(goPackage.dir, 'generated.proto'), 'utf8');
  const protoPackage = /^package ([\w.-]+);/m.exec(proto)?.[1];
  if (!protoPackage) throw new Error(`${goPackage.dir}/generated.proto names no package`);
  /** @type {Map<string, Map<number, GoField>>} */
  const protoFields = new Map();
  for (const [name, type] of goPackage.types) {
    if (type.kind !== 'struct') continue;
    const numbered = type.fields
      .filter((field) => field.tags.protobuf !== undefined && field.tags.protobuf !== '-')
      .map((field) => /** @type {[number, GoField]} */ ([Number(field.tags.protobuf.split(',')[1]), field]));
    protoFields.set(name, new Map(numbered));
  }
  return { ...goPackage, protoPackage, messages: parseProto(proto, protoPackage), protoFields };
}

/**
 * The messages of a generated.proto (go-to-protobuf writes no nested messages, enums or oneofs):
 * full name → fields, with every message type made fully qualified.
 * @param {string} text @param {string} protoPackage
 */
function parseProto(text, protoPackage) {
  const withoutComments = text.replace(/\/\/.*$/gm, '');
  /** @type {Map<string, ProtoField[]>} */
  const messages = new Map();
  for (const match of withoutComments.matchAll(/^message (\w+) \{([^}]*)\}/gm)) {
    const fields = [];
    for (const line of match[2]
      .split(';')
      .map((l) => l.trim())
      .filter(Boolean)) {
      const field =
        /^(optional|repeated) ([\w.]+) (\w+) = (\d+)(?: \[[^\]]*\])?$/.exec(line) ??
        /^(map)<(\w+), ([\w.]+)> (\w+) = (\d+)$/.exec(line);
      if (!field) throw new Error(`${protoPackage}.${match[1]}: cannot read field "${line}"`);
      if (field[1] === 'map') {
        fields.push({
          label: 'map',
          keyType: field[2],
          type: qualify(field[3], protoPackage),
          name: field[4],
          number: Number(field[5]),
        });
      } else {
        fields.push({
          label: field[1],
          type: qualify(field[2], protoPackage),
          name: field[3],
          number: Number(field[4]),
        });
      }
    }
    messages.set(`${protoPackage}.${match[1]}`, /** @type {ProtoField[]} */ (fields));
  }
  return messages;
}

const SCALARS = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'double']);

/** @param {string} type @param {string} protoPackage */
function qualify(type, protoPackage) {
  if (SCALARS.has(type)) return type;
  if (type.startsWith('.')) return type.slice(1);
  if (!/^[A-Z]\w*$/.test(type)) throw new Error(`unsupported proto type ${type}`);
  return `${protoPackage}.${type}`;
}

const packages = readKubernetesPackages(checkouts)
  .filter((pkg) => existsSync(path.join(pkg.dir, 'generated.proto')))
  .map(withProto);

/** @type {Map<string, { pkg: Package, fields: ProtoField[] }>} */
const allMessages = new Map();
for (const pkg of packages) for (const [name, fields] of pkg.messages) allMessages.set(name, { pkg, fields });

/** metav1.AddToGroupVersion registers DeleteOptions in every group version: the body of a typed client's DELETE. */
const DELETE_OPTIONS = 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions';

/** @type {Record<string, string>} */
const kinds = {};
const reachable = new Set(['k8s.io.apimachinery.pkg.runtime.Unknown', DELETE_OPTIONS]);
for (const pkg of packages) {
  const apiVersion = pkg.group ? `${pkg.group}/${pkg.version}` : pkg.version;
  for (const kind of pkg.kinds) {
    const message = `${pkg.protoPackage}.${kind}`;
    if (!allMessages.has(message)) throw new Error(`${pkg.dir}: kind ${kind} has no protobuf message`);
    kinds[`${apiVersion}/${kind}`] = message;
    reachable.add(message);
  }
  if (pkg.kinds.length) kinds[`${apiVersion}/DeleteOptions`] = DELETE_OPTIONS;
}
for (const name of reachable) {
  const found = allMessages.get(name);
  if (!found) throw new Error(`message ${name} is referenced but defined in no package read`);
  for (const field of found.fields) if (!SCALARS.has(field.type)) reachable.add(field.type);
}

/** @type {Record<string, Record<string, Record<string, unknown>>>} */
const messages = {};
const custom = [];
const lists = [];
for (const name of [...reachable].sort()) {
  const { pkg, fields } = /** @type {{ pkg: Package, fields: ProtoField[] }} */ (allMessages.get(name));
  const goName = name.slice(pkg.protoPackage.length + 1);
  const goType = pkg.types.get(goName);
  const slice = goType?.kind === 'named' && goType.type.startsWith('[]');
  /** @type {Record<string, Record<string, unknown>>} */
  const spec = {};
  if (pkg.custom.has(goName) || slice) {
    // The decoder gives these their JSON form from the protobuf fields, named as protobuf names them.
    (slice ? lists : custom).push(name);
    for (const field of fields) spec[field.number] = fieldSpec(field, field.name, {});
  } else {
    const goFields = pkg.protoFields.get(goName);
    if (!goFields) throw new Error(`${name}: no Go struct ${goName} in ${pkg.dir}`);
    for (const field of fields) {
      const go = goFields.get(field.number);
      if (!go) throw new Error(`${name}.${field.name} (${field.number}): no Go field carries that number`);
      if (go.json === '-') continue;
      spec[field.number] = fieldSpec(field, go.inline ? field.name : go.json || go.goName, {
        ...(go.inline ? { inline: true } : {}),
        // Go's JSON keeps a pointer that is set, and any field without omitempty, when it is zero.
        ...(!go.inline && (go.pointer || !go.omitempty) ? { emitZero: true } : {}),
      });
    }
  }
  messages[name] = spec;
}

/** @param {ProtoField} field @param {string} name @param {Record<string, unknown>} extra */
function fieldSpec(field, name, extra) {
  return {
    name,
    type: field.type,
    ...(field.label === 'repeated' ? { repeated: true } : {}),
    ...(field.label === 'map' ? { map: { key: field.keyType } } : {}),
    ...extra,
  };
}

// One message a line, so that a refresh shows as a readable diff.
const lines = Object.entries(messages).map(([name, spec]) => `    ${JSON.stringify(name)}: ${JSON.stringify(spec)}`);
process.stdout.write(
  [
    '{',
    `  "release": ${JSON.stringify(checkouts.release)},`,
    `  "kinds": ${JSON.stringify(kinds, null, 4).replace(/\n}$/, '\n  }')},`,
    `  "custom": ${JSON.stringify(custom.sort())},`,
    `  "lists": ${JSON.stringify(lists.sort())},`,
    '  "messages": {',
    lines.join(',\n'),
    '  }',
    '}',
    '',
  ].join('\n'),
);
