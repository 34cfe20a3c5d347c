/**
 * Values many cached objects hold alike — a namespace, a label set, a selectable field path list —
 * kept once and shared. JSON.parse gives every object its own copy of each string longer than a
 * few characters; a million objects of 50 namespaces would hold a million namespace strings.
 *
 * The pool is bounded: when it reaches its limit it is emptied and fills again, so values that
 * come and go (a deleted namespace, a label set of one pod) cannot pile up in it. A value already
 * shared stays shared by the objects holding it; later objects share a new copy.
 */
export class SharedValues<T> {
  private readonly values = new Map<string, T>();

  constructor(private readonly limit: number) {}

  /** The value shared under `key`, made by `make` when there is none. */
  shared(key: string, make: () => T): T {
    const found = this.values.get(key);
    if (found !== undefined) return found;
    if (this.values.size >= this.limit) this.values.clear();
    const value = make();
    this.values.set(key, value);
    return value;
  }
}
