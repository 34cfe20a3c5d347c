import { isObject } from '../json.js';

/**
 * Go's encoding/json output for a value already shaped as Go would marshal it (keys in struct
 * order, or sorted for a map): what kube writes into annotations holding JSON. Go escapes `<`,
 * `>`, `&`, U+2028 and U+2029, which JSON.stringify leaves as they are.
 */
export function goJsonMarshal(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * Go's encoding/json output for an unstructured object (maps all the way down, as kubectl and
 * kube-apiserver hold an object they write into an annotation): object keys sorted.
 */
export function goJsonMarshalUnstructured(value: unknown): string {
  return goJsonMarshal(sortedKeys(value));
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys(value[key])]),
  );
}
