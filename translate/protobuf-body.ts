/**
 * Protobuf request bodies (`application/vnd.kubernetes.protobuf`: `k8s\0` + runtime.Unknown
 * {typeMeta {apiVersion, kind}, raw, contentEncoding, contentType}) rewritten in place, without a
 * full schema. The fields the translation rules touch (protobuf-fields.ts) are
 * decoded into a sparse JSON "shadow", translated by objects.ts exactly as a JSON body would be, and
 * written back; every other field is copied byte for byte, so a field the gateway does not know
 * reaches the apiserver as the client sent it.
 */
import { isObject, type Json } from '../apiserver/json.js';
import { isDeepStrictEqual } from 'node:util';
import { ENVELOPE, fieldNumbers, MAGIC } from '../apiserver/protobuf/schema.js';
import { WireFormatError, WireReader, WireType, WireWriter } from '../apiserver/protobuf/wire.js';
import { groupOfApiVersion, TranslationError, type TenantContext } from './context.js';
import { objectUp } from './objects.js';
import { protobufFieldsOf } from './kinds/kind-records.js';
import { POD_KINDS } from './kinds/pod-spec.js';
import { TYPE_META, type FieldRule, type MessageFields } from './protobuf-fields.js';

/** What the request's URL says, in the tenant's view. */
export interface ProtobufRequest {
  /** `group/version`, or `v1`. */
  apiVersion: string;
  kind: string;
  /** The URL's namespace, for namespaced resources only: filled in when the body names none, as for JSON. */
  namespace?: string;
}

const UNKNOWN = fieldNumbers(ENVELOPE);
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const NOTHING = new Uint8Array();

/** Tenant protobuf body → upstream protobuf body. Pure; throws TranslationError for what must be refused. */
export function protobufBodyUp(ctx: TenantContext, body: Buffer, request: ProtobufRequest): Buffer {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new TranslationError(
      415,
      'UnsupportedMediaType',
      'the body is not a Kubernetes protobuf object: it does not start with "k8s\\0"',
    );
  }
  try {
    return Buffer.concat([MAGIC, envelopeUp(ctx, body.subarray(MAGIC.length), request)]);
  } catch (err) {
    if (err instanceof WireFormatError)
      throw new TranslationError(400, 'BadRequest', `malformed protobuf body: ${err.message}`);
    throw err;
  }
}

/**
 * What a protobuf body (as it goes upstream) says in the fields the rules read: the sparse shadow
 * of its object, by the table of the request's type, for checking what will be stored.
 */
export function protobufBodyShadow(body: Buffer, request: ProtobufRequest): Json {
  const fields = protobufFieldsOf(request.apiVersion, request.kind);
  if (fields === undefined)
    throw new TranslationError(
      415,
      'UnsupportedMediaType',
      `protobuf bodies of kind "${request.kind}" cannot be checked field by field; send JSON`,
    );
  try {
    const raw = fieldsIn(body.subarray(MAGIC.length))
      .filter((field) => field.field === UNKNOWN.raw)
      .at(-1);
    return shadowOf(fields, raw ? payloadOf(raw, 'raw') : NOTHING);
  } catch (err) {
    if (err instanceof WireFormatError)
      throw new TranslationError(400, 'BadRequest', `malformed protobuf body: ${err.message}`);
    throw err;
  }
}

interface RawField {
  field: number;
  /** The whole field as sent, tag included. */
  bytes: Uint8Array;
  /** The value of a length-delimited field. */
  payload?: Uint8Array;
}

function fieldsIn(bytes: Uint8Array): RawField[] {
  const reader = new WireReader(bytes);
  const fields: RawField[] = [];
  while (!reader.done) {
    const start = reader.position;
    const { field, wireType } = reader.tag();
    let payload: Uint8Array | undefined;
    if (wireType === WireType.LengthDelimited) payload = reader.lengthDelimited();
    else reader.skip(wireType);
    fields.push({ field, bytes: bytes.subarray(start, reader.position), payload });
  }
  return fields;
}

/** The payload of a field that must be length-delimited (every field rewritten here is). */
function payloadOf(raw: RawField, name: string): Uint8Array {
  if (raw.payload === undefined) throw new WireFormatError(`field ${raw.field} (${name}) is not length-delimited`);
  return raw.payload;
}

