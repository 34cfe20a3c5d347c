/**
 * Where a reflector writes what it lists and watches: the seam between `reflector.ts` (which
 * talks to a cluster) and what keeps the objects (an informer's indexer, a cluster's resource
 * store in the multi-cluster cache). Every call carries the resourceVersion the reflector has
 * reached with it, so a sink always knows how fresh it is.
 */
export interface ReflectorSink<T> {
  /** A full list (all pages) replaced the contents: after the first list and after every relist. */
  replace(items: readonly T[], resourceVersion: string): void;
  add(obj: T, resourceVersion: string): void;
  update(obj: T, resourceVersion: string): void;
  delete(obj: T, resourceVersion: string): void;
  /** A BOOKMARK: the watch has seen every change up to `resourceVersion`. */
  bookmark(resourceVersion: string): void;
}
