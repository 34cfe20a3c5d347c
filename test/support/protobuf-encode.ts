/**
 * JSON → Kubernetes protobuf by the schema's table (apiserver/protobuf/schema.ts): the decoder's
 * inverse, for round trips of kinds no client in the tests sends. Messages with a JSON form of their
 * own are written as Go's UnmarshalJSON would read them.
 */
import { CUSTOM_JSON, LIST_MESSAGES, MESSAGES, PACKAGES, TOP_LEVEL_MESSAGES } from '../../apiserver/protobuf/schema.js';
import { envelope, intField, lenField, message, tag } from './protobuf-wire.js';

type Json = any;

/** `k8s\0` + runtime.Unknown around the object, by its apiVersion and kind. */
export function encodeKubernetesProtobuf(object: Json): Buffer {
  const name = TOP_LEVEL_MESSAGES.get(`${object.apiVersion}/${object.kind}`);
  if (name === undefined) throw new Error(`no protobuf message for ${object.apiVersion}/${object.kind}`);
  return envelope(object.apiVersion, object.kind, encodeMessage(object, name));
}

export function encodeMessage(json: Json, name: string): Buffer {
  if (CUSTOM_JSON.has(name)) return encodeCustom(json, name);
  if (LIST_MESSAGES.has(name))
    return message(...(json as Json[]).map((item) => encodeValue(1, item, MESSAGES[name][1].type)));
  const parts: Buffer[] = [];
  for (const [number, field] of Object.entries(MESSAGES[name])) {
    const value = field.inline ? json : json[field.name];
    if (value === undefined || value === null) continue;
    if (field.map) {
      for (const [key, item] of Object.entries(value)) {
        const entry = item === null ? [] : [encodeValue(2, item, field.type)];
        parts.push(lenField(Number(number), message(lenField(1, key), ...entry)));
      }
    } else if (field.repeated) {
      for (const item of value as Json[]) parts.push(encodeValue(Number(number), item, field.type));
    } else parts.push(encodeValue(Number(number), value, field.type));
  }
  return message(...parts);
}

function encodeValue(number: number, value: Json, type: string): Buffer {
  switch (type) {
    case 'string':
      return lenField(number, value as string);
    case 'bytes':
      return lenField(number, Buffer.from(value as string, 'base64'));
    case 'bool':
      return intField(number, value ? 1 : 0);
    case 'int32':
    case 'int64':
      return intField(number, value as number);
    case 'double': {
      const bytes = Buffer.alloc(8);
      bytes.writeDoubleLE(value as number);
      return Buffer.concat([tag(number, 1), bytes]);
    }
    default:
      return lenField(number, encodeMessage(value, type));
  }
}

function encodeCustom(json: Json, name: string): Buffer {
  const schema = `${PACKAGES.apiextensions}JSONSchemaProps`;
  switch (name) {
    case `${PACKAGES.meta}Time`:
    case `${PACKAGES.meta}MicroTime`: {
      const millis = Date.parse(json as string);
      const micros = /\.(\d{6})Z$/.exec(json as string)?.[1];
      return message(intField(1, Math.floor(millis / 1000)), ...(micros ? [intField(2, Number(micros) * 1000)] : []));
    }
    case 'k8s.io.apimachinery.pkg.api.resource.Quantity':
      return lenField(1, String(json));
    case 'k8s.io.apimachinery.pkg.util.intstr.IntOrString':
      return typeof json === 'string'
        ? message(intField(1, 1), lenField(3, json))
        : message(intField(2, json as number));
    case `${PACKAGES.meta}FieldsV1`:
    case `${PACKAGES.runtime}RawExtension`:
    case `${PACKAGES.apiextensions}JSON`:
      return lenField(1, JSON.stringify(json));
    case `${PACKAGES.apiextensions}JSONSchemaPropsOrBool`:
      return typeof json === 'boolean'
        ? intField(1, json ? 1 : 0)
        : message(intField(1, 1), lenField(2, encodeMessage(json, schema)));
    case `${PACKAGES.apiextensions}JSONSchemaPropsOrArray`:
      return Array.isArray(json)
        ? message(...json.map((item) => lenField(2, encodeMessage(item, schema))))
        : lenField(1, encodeMessage(json, schema));
    case `${PACKAGES.apiextensions}JSONSchemaPropsOrStringArray`:
      return Array.isArray(json)
        ? message(...json.map((item) => lenField(2, item as string)))
        : lenField(1, encodeMessage(json, schema));
    default:
      throw new Error(`no encoding for ${name}`);
  }
}