function envelopeUp(ctx: TenantContext, bytes: Uint8Array, request: ProtobufRequest): Uint8Array {
  const fields = fieldsIn(bytes);
  const typeMetas = fields.filter((raw) => raw.field === UNKNOWN.typeMeta).map((raw) => payloadOf(raw, 'typeMeta'));
  // raw and contentEncoding are scalars: the last one sent is the one that counts.
  const raws = fields.filter((raw) => raw.field === UNKNOWN.raw);
  const lastRaw = raws.at(-1);
  const object = lastRaw ? payloadOf(lastRaw, 'raw') : NOTHING;
  const encodings = fields
    .filter((raw) => raw.field === UNKNOWN.contentEncoding)
    .map((raw) => utf8(payloadOf(raw, 'contentEncoding'), 'contentEncoding'));
  const contentEncoding = encodings.at(-1) ?? '';
  // The apiserver's serializer never compresses `raw`; an encoding means a client we cannot read.
  if (contentEncoding !== '')
    throw new TranslationError(
      415,
      'UnsupportedMediaType',
      `protobuf bodies with contentEncoding "${contentEncoding}" are not supported`,
    );

  const typeBefore = shadowOf(TYPE_META, Buffer.concat(typeMetas));
  const type = typeOf(typeBefore, request);
  // A list's field 1 is a ListMeta, not an ObjectMeta, and its items are not in the table.
  // Pods and their templates: pointing them at the gateway adds and converts fields no table reads (kinds/pod-api.ts).
  const objectFields =
    type.kind.endsWith('List') || POD_KINDS.has(`${groupOfApiVersion(type.apiVersion)}/${type.kind}`)
      ? undefined
      : protobufFieldsOf(type.apiVersion, type.kind);
  if (objectFields === undefined) {
    throw new TranslationError(
      415,
      'UnsupportedMediaType',
      `protobuf bodies of kind "${type.kind}" (apiVersion "${type.apiVersion}") cannot be translated field by field; send JSON`,
    );
  }
  const before = shadowOf(objectFields, object);
  const after = objectUp(ctx, { ...withNamespace(before, request.namespace), ...type });
  const typeAfter = { apiVersion: after.apiVersion, kind: after.kind };
  const typeChanged = !isDeepStrictEqual(typeBefore, typeAfter);

  const writer = new WireWriter();
  let typeWritten = false;
  if (typeChanged && typeMetas.length === 0) {
    writer.lengthDelimited(UNKNOWN.typeMeta, rewrite(TYPE_META, NOTHING, {}, typeAfter));
    typeWritten = true;
  }
  for (const raw of fields) {
    if (raw.field === UNKNOWN.typeMeta && typeChanged) {
      // Every typeMeta sent merges into one; it is written once, where the first was.
      if (!typeWritten)
        writer.lengthDelimited(UNKNOWN.typeMeta, rewrite(TYPE_META, Buffer.concat(typeMetas), typeBefore, typeAfter));
      typeWritten = true;
    } else if (raw.field === UNKNOWN.raw) {
      // Earlier raws are overridden by the last: only the translated one goes up.
      if (raw === lastRaw) writer.lengthDelimited(UNKNOWN.raw, rewrite(objectFields, object, before, after));
    } else writer.raw(raw.bytes);
  }
  if (!lastRaw) {
    const translated = rewrite(objectFields, NOTHING, before, after);
    if (translated.length > 0) writer.lengthDelimited(UNKNOWN.raw, translated);
  }
  return writer.finish();
}

/** The object's type: the envelope's, or the URL's where the envelope says nothing; the two must agree. */
function typeOf(envelope: Json, request: ProtobufRequest): { apiVersion: string; kind: string } {
  const apiVersion: string = envelope.apiVersion || request.apiVersion;
  const kind: string = envelope.kind || request.kind;
  if (!apiVersion || !kind)
    throw new TranslationError(400, 'BadRequest', 'the protobuf body names no apiVersion and kind');
  if (request.apiVersion && apiVersion !== request.apiVersion) {
    throw new TranslationError(
      400,
      'BadRequest',
      `the API version in the data (${apiVersion}) does not match the expected API version (${request.apiVersion})`,
    );
  }
  if (request.kind && kind !== request.kind) {
    throw new TranslationError(
      400,
      'BadRequest',
      `the kind in the data (${kind}) does not match the expected kind (${request.kind})`,
    );
  }
  return { apiVersion, kind };
}

/** As for JSON bodies: an object without a namespace is in the URL's, which the rules must see to prefix it. */
function withNamespace(object: Json, namespace: string | undefined): Json {
  if (!namespace || (isObject(object.metadata) && typeof object.metadata.namespace === 'string')) return object;
  return { ...object, metadata: { ...(isObject(object.metadata) ? object.metadata : {}), namespace } };
}

function shadowOf(fields: MessageFields, bytes: Uint8Array): Json {
  const shadow: Json = {};
  readInto(fields, bytes, shadow);
  return shadow;
}

/**
 * Decodes the table's fields of a message into `into`, with protobuf's merge semantics (what Go's
 * decoder does): the last of a repeated scalar wins, lists append, maps merge, messages merge.
 */
