// @ts-check
/**
 * Writes the table of Kubernetes' protobuf messages that apiserver/protobuf/schema.ts reads
 * (apiserver/protobuf/kubernetes/messages.json), from checkouts of k8s.io/api, k8s.io/apimachinery
 * and k8s.io/apiextensions-apiserver at one release. scripts/refresh-kubernetes-protobuf.sh runs it.
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
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const [release, apiDir, apimachineryDir, apiextensionsDir] = process.argv.slice(2);
if (!release || !apiDir || !apimachineryDir || !apiextensionsDir) {
  process.stderr.write('usage: kubernetes-protobuf-messages.mjs RELEASE API_DIR APIMACHINERY_DIR APIEXTENSIONS_DIR\n');
  process.exit(2);
}

/** A served API version: v1, v2 (kube-apiserver 1.32 serves no beta API by default). */
const GA_VERSION = /^v\d+$/;

/** @typedef {{ label: 'optional' | 'repeated' | 'map', type: string, keyType?: string, name: string, number: number }} ProtoField */
/** @typedef {{ goName: string, goType: string, json: string | undefined, omitempty: boolean, inline: boolean }} GoField */
/** @typedef {{ kind: 'struct', fields: Map<number, GoField> } | { kind: 'slice' } | { kind: 'other' }} GoType */
/**
 * @typedef {{
 *   dir: string, protoPackage: string, group: string | undefined, version: string,
 *   messages: Map<string, ProtoField[]>, goTypes: Map<string, GoType>, customJson: Set<string>, kinds: string[]
 * }} Package
 */

/** @param {string} dir @param {boolean} registered whether its kinds are served (register.go) */
function readPackage(dir, registered) {
  const proto = readFileSync(path.join(dir, 'generated.proto'), 'utf8');
  const protoPackage = /^package ([\w.-]+);/m.exec(proto)?.[1];
  if (!protoPackage) throw new Error(`${dir}/generated.proto names no package`);
  const goFiles = readdirSync(dir)
    .filter((name) => name.endsWith('.go') && !name.endsWith('_test.go') && !name.startsWith('zz_generated'))
    .filter((name) => !['generated.pb.go', 'types_swagger_doc_generated.go'].includes(name))
    .map((name) => readFileSync(path.join(dir, name), 'utf8'));
  const register = path.join(dir, 'register.go');
  const registerText = existsSync(register) ? readFileSync(register, 'utf8') : '';
  return /** @type {Package} */ ({
    dir,
    protoPackage,
    group: registered ? /const GroupName = "([^"]*)"/.exec(registerText)?.[1] : undefined,
    version: path.basename(dir),
    messages: parseProto(proto, protoPackage),
    goTypes: parseGoTypes(goFiles),
    customJson: new Set(
      goFiles.flatMap((text) => [...text.matchAll(/^func \(\w+ \*?(\w+)\) MarshalJSON\(\)/gm)].map((m) => m[1])),
    ),
    kinds: registered ? knownTypes(registerText) : [],
  });
}

/** The types register.go's addKnownTypes registers: the package's kinds, less lists (never a request's body). */
function knownTypes(registerText) {
  const body = /func addKnownTypes\([^)]*\) error \{([\s\S]*?)\n\}/.exec(registerText)?.[1] ?? '';
  return [...body.matchAll(/&(\w+)\{\}/g)].map((m) => m[1]).filter((kind) => !kind.endsWith('List'));
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

/**
 * The Go types of a package: structs with the fields that carry a protobuf number, and which
 * types are slices. Go field lines are `Name Type \`tags\`` or, embedded, `Type \`tags\``.
 * @param {string[]} files
 */
function parseGoTypes(files) {
  /** @type {Map<string, GoType>} */
  const types = new Map();
  for (const text of files) {
    for (const match of text.matchAll(/^type (\w+) (struct ?\{(?:\}|([\s\S]*?)\n\})|\[\]\S+|\S+)/gm)) {
      if (!match[2].startsWith('struct')) {
        types.set(match[1], { kind: match[2].startsWith('[]') ? 'slice' : 'other' });
        continue;
      }
      /** @type {Map<number, GoField>} */
      const fields = new Map();
      for (const line of (match[3] ?? '').split('\n')) {
        const field = /^\t(?:(\w+) +)?([\w.*[\]]+) +`([^`]*)`/.exec(line);
        if (!field) continue;
        const tags = Object.fromEntries([...field[3].matchAll(/(\w+):"([^"]*)"/g)].map((m) => [m[1], m[2]]));
        if (tags.protobuf === undefined || tags.protobuf === '-') continue;
        const number = Number(tags.protobuf.split(',')[1]);
        const [jsonName, ...options] = (tags.json ?? '').split(',');
        const goType = field[2];
        fields.set(number, {
          goName: field[1] ?? goType.replace(/^\*?(\w+\.)?/, ''),
          goType,
          json: tags.json === undefined ? undefined : jsonName,
          omitempty: options.includes('omitempty'),
          inline: options.includes('inline'),
        });
      }
      types.set(match[1], { kind: 'struct', fields });
    }
  }
  return types;
}

const api = readdirSync(apiDir, { withFileTypes: true })
  .filter((group) => group.isDirectory() && !group.name.startsWith('.'))
  .flatMap((group) =>
    readdirSync(path.join(apiDir, group.name))
      .filter(
        (version) => GA_VERSION.test(version) && existsSync(path.join(apiDir, group.name, version, 'generated.proto')),
      )
      .map((version) => readPackage(path.join(apiDir, group.name, version), true)),
  );
const packages = [
  ...['pkg/apis/meta/v1', 'pkg/runtime', 'pkg/util/intstr', 'pkg/api/resource'].map((dir) =>
    readPackage(path.join(apimachineryDir, dir), false),
  ),
  ...api,
  readPackage(path.join(apiextensionsDir, 'pkg/apis/apiextensions/v1'), true),
];

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
  const goType = pkg.goTypes.get(goName);
  /** @type {Record<string, Record<string, unknown>>} */
  const spec = {};
  if (pkg.customJson.has(goName) || goType?.kind === 'slice') {
    // The decoder gives these their JSON form from the protobuf fields, named as protobuf names them.
    (goType?.kind === 'slice' ? lists : custom).push(name);
    for (const field of fields) spec[field.number] = fieldSpec(field, field.name, {});
  } else {
    if (goType?.kind !== 'struct') throw new Error(`${name}: no Go struct ${goName} in ${pkg.dir}`);
    for (const field of fields) {
      const go = goType.fields.get(field.number);
      if (!go) throw new Error(`${name}.${field.name} (${field.number}): no Go field carries that number`);
      if (go.json === '-') continue;
      const pointer = go.goType.startsWith('*');
      spec[field.number] = fieldSpec(field, go.inline ? field.name : go.json || go.goName, {
        ...(go.inline ? { inline: true } : {}),
        // Go's JSON keeps a pointer that is set, and any field without omitempty, when it is zero.
        ...(!go.inline && (pointer || !go.omitempty) ? { emitZero: true } : {}),
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
    `  "release": ${JSON.stringify(release)},`,
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
