/**
 * Kubernetes objects as JSON, walked by path: typed `any` at those seams on purpose
 * (eslint.config.js), and told apart from arrays and null by one predicate.
 */
export type Json = Record<string, any>;

/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object's name (or generateName) for a message: '' when it has none that is a string. */
export function nameForMessage(object: Json): string {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  if (typeof metadata.name === 'string') return metadata.name;
  return typeof metadata.generateName === 'string' ? metadata.generateName : '';
}