function readInto(fields: MessageFields, bytes: Uint8Array, into: Json): void {
  for (const raw of fieldsIn(bytes)) {
    const rule = fields[raw.field];
    if (rule === undefined) continue;
    const name = rule.type === 'inline' ? 'inline' : rule.name;
    const payload = payloadOf(raw, name);
    switch (rule.type) {
      case 'string': {
        const value = utf8(payload, name);
        // An empty omitempty string is absent in the JSON the rules are written for.
        if (value === '' && !rule.keepEmpty) delete into[name];
        else into[name] = value;
        break;
      }
      case 'strings':
        (into[name] ??= []).push(utf8(payload, name));
        break;
      case 'stringMap': {
        const [key, value] = mapEntry(payload, name);
        // A key such as "__proto__" is an ordinary key, as JSON.parse makes it.
        Object.defineProperty((into[name] ??= {}), key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        break;
      }
      case 'message':
        if (rule.repeated) (into[name] ??= []).push(shadowOf(rule.fields, payload));
        else readInto(rule.fields, payload, (into[name] ??= {}));
        break;
      case 'inline':
        readInto(rule.fields, payload, into);
        break;
    }
  }
}

/** A map entry {key = 1, value = 2}; either may be absent, meaning "". */
function mapEntry(bytes: Uint8Array, name: string): [string, string] {
  let key = '';
  let value = '';
  for (const raw of fieldsIn(bytes)) {
    if (raw.field === 1) key = utf8(payloadOf(raw, `${name} key`), `${name} key`);
    else if (raw.field === 2) value = utf8(payloadOf(raw, `${name} value`), `${name} value`);
  }
  return [key, value];
}

/** Go does not check UTF-8 in these fields, but a string that is not UTF-8 cannot be translated without changing it. */
function utf8(bytes: Uint8Array, name: string): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new WireFormatError(`${name} is not valid UTF-8`);
  }
}

function unchanged(rule: FieldRule, before: Json, after: Json): boolean {
  if (rule.type === 'inline') return Object.values(rule.fields).every((inner) => unchanged(inner, before, after));
  return isDeepStrictEqual(before[rule.name], after[rule.name]);
}

/**
 * A message with its table fields written from the translated shadow `after`. A field the
 * translation left as it was (`before`) is copied as sent, like every field off the table; a changed
 * one is written once, where it first appeared (new ones at the end).
 */
function rewrite(fields: MessageFields, bytes: Uint8Array, before: Json, after: Json): Uint8Array {
  const sent = fieldsIn(bytes);
  const occurrences = new Map<number, Uint8Array[]>();
  for (const raw of sent) {
    const rule = fields[raw.field];
    if (rule === undefined) continue;
    const payload = payloadOf(raw, rule.type === 'inline' ? 'inline' : rule.name);
    const list = occurrences.get(raw.field);
    if (list) list.push(payload);
    else occurrences.set(raw.field, [payload]);
  }
  // Compared once per field, not once per occurrence: a map can arrive as thousands of entries.
  const changed = Object.keys(fields)
    .map(Number)
    .filter((field) => !unchanged(fields[field], before, after));
  const written = new Set<number>();
  const writer = new WireWriter();
  const write = (field: number) => {
    written.add(field);
    writeField(writer, field, fields[field], occurrences.get(field) ?? [], before, after);
  };
  for (const raw of sent) {
    if (!changed.includes(raw.field)) writer.raw(raw.bytes);
    else if (!written.has(raw.field)) write(raw.field);
  }
  for (const field of changed) if (!written.has(field)) write(field);
  return writer.finish();
}

/** One changed field from `after`; `payloads` are its occurrences as sent, whose other fields carry over. */
function writeField(
  writer: WireWriter,
  field: number,
  rule: FieldRule,
  payloads: Uint8Array[],
  before: Json,
  after: Json,
): void {
  if (rule.type === 'inline') {
    writer.lengthDelimited(field, rewrite(rule.fields, Buffer.concat(payloads), before, after));
    return;
  }
  const value: unknown = after[rule.name];
  switch (rule.type) {
    case 'string':
      if (typeof value === 'string') writer.string(field, value);
      return;
    case 'strings':
      if (Array.isArray(value)) for (const item of value) if (typeof item === 'string') writer.string(field, item);
      return;
    case 'stringMap':
      if (isObject(value)) {
        for (const [key, item] of Object.entries(value)) {
          if (typeof item !== 'string') continue;
          const entry = new WireWriter();
          entry.string(1, key);
          entry.string(2, item);
          writer.lengthDelimited(field, entry.finish());
        }
      }
      return;
    case 'message': {
      const old: unknown = before[rule.name];
      if (!rule.repeated) {
        // A message field sent more than once is one message, merged (protobuf's rule), so it is written once.
        if (isObject(value))
          writer.lengthDelimited(field, rewrite(rule.fields, Buffer.concat(payloads), isObject(old) ? old : {}, value));
        return;
      }
      if (!Array.isArray(value)) return;
      const olds = Array.isArray(old) ? old : [];
      value.forEach((item: unknown, index) => {
        if (isObject(item))
          writer.lengthDelimited(
            field,
            rewrite(rule.fields, payloads[index] ?? NOTHING, isObject(olds[index]) ? olds[index] : {}, item),
          );
      });
    }
  }
}
