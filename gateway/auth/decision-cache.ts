/**
 * Authorization decisions kept for a short while: at most `maxEntries` (least recently used go
 * first), each for `ttlMs`, dropped at once by tenant when its RBAC changes. A question asked
 * again while the first asking is in flight shares it, so a burst of identical reads costs one
 * question upstream. An answer is kept only if nothing made it stale while it was in flight: a
 * `forget` meanwhile, or `canKeep()` false when it arrives (a change could have gone unseen).
 * A failed asking is not kept: the next question asks again.
 */
import { LRUCache } from 'lru-cache';

export interface DecisionCacheOptions {
  maxEntries: number;
  ttlMs: number;
  /** Whether answers may be kept and served now. */
  canKeep: () => boolean;
}

interface Entry<V> {
  tenant: string;
  value: V;
}

export class DecisionCache<V extends NonNullable<unknown>> {
  private readonly kept: LRUCache<string, Entry<V>>;
  private readonly inFlight = new Map<string, Entry<Promise<V>>>();
  private readonly canKeep: () => boolean;

  constructor(options: DecisionCacheOptions) {
    this.kept = new LRUCache({ max: options.maxEntries, ttl: options.ttlMs });
    this.canKeep = options.canKeep;
  }

  /** The decision for `key` (one of `tenant`'s questions), kept or in flight, or else `ask`ed. */
  decide(tenant: string, key: string, ask: () => Promise<V>): Promise<V> {
    const kept = this.canKeep() ? this.kept.get(key) : undefined;
    if (kept) return Promise.resolve(kept.value);
    const pending = this.inFlight.get(key);
    if (pending) return pending.value;
    const entry = { tenant, value: ask() };
    this.inFlight.set(key, entry);
    const settle = (value: V | undefined) => {
      if (this.inFlight.get(key) !== entry) return;
      this.inFlight.delete(key);
      if (value !== undefined && this.canKeep()) this.kept.set(key, { tenant, value });
    };
    entry.value.then(settle, () => settle(undefined));
    return entry.value;
  }

  /** Drops the tenant's decisions, kept and in flight; every tenant's when `tenant` is undefined. */
  forget(tenant: string | undefined): void {
    if (tenant === undefined) {
      this.kept.clear();
      this.inFlight.clear();
      return;
    }
    for (const [key, entry] of [...this.kept.entries()]) if (entry.tenant === tenant) this.kept.delete(key);
    for (const [key, entry] of [...this.inFlight]) if (entry.tenant === tenant) this.inFlight.delete(key);
  }

  /** Decisions kept now (in flight ones are not counted). */
  get size(): number {
    return this.kept.size;
  }
}
