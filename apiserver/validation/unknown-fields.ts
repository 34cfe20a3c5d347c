/**
 * Unknown fields of built-in objects, found and worded as kube-apiserver's strict JSON decoding
 * (sigs.k8s.io/json) reports them for `?fieldValidation=Strict` (400) and `Warn` (warnings).
 */
import { goQuote } from '../go-quote.js';
import { isObject } from '../json.js';
import { builtinKindSchema, kindsWithSchema, type FieldShape } from './field-schema.js';

/** The decoder keeps at most this many strict errors and drops the rest. */
const MAX_STRICT_ERRORS = 100;

/**
 * Paths of fields in `object` the kind does not have, in document order, formatted as
 * kube-apiserver formats them (`spec.template.spec.containers[0].imagee`; a map's keys are path
 * segments too); [] for kinds without a schema (custom resources and unmodelled kinds accept
 * anything). `version` picks the schema of a kind whose versions differ (autoscaling's
 * HorizontalPodAutoscaler).
 */
export function findUnknownFields(group: string, kind: string, object: unknown, version = ''): string[] {
  const schema = builtinKindSchema(group, version, kind);
  const unknown: string[] = [];
  if (schema) collect(schema, object, '', unknown);
  return unknown;
}

/** The kinds that have a schema, for the docs ("group/Kind"). */
export function kindsWithFieldSchema(): string[] {
  return kindsWithSchema().sort();
}

/** kube's message for Strict: `strict decoding error: unknown field "a", unknown field "b"` */
export function strictDecodingMessage(paths: string[]): string {
  return `strict decoding error: ${paths.map(unknownFieldMessage).join(', ')}`;
}

/** One unknown field as kube words it, also the text of its `Warn` warning: `unknown field "a"`. */
export function unknownFieldMessage(path: string): string {
  return `unknown field ${goQuote(path)}`;
}

/**
 * Walks `value` as `shape` describes it. A value of another JSON type than the shape expects is
 * a type error kube reports on its own, so nothing below it is looked at.
 */
function collect(shape: FieldShape, value: unknown, path: string, unknown: string[]): void {
  if (shape === 'scalar' || shape === 'any') return;
  if ('listOf' in shape) {
    if (!Array.isArray(value)) return;
    value.forEach((item, index) => collect(shape.listOf, item, `${path}[${index}]`, unknown));
    return;
  }
  if (!isObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path === '' ? key : `${path}.${key}`;
    const childShape = 'mapOf' in shape ? shape.mapOf : shape.fields.get(key);
    if (childShape !== undefined) collect(childShape, child, childPath, unknown);
    else if (unknown.length < MAX_STRICT_ERRORS) unknown.push(childPath);
  }
}
