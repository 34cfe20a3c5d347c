/**
 * Decodes `application/vnd.kubernetes.protobuf` request bodies of any built-in kind (schema.ts) into
 * the JSON objects a JSON request would have carried. kubectl's typed clients send this way (every
 * `create <generator>`, `create token`, the `auth` reviews, `debug --copy-to`'s Pod, `autoscale`'s
 * HorizontalPodAutoscaler) and never retry in JSON (docs/design.md, "What kubectl needs"), so the
 * server must read them. Pure: bytes in, object out.
 *
 * Field presence follows Go's JSON encoding of the typed object, except that empty non-pointer
 * structs (`"status":{}`, `"resources":{}`) and what Go prints as null (a zero Time, an empty list
 * without `omitempty`, a RawExtension without bytes) are left out: the object then reads as the same
 * body sent as JSON would, and the registry fills in Go's zero fields for both alike
 * (apiserver/go-json/go-zero-fields.ts).
 */
import { CUSTOM_JSON_FORMS } from './custom-json.js';
import { ProtobufDecodeError } from './decode-error.js';
import {
  ENVELOPE,
  ENVELOPE_TYPE_META,
  fieldNumbers,
  LIST_MESSAGES,
  MAGIC,
  MESSAGES,
  TOP_LEVEL_MESSAGES,
  type FieldSpec,
} from './schema.js';
import { WireFormatError, WireReader, WireType } from './wire.js';

export { ProtobufDecodeError };

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

/**
 * How deep messages may nest (a CRD's schemas nest in themselves): deeper is refused rather than
 * left to exhaust the stack, which a 3 MiB body of nested tags would otherwise do.
 */
const MAX_DEPTH = 1000;
/** Decoding is synchronous, so one counter serves every call. */
let depth = 0;

function decodeMessage(bytes: Uint8Array, messageName: string): unknown {
  if (depth >= MAX_DEPTH)
    throw new ProtobufDecodeError(`malformed protobuf body: messages nest deeper than ${MAX_DEPTH} levels`);
  depth++;
  try {
    return decodeFields(bytes, messageName);
  } finally {
    depth--;
  }
}

function decodeFields(bytes: Uint8Array, messageName: string): unknown {
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
    const where = `${messageName}.${fieldSpec.name}`;
    if (fieldSpec.map || fieldSpec.repeated) {
      const items = (present.get(fieldSpec) as unknown[] | undefined) ?? [];
      if (fieldSpec.map) items.push(readMapEntry(reader, fieldSpec, messageName, wireType));
      else if (wireType === WireType.LengthDelimited && PACKABLE.has(fieldSpec.type)) {
        // A packed repeated scalar: one length-delimited run of values (proto2 writers may pack or not).
        const packed = new WireReader(reader.lengthDelimited());
        while (!packed.done) items.push(readValue(packed, fieldSpec.type, where, scalarWireType(fieldSpec.type)));
      } else items.push(readValue(reader, fieldSpec.type, where, wireType));
      present.set(fieldSpec, items);
    } else {
      present.set(fieldSpec, readValue(reader, fieldSpec.type, where, wireType));
    }
  }
  // Object.fromEntries defines keys such as "__proto__" as plain properties, as JSON.parse does.
  for (const [fieldSpec, entries] of present) {
    if (fieldSpec.map) present.set(fieldSpec, Object.fromEntries(entries as [string, unknown][]));
  }

  const custom = CUSTOM_JSON_FORMS[messageName];
  if (custom)
    return custom(
      Object.fromEntries([...present].map(([fieldSpec, value]) => [fieldSpec.name, value])),
      (body) => decodeKubernetesProtobuf(body).object,
    );
  // A Go slice type (`ExtraValue []string`): protobuf wraps it as {items}, JSON prints the list.
  if (LIST_MESSAGES.has(messageName)) return [...present.values()][0] ?? [];
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
  value ??= isScalar(fieldSpec.type) ? zeroOf(fieldSpec.type) : decodeMessage(new Uint8Array(), fieldSpec.type);
  // A map keeps its key where Go prints the value as null (a zero Time).
  return [String(key), value ?? null];
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
    case 'double':
      expectWireType(wireType, WireType.Fixed64, where);
      return reader.double();
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

/** The scalar types a repeated field may carry packed. */
const PACKABLE = new Set(['bool', 'int32', 'int64', 'double']);

function scalarWireType(type: string): WireType {
  return type === 'double' ? WireType.Fixed64 : WireType.Varint;
}

function isScalar(type: string): boolean {
  return type === 'string' || type === 'bytes' || PACKABLE.has(type);
}

function zeroOf(type: string): unknown {
  if (type === 'bool') return false;
  if (PACKABLE.has(type)) return 0;
  return '';
}

/** Go's `omitempty` test, extended to empty objects (see the file comment). */
function isZero(value: unknown): boolean {
  if (value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}

function text(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}
