/**
 * The protobuf messages of Kubernetes that Paddock reads: the one place their field numbers come
 * from. They are generated (scripts/refresh-kubernetes-types.sh) from the published
 * generated.proto files of k8s.io/api, k8s.io/apimachinery and k8s.io/apiextensions-apiserver and
 * the Go structs those were generated from, at one release (`kubernetes/messages.json`, Apache-2.0):
 * every message reachable from a kind of a served API version, its fields by number, each named by
 * its JSON name, with what Go's JSON encoding of it needs (FieldSpec).
 *
 * Two readers use them. The decoder (decode.ts) reads request bodies of any kind in the table
 * (TOP_LEVEL_MESSAGES), skipping fields the table does not know, as protobuf readers do. The
 * gateway's translation (translate/protobuf-fields.ts) picks, in any kind it translates, the fields
 * its rules touch.
 */
import { readFileSync } from 'node:fs';

export type ScalarType = 'string' | 'bytes' | 'int32' | 'int64' | 'bool' | 'double';

export interface FieldSpec {
  /** The JSON name; for an inlined struct, its protobuf name (the Go field's, in lower camel case). */
  name: string;
  /** A scalar type or the full name of a message in MESSAGES. For a map, the type of its values. */
  type: string;
  repeated?: true;
  /** A map field: the wire carries entries {key = 1, value = 2}; `type` is the value's type. */
  map?: { key: ScalarType };
  /**
   * Go's JSON keeps this field when it is zero: it is a pointer (on the wire only when set) or has
   * no `omitempty`. Other fields are dropped when zero or empty.
   */
  emitZero?: true;
  /** An embedded Go struct (`json:",inline"`): its fields appear directly in the parent object. */
  inline?: true;
  /**
   * Written by the server (a review's `status`, which kubectl fills with zero values, and
   * `metadata.managedFields`): the decoder skips it, so a client's copy never reaches the stored
   * object; translation still rewrites it.
   */
  serverOwned?: true;
}

export type MessageSpec = Readonly<Record<number, FieldSpec>>;

interface GeneratedTable {
  /** The k8s.io/api tag it was generated from. */
  release: string;
  /** `<apiVersion>/<Kind>` → message. */
  kinds: Record<string, string>;
  /** Messages whose Go type writes its own JSON (MarshalJSON): the decoder converts each by name. */
  custom: string[];
  /** Messages that are a Go slice type (`ExtraValue []string`): their JSON is the list of their `items`. */
  lists: string[];
  messages: Record<string, Record<string, FieldSpec>>;
}

const TABLE_FILE = new URL('../../../apiserver/protobuf/kubernetes/messages.json', import.meta.url);
const TABLE = JSON.parse(readFileSync(TABLE_FILE, 'utf8')) as GeneratedTable;

/** The Kubernetes release (k8s.io/api tag) the table was generated from. */
export const KUBERNETES_RELEASE = TABLE.release;

/** The proto packages of the messages: a message's full name is its package's prefix and its name. */
export const PACKAGES = {
  meta: 'k8s.io.apimachinery.pkg.apis.meta.v1.',
  runtime: 'k8s.io.apimachinery.pkg.runtime.',
  core: 'k8s.io.api.core.v1.',
  apps: 'k8s.io.api.apps.v1.',
  batch: 'k8s.io.api.batch.v1.',
  rbac: 'k8s.io.api.rbac.v1.',
  networking: 'k8s.io.api.networking.v1.',
  authorization: 'k8s.io.api.authorization.v1.',
  authentication: 'k8s.io.api.authentication.v1.',
  discovery: 'k8s.io.api.discovery.v1.',
  events: 'k8s.io.api.events.v1.',
  storage: 'k8s.io.api.storage.v1.',
  admissionregistration: 'k8s.io.api.admissionregistration.v1.',
  apiextensions: 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.',
} as const;

/** Every Kubernetes protobuf body starts with these four bytes, then a runtime.Unknown (ENVELOPE). */
export const MAGIC = Buffer.from('k8s\0', 'latin1');
/** runtime.Unknown: the object's typeMeta, its encoded bytes (`raw`) and their encoding. */
export const ENVELOPE = `${PACKAGES.runtime}Unknown`;
/** runtime.TypeMeta inside the envelope (not meta/v1 TypeMeta, which numbers the two the other way round). */
export const ENVELOPE_TYPE_META = `${PACKAGES.runtime}TypeMeta`;

/** Metadata is field 1 of every top-level kind. */
export const METADATA_FIELD = 1;

/** Messages whose JSON form is not an object of their fields: the decoder converts each by name. */
export const CUSTOM_JSON: ReadonlySet<string> = new Set(TABLE.custom);
/** Messages that stand for a Go slice (`{items}` on the wire, the list itself in JSON). */
export const LIST_MESSAGES: ReadonlySet<string> = new Set(TABLE.lists);

/** Paddock's own reading of a few fields: what the server owns, whatever a client sends. */
const SERVER_OWNED: readonly [message: string, field: string][] = [
  [`${PACKAGES.meta}ObjectMeta`, 'managedFields'],
  ...[
    `${PACKAGES.authorization}SelfSubjectAccessReview`,
    `${PACKAGES.authorization}SubjectAccessReview`,
    `${PACKAGES.authorization}LocalSubjectAccessReview`,
    `${PACKAGES.authorization}SelfSubjectRulesReview`,
    `${PACKAGES.authentication}SelfSubjectReview`,
    `${PACKAGES.authentication}TokenRequest`,
  ].map((review): [string, string] => [review, 'status']),
];

function buildMessages(): Readonly<Record<string, MessageSpec>> {
  const messages: Record<string, Record<number, FieldSpec>> = {};
  for (const [name, fields] of Object.entries(TABLE.messages)) {
    messages[name] = Object.fromEntries(Object.entries(fields).map(([number, field]) => [Number(number), field]));
  }
  for (const [message, name] of SERVER_OWNED) {
    const entry = Object.entries(messages[message]).find(([, field]) => field.name === name);
    if (entry === undefined) throw new Error(`protobuf schema: ${message} has no field ${name}`);
    messages[message][Number(entry[0])] = { ...entry[1], serverOwned: true };
  }
  return messages;
}

export const MESSAGES: Readonly<Record<string, MessageSpec>> = buildMessages();

/** A message's field numbers by JSON name. */
export function fieldNumbers(message: string): Readonly<Record<string, number>> {
  return Object.fromEntries(Object.entries(MESSAGES[message]).map(([number, field]) => [field.name, Number(number)]));
}

/**
 * `<apiVersion>/<kind>` → the message of that kind, for every kind its API version registers
 * (register.go's addKnownTypes) in the served versions of the built-in groups.
 */
export const TOP_LEVEL_MESSAGES: ReadonlyMap<string, string> = new Map(Object.entries(TABLE.kinds));
