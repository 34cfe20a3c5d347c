/**
 * client-go's `Indexer`: a store that keys objects with a key function and keeps named indexes
 * over them. A key function's failure is a `KeyError` thrown before anything changes; so is an
 * index function's (see store-index.ts).
 */
import { IndexedStore } from './indexed-store.js';
import { KeyError, metaNamespaceKeyFunc, type KeyFunc } from './key-func.js';
import { type Indexers } from './store-index.js';

export class Indexer<T extends NonNullable<unknown>> {
  private readonly store: IndexedStore<T>;

  constructor(
    indexers: Indexers<T> = {},
    private readonly keyFunc: KeyFunc<T> = metaNamespaceKeyFunc,
  ) {
    this.store = new IndexedStore(indexers);
  }

  add(obj: T): void {
    this.store.update(this.keyOf(obj), obj);
  }

  update(obj: T): void {
    this.store.update(this.keyOf(obj), obj);
  }

  delete(obj: T): void {
    this.store.delete(this.keyOf(obj), obj);
  }

  /** The stored object with `obj`'s key. */
  get(obj: T): T | undefined {
    return this.store.get(this.keyOf(obj));
  }

  getByKey(key: string): T | undefined {
    return this.store.get(key);
  }

  list(): T[] {
    return this.store.list();
  }

  listKeys(): string[] {
    return this.store.listKeys();
  }

  /** Everything stored replaced by `list`, the result of a list at `resourceVersion`. */
  replace(list: readonly T[], resourceVersion: string): void {
    const items = new Map<string, T>();
    for (const obj of list) items.set(this.keyOf(obj), obj);
    this.store.replace(items, resourceVersion);
  }

  lastSyncResourceVersion(): string {
    return this.store.lastSyncResourceVersion();
  }

  /** The stored objects whose values in the index include any of `obj`'s. */
  index(indexName: string, obj: T): T[] {
    return this.store.index(indexName, obj);
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    return this.store.indexKeys(indexName, indexedValue);
  }

  listIndexFuncValues(indexName: string): string[] {
    return this.store.listIndexFuncValues(indexName);
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    return this.store.byIndex(indexName, indexedValue);
  }

  getIndexers(): Indexers<T> {
    return this.store.getIndexers();
  }

  addIndexers(newIndexers: Indexers<T>): void {
    this.store.addIndexers(newIndexers);
  }

  private keyOf(obj: T): string {
    try {
      return this.keyFunc(obj);
    } catch (error) {
      throw new KeyError(obj, error);
    }
  }
}
