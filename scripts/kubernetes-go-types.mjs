// @ts-check
/**
 * Reads Kubernetes' Go types from checkouts of k8s.io/api, k8s.io/apimachinery and
 * k8s.io/apiextensions-apiserver at one release: each package's structs (their fields' Go names,
 * types and tags: the JSON name, `omitempty`, `inline`, the protobuf number), its named types, the
 * types that write their own JSON, and the kinds its register.go registers. The generators
 * scripts/kubernetes-protobuf-messages.mjs and scripts/kubernetes-go-json-fields.mjs build their
 * tables from it; scripts/refresh-kubernetes-types.sh runs both.
 *
 * Go is read with regular expressions, which is enough for the gofmt'ed, generated-from-one-mould
 * type files of these packages: `type Name struct {...}` with one field a line, and
 * `type Name Other` for named types.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

/** A served API version: v1, v2 (kube-apiserver 1.32 serves no beta API by default). */
const GA_VERSION = /^v\d+$/;

/**
 * @typedef {{
 *   goName: string, embedded: boolean, type: string, pointer: boolean, tags: Record<string, string>,
 *   json: string | undefined, omitempty: boolean, inline: boolean
 * }} GoField `json` is the name in the json tag (undefined without one); `goName` of an embedded
 *   field is its type's name.
 * @typedef {{ kind: 'struct', fields: GoField[] } | { kind: 'named', type: string }} GoType
 * @typedef {{
 *   dir: string, id: string, group: string | undefined, version: string, types: Map<string, GoType>,
 *   imports: Map<string, Map<string, string>>, fileOf: Map<string, string>, custom: Set<string>, kinds: string[]
 * }} GoPackage `id` names it in the tables (`meta/v1`, `apps/v1`); `imports` maps each file's local
 *   import names to package ids; `custom` holds the types with a MarshalJSON of their own; `group`
 *   and `kinds` are set for the packages whose kinds are served.
 * @typedef {{ release: string, apiDir: string, apimachineryDir: string, apiextensionsDir: string }} Checkouts
 */

/** Package ids by Go import path; k8s.io/api's packages are `<group>/<version>`. */
const PACKAGE_IDS = new Map([
  ['k8s.io/apimachinery/pkg/apis/meta/v1', 'meta/v1'],
  ['k8s.io/apimachinery/pkg/runtime', 'runtime'],
  ['k8s.io/apimachinery/pkg/util/intstr', 'intstr'],
  ['k8s.io/apimachinery/pkg/api/resource', 'resource'],
  ['k8s.io/apimachinery/pkg/types', 'types'],
  ['k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1', 'apiextensions/v1'],
]);

/** The release and the three checkouts a generator is given on its command line, or its usage. */
export function checkoutsFromArgs(/** @type {string} */ script) {
  const [release, apiDir, apimachineryDir, apiextensionsDir] = process.argv.slice(2);
  if (!release || !apiDir || !apimachineryDir || !apiextensionsDir) {
    process.stderr.write(`usage: ${script} RELEASE API_DIR APIMACHINERY_DIR APIEXTENSIONS_DIR\n`);
    process.exit(2);
  }
  return /** @type {Checkouts} */ ({ release, apiDir, apimachineryDir, apiextensionsDir });
}

/**
 * The packages the tables are made from, in this order: apimachinery's meta/v1, runtime, intstr,
 * resource and types; every served version of k8s.io/api's groups; apiextensions/v1.
 * @param {Checkouts} checkouts @returns {GoPackage[]}
 */
export function readKubernetesPackages({ apiDir, apimachineryDir, apiextensionsDir }) {
  const api = readdirSync(apiDir, { withFileTypes: true })
    .filter((group) => group.isDirectory() && !group.name.startsWith('.'))
    .flatMap((group) =>
      readdirSync(path.join(apiDir, group.name))
        .filter(
          (version) => GA_VERSION.test(version) && existsSync(path.join(apiDir, group.name, version, 'register.go')),
        )
        .map((version) => readPackage(path.join(apiDir, group.name, version), `${group.name}/${version}`, true)),
    );
  return [
    readPackage(path.join(apimachineryDir, 'pkg/apis/meta/v1'), 'meta/v1', false),
    readPackage(path.join(apimachineryDir, 'pkg/runtime'), 'runtime', false),
    readPackage(path.join(apimachineryDir, 'pkg/util/intstr'), 'intstr', false),
    readPackage(path.join(apimachineryDir, 'pkg/api/resource'), 'resource', false),
    readPackage(path.join(apimachineryDir, 'pkg/types'), 'types', false),
    ...api,
    readPackage(path.join(apiextensionsDir, 'pkg/apis/apiextensions/v1'), 'apiextensions/v1', true),
  ];
}

/** @param {string} dir @param {string} id @param {boolean} registered whether its kinds are served */
function readPackage(dir, id, registered) {
  // Generated code declares no types of its own (deepcopy, protobuf marshalling, swagger docs).
  const names = readdirSync(dir).filter(
    (name) =>
      name.endsWith('.go') &&
      !name.endsWith('_test.go') &&
      !name.startsWith('zz_generated') &&
      !['generated.pb.go', 'types_swagger_doc_generated.go'].includes(name),
  );
  /** @type {GoPackage} */
  const pkg = {
    dir,
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
    // Lists are never a request's body, nor hold a type their items do not.
    const body = /func addKnownTypes\([^)]*\) error \{([\s\S]*?)\n\}/.exec(register)?.[1] ?? '';
    pkg.kinds = [...body.matchAll(/&(\w+)\{\}/g)].map((m) => m[1]).filter((kind) => !kind.endsWith('List'));
  }
  return pkg;
}

/** A file's imports: local name → package id (only the Kubernetes packages read here count). */
function importsOf(/** @type {string} */ text) {
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

/**
 * A file's type declarations. Field lines are `Name Type \`tags\`` or, embedded, `Type \`tags\``.
 * @param {string} text @returns {[string, GoType][]}
 */
function typesOf(text) {
  /** @type {[string, GoType][]} */
  const types = [];
  for (const m of text.matchAll(/^type (\w+) (struct ?\{(?:\}|([\s\S]*?)\n\})|[^\n]+)/gm)) {
    if (!m[2].startsWith('struct')) {
      types.push([m[1], { kind: 'named', type: m[2].replace(/\s*\/\/.*$/, '').trim() }]);
      continue;
    }
    /** @type {GoField[]} */
    const fields = [];
    for (const line of (m[3] ?? '').split('\n')) {
      const field = /^\t(?:(\w+) +)?([\w.*[\]]+) *(?:`([^`]*)`)?\s*(?:\/\/.*)?$/.exec(line);
      if (!field) continue;
      const type = field[2];
      const tags = Object.fromEntries([...(field[3] ?? '').matchAll(/(\w+):"([^"]*)"/g)].map((t) => [t[1], t[2]]));
      const [jsonName, ...options] = (tags.json ?? '').split(',');
      fields.push({
        goName: field[1] ?? type.replace(/^\*?(\w+\.)?/, ''),
        embedded: field[1] === undefined,
        type,
        pointer: type.startsWith('*'),
        tags,
        json: tags.json === undefined ? undefined : jsonName,
        omitempty: options.includes('omitempty'),
        inline: options.includes('inline'),
      });
    }
    types.push([m[1], { kind: 'struct', fields }]);
  }
  return types;
}
