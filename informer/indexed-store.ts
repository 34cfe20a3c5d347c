/**
 * Items by key with their indexes (client-go's `ThreadSafeStore`). Node runs every method to its
 * end on one thread, so no lock is needed for the same guarantee. Stored objects are shared, not
 * copied: callers treat what they get as read-only, as client-go asks, or the indexes go stale.
 */
import { isObject } from '../apiserver/json.js';
import { StoreIndex, type Indexers } from './store-index.js';

export class IndexedStore<T extends NonNullable<unknown>> {
  private items = new Map<string, T>();
  private readonly indexes: StoreIndex<T>;
  private resourceVersion = '';

  constructor(indexers: Indexers<T>) {
    this.indexes = new StoreIndex(indexers);
  }

  /** Adds or replaces the item under `key` (client-go's Add and Update are one). */
  update(key: string, obj: T): void {
    this.indexes.move(key, this.items.get(key), obj);
    this.items.set(key, obj);
    this.noteResourceVersion(obj);
  }

  /** Removes the item under `key`; `obj`, the deleted object as last seen, carries its resourceVersion. */
  delete(key: string, obj?: T): void {
    const old = this.items.get(key);
    if (old !== undefined) {
      this.indexes.move(key, old, undefined);
      this.items.delete(key);
    }
    if (obj !== undefined) this.noteResourceVersion(obj);
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  /** All items at once, with the resourceVersion of the list they came from; the indexes are rebuilt. */
  replace(items: Map<string, T>, resourceVersion: string): void {
    this.indexes.rebuild(items);
    this.items = items;
    this.resourceVersion = resourceVersion;
  }

  /** The latest resourceVersion seen: of the last list replaced, or of the last object written. */
  lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  /** The items sharing a value with `obj` in the index. */
  index(indexName: string, obj: T): T[] {
    return this.itemsOf(this.indexes.keysMatching(indexName, obj));
  }

  /** The keys of the items under `indexedValue`, sorted (client-go returns them as a sorted set list). */
  indexKeys(indexName: string, indexedValue: string): string[] {
    return [...this.indexes.keysByValue(indexName, indexedValue)].sort();
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    return this.itemsOf(this.indexes.keysByValue(indexName, indexedValue));
  }

  /** The values that have items in the index; none for an unknown index. */
  listIndexFuncValues(indexName: string): string[] {
    return this.indexes.values(indexName);
  }

  getIndexers(): Indexers<T> {
    return this.indexes.getIndexers();
  }

  /** Adds indexes, filled from the items already stored; throws, changing nothing, on a taken name. */
  addIndexers(newIndexers: Indexers<T>): void {
    this.indexes.addIndexers(newIndexers, this.items);
  }

  private itemsOf(keys: Iterable<string>): T[] {
    const found: T[] = [];
    for (const key of keys) found.push(this.items.get(key)!);
    return found;
  }

  /** An object with metadata moves the resourceVersion on, as client-go's store does; others leave it. */
  private noteResourceVersion(obj: T): void {
    const value: unknown = obj;
    if (!isObject(value) || !isObject(value.metadata)) return;
    const { resourceVersion } = value.metadata;
    this.resourceVersion = typeof resourceVersion === 'string' ? resourceVersion : '';
  }
}
