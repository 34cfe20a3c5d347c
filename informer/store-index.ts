/**
 * The indexes of a store (client-go's `storeIndex`): for each index name, its function and a map
 * from each indexed value to the set of store keys whose object yields that value.
 *
 * A write calls every index function on the old and the new object before it changes anything,
 * so an index function that throws leaves every index as it was: client-go panics there, and a
 * long-running server must not go on with half-updated indexes. A value whose set empties is
 * removed, so that short-lived values do not pile up (kubernetes/kubernetes#84959). A value with
 * one key holds the key itself, not a set of one: most values here are one object's (a tenant's
 * namespace, a binding's name), and a Set costs some 200 bytes a value, a tenant's 0.8 KB. A value
 * with a few keys (a tenant's namespaces, its bindings) holds them in an array of exactly their
 * number, made anew on each change (about 80 bytes for five, where a Set of five is 230); more
 * than ARRAY_KEYS go in a Set, whose changes cost the same however many it holds.
 */
import { goQuote } from '../apiserver/go-quote.js';

/** The indexed values of an object; several values put it in several sets, none in no set. */
export type IndexFunc<T> = (obj: T) => readonly string[];

/** Index functions by index name. */
export type Indexers<T> = Readonly<Record<string, IndexFunc<T>>>;

/** A value's keys: the key alone while it is the only one, a few in an array never changed in place, more in a Set. */
type Keys = string | readonly string[] | Set<string>;

type Index = Map<string, Keys>;

/** The most keys a value holds in an array. */
const ARRAY_KEYS = 8;

/** What one write does to one index: the values the key leaves and the values it joins. */
interface IndexMove {
  readonly index: Index;
  readonly leaves: readonly string[];
  readonly joins: readonly string[];
}

const NO_VALUES: readonly string[] = [];

export class StoreIndex<T extends NonNullable<unknown>> {
  private readonly indexers = new Map<string, IndexFunc<T>>();
  private indices = new Map<string, Index>();

  constructor(indexers: Indexers<T>) {
    for (const [name, indexFunc] of Object.entries(indexers)) this.indexers.set(name, indexFunc);
  }

  getIndexers(): Indexers<T> {
    return Object.fromEntries(this.indexers);
  }

  /**
   * Moves `key` from the values of `oldObj` to those of `newObj` in every index (no old object for
   * an add, no new one for a delete). Throws, changing nothing, when an index function throws.
   */
  move(key: string, oldObj: T | undefined, newObj: T | undefined): void {
    const moves: IndexMove[] = [];
    for (const [name, indexFunc] of this.indexers) {
      const leaves = oldObj === undefined ? NO_VALUES : valuesOf(name, indexFunc, key, oldObj);
      const joins = newObj === undefined ? NO_VALUES : valuesOf(name, indexFunc, key, newObj);
      // The common case: one value, unchanged.
      if (leaves.length === 1 && joins.length === 1 && leaves[0] === joins[0]) continue;
      moves.push({ index: this.indexNamed(name), leaves, joins });
    }
    for (const { index, leaves, joins } of moves) {
      for (const value of leaves) deleteKey(index, value, key);
      for (const value of joins) addKey(index, value, key);
    }
  }

  /**
   * Adds indexes and fills them from the items already stored. Throws, changing nothing, when a
   * name is taken (client-go's message names the taken ones as Go prints a set) or an index
   * function throws.
   */
  addIndexers(newIndexers: Indexers<T>, items: ReadonlyMap<string, T>): void {
    const taken = Object.keys(newIndexers)
      .filter((name) => this.indexers.has(name))
      .sort();
    if (taken.length > 0) throw new Error(`indexer conflict: map[${taken.map((name) => `${name}:{}`).join(' ')}]`);
    const built = Object.entries(newIndexers).map(([name, indexFunc]) => {
      return [name, indexFunc, buildIndex(name, indexFunc, items)] as const;
    });
    for (const [name, indexFunc, index] of built) {
      this.indexers.set(name, indexFunc);
      this.indices.set(name, index);
    }
  }

  /**
   * New indexes for `items` alone, built aside and swapped in: a throwing index function leaves the
   * old ones in place.
   */
  rebuild(items: ReadonlyMap<string, T>): void {
    const rebuilt = new Map<string, Index>();
    for (const [name, indexFunc] of this.indexers) rebuilt.set(name, buildIndex(name, indexFunc, items));
    this.indices = rebuilt;
  }

  /** The keys whose object shares a value with `obj` in the index, or throws as client-go errs. */
  keysMatching(indexName: string, obj: T): Set<string> {
    const values = this.indexFunc(indexName)(obj);
    const index = this.indices.get(indexName);
    const keys = new Set<string>();
    for (const value of values) for (const key of keysOf(index?.get(value))) keys.add(key);
    return keys;
  }

  /** The keys under one value; several are the index's own, not to be changed by the caller. */
  keysByValue(indexName: string, indexedValue: string): Iterable<string> {
    this.indexFunc(indexName); // an unknown name is an error, as in client-go
    return keysOf(this.indices.get(indexName)?.get(indexedValue));
  }

  values(indexName: string): string[] {
    return [...(this.indices.get(indexName)?.keys() ?? NO_VALUES)];
  }

  private indexFunc(indexName: string): IndexFunc<T> {
    const indexFunc = this.indexers.get(indexName);
    if (indexFunc === undefined) throw new Error(`Index with name ${indexName} does not exist`);
    return indexFunc;
  }

  private indexNamed(name: string): Index {
    let index = this.indices.get(name);
    if (index === undefined) this.indices.set(name, (index = new Map()));
    return index;
  }
}

function buildIndex<T>(name: string, indexFunc: IndexFunc<T>, items: ReadonlyMap<string, T>): Index {
  const index: Index = new Map();
  for (const [key, item] of items) for (const value of valuesOf(name, indexFunc, key, item)) addKey(index, value, key);
  return index;
}

/** The values of a stored object; an index function's failure is reported as client-go panics with it. */
function valuesOf<T>(name: string, indexFunc: IndexFunc<T>, key: string, obj: T): readonly string[] {
  try {
    return indexFunc(obj);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const message = `unable to calculate an index entry for key ${goQuote(key)} on index ${goQuote(name)}: ${reason}`;
    throw new Error(message, { cause: error });
  }
}

function keysOf(keys: Keys | undefined): Iterable<string> {
  return keys === undefined ? NO_VALUES : typeof keys === 'string' ? [keys] : keys;
}

function addKey(index: Index, value: string, key: string): void {
  const keys = index.get(value);
  if (keys === undefined) index.set(value, key);
  else if (typeof keys === 'string') {
    if (keys !== key) index.set(value, [keys, key]);
  } else if (keys instanceof Set) keys.add(key);
  // concat makes an array of exactly its length; a spread or a push leaves room for 17 (200 bytes a value).
  else if (!keys.includes(key)) index.set(value, keys.length < ARRAY_KEYS ? keys.concat(key) : new Set([...keys, key]));
}

function deleteKey(index: Index, value: string, key: string): void {
  const keys = index.get(value);
  if (keys === undefined) return;
  if (typeof keys === 'string') {
    if (keys === key) index.delete(value);
    return;
  }
  if (keys instanceof Set) {
    if (keys.delete(key) && keys.size <= ARRAY_KEYS / 2) index.set(value, [...keys]);
    return;
  }
  const at = keys.indexOf(key);
  if (at < 0) return;
  const left = keys.slice(0, at).concat(keys.slice(at + 1));
  index.set(value, left.length === 1 ? left[0] : left);
}
