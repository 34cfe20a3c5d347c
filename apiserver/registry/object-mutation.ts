import type { GenericRegistry, WriteOptions } from './generic-registry.js';
import type { ApiObject } from './object-store.js';
import { ApiError, isConflict } from '../status.js';
import { ConflictRetries } from './conflict-retries.js';

/**
 * Read-modify-write of one object through its registry, retried on conflict; a controller's
 * way to drop a finalizer or an ownerReference. `change` returns false to leave it alone.
 * A missing object is not an error: someone else finished the job. `options` name the writer
 * (its field manager) and, with `subresource` "status", write only the status, as a controller
 * reports what it observed.
 */
export async function mutate(
  registry: GenericRegistry,
  namespace: string,
  name: string,
  change: (object: ApiObject) => boolean,
  { subresource = '', ...options }: WriteOptions & { subresource?: string } = {},
): Promise<void> {
  const retries = new ConflictRetries();
  do {
    let object: ApiObject;
    try {
      object = await registry.get(namespace, name);
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return;
      throw err;
    }
    if (!change(object)) return;
    try {
      await registry.update(namespace, name, object, subresource, options);
      return;
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return;
      if (!isConflict(err)) throw err;
    }
  } while (await retries.again());
}

/** Deletes through the registry; an object already gone is fine. */
export async function deleteQuietly(
  registry: GenericRegistry,
  namespace: string,
  name: string,
  propagationPolicy: 'Background' | 'Foreground' = 'Background',
): Promise<void> {
  try {
    await registry.delete(namespace, name, { propagationPolicy });
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 404)) throw err;
  }
}

export function removeFinalizer(object: ApiObject, finalizer: string): boolean {
  const finalizers: string[] = object.metadata.finalizers ?? [];
  if (!finalizers.includes(finalizer)) return false;
  object.metadata.finalizers = finalizers.filter((f) => f !== finalizer);
  return true;
}
