/**
 * The JSON forms of the messages whose Go types write their own JSON (schema.ts, CUSTOM_JSON):
 * each is given the fields that were on the wire, by their protobuf names, and returns what Go's
 * MarshalJSON prints, or undefined where Go prints null (the decoder leaves such a field out).
 */
import { ProtobufDecodeError } from './decode-error.js';
import { MAGIC, PACKAGES } from './schema.js';

type Present = Record<string, unknown>;
/** Decodes an object embedded as a whole Kubernetes protobuf body (a RawExtension a Go client filled with an object). */
export type EmbeddedDecoder = (body: Buffer) => unknown;

const QUANTITY = 'k8s.io.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString';

export const CUSTOM_JSON_FORMS: Readonly<Record<string, (present: Present, embedded: EmbeddedDecoder) => unknown>> = {
  // The apiserver writes a zero Time as an empty message; Go prints it as null, so it is unset here.
  [`${PACKAGES.meta}Time`]: ({ seconds }) => (seconds === undefined ? undefined : rfc3339(seconds as number, '')),
  [`${PACKAGES.meta}MicroTime`]: ({ seconds, nanos }) =>
    seconds === undefined
      ? undefined
      : rfc3339(
          seconds as number,
          `.${String(Math.floor(((nanos as number | undefined) ?? 0) / 1000)).padStart(6, '0')}`,
        ),
  [QUANTITY]: (present) => present.string ?? '',
  // type 1 is intstr.String; 0 (or absent) is intstr.Int.
  [INT_OR_STRING]: ({ type, intVal, strVal }) => (type === 1 ? (strVal ?? '') : (intVal ?? 0)),
  // managedFields' field sets: the JSON object itself.
  [`${PACKAGES.meta}FieldsV1`]: ({ Raw }) => rawJson(Raw, 'FieldsV1'),
  [`${PACKAGES.runtime}RawExtension`]: ({ raw }, embedded) => {
    if (raw === undefined) return undefined;
    const bytes = Buffer.from(raw as string, 'base64');
    return bytes.subarray(0, MAGIC.length).equals(MAGIC) ? embedded(bytes) : rawJson(raw, 'RawExtension');
  },
  [`${PACKAGES.apiextensions}JSON`]: ({ raw }) => rawJson(raw, 'JSON'),
  [`${PACKAGES.apiextensions}JSONSchemaPropsOrBool`]: ({ allows, schema }) => schema ?? allows === true,
  [`${PACKAGES.apiextensions}JSONSchemaPropsOrArray`]: ({ schema, jSONSchemas }) =>
    (jSONSchemas as unknown[] | undefined)?.length ? jSONSchemas : schema,
  [`${PACKAGES.apiextensions}JSONSchemaPropsOrStringArray`]: ({ schema, property }) =>
    (property as unknown[] | undefined)?.length ? property : schema,
};

/** Bytes that hold JSON (base64 here, as the decoder reads bytes), parsed; none is null. */
function rawJson(base64: unknown, where: string): unknown {
  if (base64 === undefined || base64 === '') return undefined;
  const text = Buffer.from(base64 as string, 'base64').toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw new ProtobufDecodeError(`malformed protobuf body: ${where} does not hold JSON`);
  }
}

/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in Unix seconds. */
const MIN_TIME_SECONDS = -62135596800;
const MAX_TIME_SECONDS = 253402300799;

/** metav1.Time's JSON form: RFC 3339 in UTC, whole seconds (then `fraction`), years 0001 to 9999 as Go allows. */
function rfc3339(seconds: number, fraction: string): string {
  if (seconds < MIN_TIME_SECONDS || seconds > MAX_TIME_SECONDS) {
    throw new ProtobufDecodeError(`malformed protobuf body: time ${seconds}s is outside years 0001 to 9999`);
  }
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, `${fraction}Z`);
}
