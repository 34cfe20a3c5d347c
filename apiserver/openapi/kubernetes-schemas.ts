/**
 * The schemas of Kubernetes' built-in types, from the OpenAPI document Kubernetes publishes for
 * its release (`apiserver/openapi/kubernetes/swagger.json.gz`, release 1.32, Apache-2.0; refreshed
 * by `scripts/refresh-kubernetes-openapi.sh`). That document is OpenAPI v2; kube-apiserver's v3
 * documents are built from the same definitions, so each is re-expressed as kube-openapi writes it
 * in v3: references under `#/components/schemas/`, and a reference that carries other keywords
 * (a description) wrapped in `allOf`. No npm package ships these documents (docs/devcluster.md).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { isObject, type Json } from '../json.js';

const SPEC_FILE = new URL('../../../apiserver/openapi/kubernetes/swagger.json.gz', import.meta.url);
const V2_REF = '#/definitions/';
export const SCHEMA_REF = '#/components/schemas/';
export const GVK_EXTENSION = 'x-kubernetes-group-version-kind';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

interface KubernetesSchemas {
  /** v3 form of every definition, by kube's name (`io.k8s.api.apps.v1.Deployment`). */
  schemas: ReadonlyMap<string, Json>;
  /** `group/version/Kind` → the name of its schema. */
  byKind: ReadonlyMap<string, string>;
}

let loaded: KubernetesSchemas | undefined;

/** Read once per process, on first use: a server whose OpenAPI nobody asks for never parses the 3 MB. */
function kubernetesSchemas(): KubernetesSchemas {
  if (loaded) return loaded;
  const spec = JSON.parse(gunzipSync(readFileSync(SPEC_FILE)).toString('utf8'));
  const schemas = new Map<string, Json>();
  const byKind = new Map<string, string>();
  for (const [name, definition] of Object.entries<unknown>(spec.definitions ?? {})) {
    const schema = toV3(definition);
    schemas.set(name, schema);
    const gvks: unknown = schema[GVK_EXTENSION];
    for (const gvk of Array.isArray(gvks) ? gvks : []) {
      const key = kindKey(gvk);
      // DeleteOptions and friends name every group; a kind's own schema is the one to find.
      if (key && !byKind.has(key)) byKind.set(key, name);
    }
  }
  loaded = { schemas, byKind };
  return loaded;
}

function kindKey(gvk: unknown): string | undefined {
  if (!isObject(gvk)) return undefined;
  return `${String(gvk.group)}/${String(gvk.version)}/${String(gvk.kind)}`;
}

/** One v2 schema in the form kube-openapi gives it in v3. */
function toV3(node: unknown): any {
  if (Array.isArray(node)) return node.map(toV3);
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === '$ref' && typeof value === 'string' ? value.replace(V2_REF, SCHEMA_REF) : toV3(value);
  }
  if (typeof out.$ref === 'string' && Object.keys(out).length > 1) {
    const { $ref, ...rest } = out;
    return { allOf: [{ $ref }], ...rest };
  }
  return out;
}

/** The name of the schema of a built-in kind, if Kubernetes publishes one. */
export function kubernetesSchemaName(gvk: GroupVersionKind): string | undefined {
  return kubernetesSchemas().byKind.get(`${gvk.group}/${gvk.version}/${gvk.kind}`);
}

/** A built-in schema by name; callers must not change it (it is shared by every document). */
export function kubernetesSchema(name: string): Json | undefined {
  return kubernetesSchemas().schemas.get(name);
}

/**
 * The named built-in schemas and every schema they reference, transitively, as a v3
 * `components.schemas` object: what a document needs for its references to resolve.
 */
export function kubernetesSchemasWithReferences(names: Iterable<string>): Record<string, Json> {
  const { schemas } = kubernetesSchemas();
  const out: Record<string, Json> = {};
  const pending = [...names];
  while (pending.length) {
    const name = pending.pop()!;
    const schema = schemas.get(name);
    if (out[name] || !schema) continue;
    out[name] = schema;
    pending.push(...referencedNames(schema));
  }
  return out;
}

/** The schema names a schema refers to with `$ref`. */
export function referencedNames(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(referencedNames);
  if (!isObject(node)) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_REF)
      ? [value.slice(SCHEMA_REF.length)]
      : referencedNames(value),
  );
}
