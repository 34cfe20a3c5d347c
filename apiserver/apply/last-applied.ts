/**
 * What kube's field manager does with kubectl's client-side apply annotation when kubectl applies
 * server-side (its lastAppliedManager and lastAppliedUpdater), so that a client-side applied
 * object can move to server-side apply: only for the field manager `kubectl`, fields the
 * annotation still holds with the live value are not conflicts, and the annotation, when the
 * object has one, is kept equal to the configuration kubectl last applied.
 */
import { goJsonMarshalUnstructured } from '../go-json/marshal.js';
import { isObject, type Json } from '../json.js';
import { TOTAL_ANNOTATION_SIZE_LIMIT, annotationsSize } from '../validation/names.js';
import type { FieldPatchMeta } from '../patch/patch-meta.js';
import { compareObjects, fieldSetOf, type FieldSet } from './field-set.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The one field manager kube upgrades from client-side apply: kubectl's default for `apply --server-side`. */
export const KUBECTL_APPLY_MANAGER = 'kubectl';

function lastAppliedOf(object: Json): string | null {
  const value: unknown = object.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * The fields kubectl may take without a conflict: those of the last applied configuration whose
 * value the live object still has. null when the object has no usable annotation (none, not
 * JSON, or written at another version).
 */
export function conflictsAllowedByLastApplied(live: Json, apiVersion: string, meta: FieldPatchMeta): FieldSet | null {
  const text = lastAppliedOf(live);
  if (text === null) return null;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(lastApplied) || lastApplied.apiVersion !== apiVersion) return null;
  const differences = compareObjects(lastApplied, live, meta);
  return fieldSetOf(lastApplied, meta)
    .difference(differences.modified)
    .difference(differences.added)
    .difference(differences.removed);
}

/**
 * `result` with its annotation set to the applied configuration (without the annotation itself),
 * when the object has one; dropped when it would take the annotations over their size limit.
 */
export function withLastAppliedSynced(result: Json, applied: Json): Json {
  if (lastAppliedOf(result) === null) return result;
  const configuration = structuredClone(applied);
  if (isObject(configuration.metadata?.annotations)) {
    delete configuration.metadata.annotations[LAST_APPLIED_ANNOTATION];
  }
  const annotations = { ...result.metadata.annotations, [LAST_APPLIED_ANNOTATION]: goJsonEncoding(configuration) };
  if (annotationsSize(annotations) > TOTAL_ANNOTATION_SIZE_LIMIT) delete annotations[LAST_APPLIED_ANNOTATION];
  return { ...result, metadata: { ...result.metadata, annotations } };
}

/**
 * As Go's json.Encoder writes an unstructured object, which is how kube writes the annotation:
 * object keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped, a newline at the end.
 */
function goJsonEncoding(value: unknown): string {
  return `${goJsonMarshalUnstructured(value)}\n`;
}
