/**
 * The metadata of a stored object, as client-go's `meta.Accessor` finds it: key and index
 * functions fail, with client-go's message, on anything that is not an object with metadata.
 */
import { isObject, type Json } from '../apiserver/json.js';

export function objectMeta(obj: unknown): Json {
  if (!isObject(obj) || !isObject(obj.metadata))
    throw new Error('object has no meta: object does not implement the Object interfaces');
  return obj.metadata;
}

/** `metadata.namespace`, or '' when absent (a cluster-scoped object), as Go's zero value reads. */
export function namespaceOf(meta: Json): string {
  return typeof meta.namespace === 'string' ? meta.namespace : '';
}
