/**
 * Store keys (client-go's `KeyFunc`): `<namespace>/<name>` for a namespaced object, `<name>` for
 * a cluster-scoped one.
 */
import { namespaceOf, objectMeta } from './object-meta.js';

/** The key an object is stored under; throws when the object has none. */
export type KeyFunc<T> = (obj: T) => string;

export function metaNamespaceKeyFunc(obj: unknown): string {
  const meta = objectMeta(obj);
  return storeKey(namespaceOf(meta), typeof meta.name === 'string' ? meta.name : '');
}

/** The key of the object `name` in `namespace` ('' or undefined: cluster-scoped), for a lookup as for storing. */
export function storeKey(namespace: string | undefined, name: string): string {
  // Joined, not a template: a template makes a cons string, and a stored key held that 32-byte
  // wrapper beside its flattened text for as long as its object (23 a tenant in the gateway).
  return namespace ? [namespace, name].join('/') : name;
}

/** A key function's failure, with the object at fault (client-go's `KeyError`). */
export class KeyError extends Error {
  constructor(
    readonly object: unknown,
    override readonly cause: unknown,
  ) {
    super(`couldn't create key for object ${JSON.stringify(object)}: ${messageOf(cause)}`);
    this.name = 'KeyError';
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
