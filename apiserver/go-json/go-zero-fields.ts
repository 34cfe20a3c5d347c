/**
 * The fields kube-apiserver's answers carry that no client sent: kube decodes every object into its
 * Go struct and encodes it back, and Go's encoding/json prints a struct-typed field always
 * (`omitempty` does not apply to structs) and any field without `omitempty` even when zero. So a
 * created Deployment has `status: {}` and its template `metadata: {creationTimestamp: null}`, a
 * ClusterRole without rules `rules: null`, a DaemonSet `status.numberReady: 0`; a ConfigMap, whose
 * type has no such field, has none. Which fields those are, and what Go prints for each, comes from
 * Kubernetes' Go types (kubernetes/fields.json, written by scripts/refresh-kubernetes-types.sh
 * from k8s.io/api 1.32).
 */
import { readFileSync } from 'node:fs';
import { isObject, type Json } from '../json.js';

const TABLE_FILE = new URL('../../../apiserver/go-json/kubernetes/fields.json', import.meta.url);

/** What a field of a type holds for this purpose: its zero as Go prints it, and the struct type to look into. */
interface Field {
  name: string;
  /** Present when Go prints the field even if the client left it out (`null` included). */
  zero?: unknown;
  hasZero: boolean;
  /** The struct type of the field, or of its items (a list) or values (`map`). */
  of?: string;
  map: boolean;
}

interface Table {
  /** `group/version/Kind` → its Go type. */
  kinds: ReadonlyMap<string, string>;
  types: ReadonlyMap<string, readonly Field[]>;
}

let loaded: Table | undefined;

/** Read once per process, on first use. */
function table(): Table {
  if (loaded) return loaded;
  const file = JSON.parse(readFileSync(TABLE_FILE, 'utf8')) as {
    kinds: Record<string, string>;
    types: Record<string, Record<string, { zero?: unknown; of?: string; map?: boolean }>>;
  };
  const types = new Map(
    Object.entries(file.types).map(([type, fields]) => [
      type,
      Object.entries(fields).map(([name, field]) => ({
        name,
        zero: field.zero,
        hasZero: 'zero' in field,
        of: field.of,
        map: field.map === true,
      })),
    ]),
  );
  loaded = { kinds: new Map(Object.entries(file.kinds)), types };
  return loaded;
}

/**
 * Fills in, in place, what Go would print for `object` as a `group/version/Kind` that the client
 * left out: the object as kube-apiserver would store and answer it. Kinds Kubernetes does not
 * define (custom resources) are left as they are.
 */
export function fillGoZeroFields(group: string, version: string, kind: string, object: Json): void {
  const type = table().kinds.get(`${group}/${version}/${kind}`);
  if (type) fill(type, object);
}

function fill(type: string, value: unknown): void {
  if (!isObject(value)) return;
  for (const field of table().types.get(type) ?? []) {
    let child: unknown = value[field.name];
    if (child === undefined && field.hasZero) child = value[field.name] = isObject(field.zero) ? {} : field.zero;
    if (field.of === undefined || child === null || typeof child !== 'object') continue;
    if (Array.isArray(child)) for (const item of child) fill(field.of, item);
    else if (field.map) for (const item of Object.values(child)) fill(field.of, item);
    else fill(field.of, child);
  }
}
