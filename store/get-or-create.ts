import { isStoreError } from './errors.js';
import type { Store } from './types.js';

/**
 * The value at `key`, made by `make` and written when absent. Replicas starting together race to
 * write it; the loser reads the winner's, so all of them end up with the same value.
 */
export async function getOrCreate(store: Store, key: string, make: () => Promise<string>): Promise<string> {
  const stored = await store.get(key);
  if (stored) return stored.value;
  const value = await make();
  try {
    await store.create(key, value);
    return value;
  } catch (err) {
    if (!isStoreError(err, 'AlreadyExists')) throw err;
    return (await store.get(key))!.value;
  }
}
