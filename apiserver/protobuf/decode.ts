/**
 * Decodes `application/vnd.kubernetes.protobuf` request bodies into the JSON objects a JSON request
 * would have carried. kubectl sends every `create <generator>`, `create token` and `auth` review this
 * way and never retries in JSON (docs/design.md, "What kubectl needs"), so the server must read them.
 * Pure: bytes in, object out.
 *
 * Field presence follows Go's JSON encoding of the typed object, with three deliberate differences
 * that keep the stored object free of noise Go would print: empty non-pointer structs (`"status":{}`,
 * `"resources":{}`) are dropped, a zero Time is dropped instead of printed as null, and an empty list
 * without `omitempty` is dropped instead of printed as null.
 */
import {
  ENVELOPE,
  ENVELOPE_TYPE_META,
  fieldNumbers,
  MAGIC,
  MESSAGES,
  TOP_LEVEL_MESSAGES,
  WELL_KNOWN,
  type FieldSpec,
} from './schema.js';
import { WireFormatError, WireReader, WireType } from './wire.js';

/** Bad magic, malformed wire data, or a kind this decoder does not know. */
export class ProtobufDecodeError extends Error {
  override name = 'ProtobufDecodeError';
}

export interface DecodedObject {
  apiVersion: string;
  kind: string;
  object: Record<string, unknown>;
}

export function decodeKubernetesProtobuf(body: Buffer): DecodedObject {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new ProtobufDecodeError('not a Kubernetes protobuf body: it does not start with "k8s\\0"');
  }
  try {
    const envelope = readEnvelope(body.subarray(MAGIC.length));
    const message = TOP_LEVEL_MESSAGES.get(`${envelope.apiVersion}/${envelope.kind}`);
    if (message === undefined) {
      throw new ProtobufDecodeError(
        `protobuf bodies of kind "${envelope.kind}" (apiVersion "${envelope.apiVersion}") are not supported; send JSON`,
      );
    }
    const { apiVersion, kind, raw } = envelope;
    const fields = decodeMessage(raw, message) as Record<string, unknown>;
    return { apiVersion, kind, object: { apiVersion, kind, ...fields } };
  } catch (err) {
    if (err instanceof WireFormatError) throw new ProtobufDecodeError(`malformed protobuf body: ${err.message}`);
    throw err;
  }
}

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
}

const UNKNOWN = fieldNumbers(ENVELOPE);
const TYPE_META = fieldNumbers(ENVELOPE_TYPE_META);

/** runtime.Unknown: its typeMeta, raw and contentEncoding (contentType says nothing kubectl's bodies need). */
function readEnvelope(bytes: Uint8Array): Envelope {
  const envelope: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array() };
  let contentEncoding = '';
  const reader = new WireReader(bytes);
  while (!reader.done) {
    const { field, wireType } = reader.tag();
    if (field === UNKNOWN.typeMeta && wireType === WireType.LengthDelimited) {
      const typeMeta = new WireReader(reader.lengthDelimited());
      while (!typeMeta.done) {
        const inner = typeMeta.tag();
        if (inner.field === TYPE_META.apiVersion && inner.wireType === WireType.LengthDelimited)
          envelope.apiVersion = text(typeMeta.lengthDelimited());
        else if (inner.field === TYPE_META.kind && inner.wireType === WireType.LengthDelimited)
          envelope.kind = text(typeMeta.lengthDelimited());
        else typeMeta.skip(inner.wireType);
      }
    } else if (field === UNKNOWN.raw && wireType === WireType.LengthDelimited) envelope.raw = reader.lengthDelimited();
    else if (field === UNKNOWN.contentEncoding && wireType === WireType.LengthDelimited)
      contentEncoding = text(reader.lengthDelimited());
    else reader.skip(wireType);
  }
  if (envelope.kind === '' || envelope.apiVersion === '')
    throw new ProtobufDecodeError('protobuf body names no apiVersion and kind');
  // The apiserver's protobuf serializer never compresses `raw`; an encoding means a client we cannot read.
  if (contentEncoding !== '')
    throw new ProtobufDecodeError(`protobuf bodies with contentEncoding "${contentEncoding}" are not supported`);
  return envelope;
}

/** Message name → how it appears in JSON, given its fields that were on the wire. */
const WELL_KNOWN_JSON: Readonly<Record<string, (present: Record<string, unknown>) => unknown>> = {
  // The apiserver writes a zero Time as an empty message; Go prints it as null, so it is unset here.
  [WELL_KNOWN.time]: ({ seconds }) => (seconds === undefined ? undefined : rfc3339(seconds as number)),
  [WELL_KNOWN.quantity]: (present) => present.string ?? '',
  // type 1 is intstr.String; 0 (or absent) is intstr.Int.
  [WELL_KNOWN.intOrString]: ({ type, intVal, strVal }) => (type === 1 ? (strVal ?? '') : (intVal ?? 0)),
  // authorization ExtraValue is `[]string` in Go, so JSON prints the list itself.
  [WELL_KNOWN.extraValue]: (present) => present.items ?? [],
};

