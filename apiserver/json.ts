/**
 * Kubernetes objects as JSON, walked by path: typed `any` at those seams on purpose
 * (eslint.config.js), and told apart from arrays and null by one predicate.
 */
export type Json = Record<string, any>;

/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