function decodeMessage(bytes: Uint8Array, messageName: string): unknown {
  const spec = MESSAGES[messageName];
  if (spec === undefined) throw new Error(`protobuf schema has no message ${messageName}`);
  const present = new Map<FieldSpec, unknown>();
  const reader = new WireReader(bytes);
  while (!reader.done) {
    const { field, wireType } = reader.tag();
    const fieldSpec: FieldSpec | undefined = spec[field];
    if (fieldSpec === undefined || fieldSpec.serverOwned) {
      reader.skip(wireType);
      continue;
    }
    if (fieldSpec.map || fieldSpec.repeated) {
      const items = (present.get(fieldSpec) as unknown[] | undefined) ?? [];
      items.push(
        fieldSpec.map
          ? readMapEntry(reader, fieldSpec, messageName, wireType)
          : readValue(reader, fieldSpec.type, `${messageName}.${fieldSpec.name}`, wireType),
      );
      present.set(fieldSpec, items);
    } else {
      present.set(fieldSpec, readValue(reader, fieldSpec.type, `${messageName}.${fieldSpec.name}`, wireType));
    }
  }
  // Object.fromEntries defines keys such as "__proto__" as plain properties, as JSON.parse does.
  for (const [fieldSpec, entries] of present) {
    if (fieldSpec.map) present.set(fieldSpec, Object.fromEntries(entries as [string, unknown][]));
  }

  const wellKnown = WELL_KNOWN_JSON[messageName];
  if (wellKnown)
    return wellKnown(Object.fromEntries([...present].map(([fieldSpec, value]) => [fieldSpec.name, value])));
  const json: Record<string, unknown> = {};
  for (const [fieldSpec, value] of present) {
    if (fieldSpec.inline) Object.assign(json, value);
    else if (value !== undefined && (fieldSpec.emitZero || !isZero(value))) json[fieldSpec.name] = value;
  }
  return json;
}

/** A map entry is a message {key = 1, value = 2}; either may be absent, meaning its zero value. */
function readMapEntry(
  reader: WireReader,
  fieldSpec: FieldSpec,
  messageName: string,
  wireType: WireType,
): [string, unknown] {
  const where = `${messageName}.${fieldSpec.name}`;
  expectWireType(wireType, WireType.LengthDelimited, where);
  const entry = new WireReader(reader.lengthDelimited());
  let key: unknown = zeroOf(fieldSpec.map!.key);
  let value: unknown;
  while (!entry.done) {
    const tag = entry.tag();
    if (tag.field === 1) key = readValue(entry, fieldSpec.map!.key, `${where} key`, tag.wireType);
    else if (tag.field === 2) value = readValue(entry, fieldSpec.type, `${where} value`, tag.wireType);
    else entry.skip(tag.wireType);
  }
  return [
    String(key),
    value ?? (isScalar(fieldSpec.type) ? zeroOf(fieldSpec.type) : decodeMessage(new Uint8Array(), fieldSpec.type)),
  ];
}

function readValue(reader: WireReader, type: string, where: string, wireType: WireType): unknown {
  switch (type) {
    case 'string':
      expectWireType(wireType, WireType.LengthDelimited, where);
      return text(reader.lengthDelimited());
    case 'bytes':
      expectWireType(wireType, WireType.LengthDelimited, where);
      return Buffer.from(reader.lengthDelimited()).toString('base64');
    case 'bool':
      expectWireType(wireType, WireType.Varint, where);
      return reader.varint() !== 0n;
    case 'int32':
      expectWireType(wireType, WireType.Varint, where);
      // Negative int32 values are sign-extended to 64 bits on the wire.
      return Number(BigInt.asIntN(32, reader.varint()));
    case 'int64': {
      expectWireType(wireType, WireType.Varint, where);
      const value = BigInt.asIntN(64, reader.varint());
      if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
        throw new ProtobufDecodeError(`${where} is ${value}, beyond what JSON numbers hold exactly`);
      }
      return Number(value);
    }
    default:
      expectWireType(wireType, WireType.LengthDelimited, where);
      return decodeMessage(reader.lengthDelimited(), type);
  }
}

function expectWireType(actual: WireType, expected: WireType, where: string): void {
  if (actual !== expected) {
    throw new ProtobufDecodeError(
      `malformed protobuf body: ${where} has wire type ${WireType[actual]}, expected ${WireType[expected]}`,
    );
  }
}

function isScalar(type: string): boolean {
  return type === 'string' || type === 'bytes' || type === 'bool' || type === 'int32' || type === 'int64';
}

function zeroOf(type: string): unknown {
  if (type === 'bool') return false;
  if (type === 'int32' || type === 'int64') return 0;
  return '';
}

/** Go's `omitempty` test, extended to empty objects (see the file comment). */
function isZero(value: unknown): boolean {
  if (value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}

/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in Unix seconds. */
const MIN_TIME_SECONDS = -62135596800;
const MAX_TIME_SECONDS = 253402300799;

/** metav1.Time's JSON form: RFC 3339 in UTC, whole seconds, years 0001 to 9999 as Go allows. */
function rfc3339(seconds: number): string {
  if (seconds < MIN_TIME_SECONDS || seconds > MAX_TIME_SECONDS) {
    throw new ProtobufDecodeError(`malformed protobuf body: time ${seconds}s is outside years 0001 to 9999`);
  }
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function text(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}
