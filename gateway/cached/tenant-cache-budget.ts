/**
 * The memory budget of the cache kept for tenants' reads (`serve --tenant-cache-max-bytes`). The
 * cache is measured in the JSON bytes it holds (`paddock_cache_object_bytes`; the heap it takes is
 * about 1.5 times that, search/README.md "Memory"). When all stores together hold more than the
 * budget, the largest stores that exist only for tenants' reads are shed — dropped from the cache,
 * so that those tenants' reads of that resource on that cluster are forwarded, as they were before
 * there was a cache. A store the admin's ResourceRegistries ask for is never shed: the search API
 * answers only from the cache. A shed store comes back once the cache, with the store at the
 * size it had, would stay under READMIT_FRACTION of the budget, so that one store does not come
 * and go with every small change; and, as its size while it is out is not known (it may have
 * shrunk), after RETRY_MS out regardless, to be measured again (and shed again if it must).
 */
export const READMIT_FRACTION = 0.8;

/** How long a shed store stays out before it is listed again to learn its size. */
export const RETRY_MS = 10 * 60 * 1000;

/** `--tenant-cache-max-bytes`' default: 1 GiB of JSON, about 1.5 GiB of heap. */
export const DEFAULT_TENANT_CACHE_MAX_BYTES = 1024 * 1024 * 1024;

/** One store of the cache as the budget sees it. */
export interface BudgetedStore {
  cluster: string;
  /** The resource as `resource.group` (`pods`, `deployments.apps`). */
  resource: string;
  bytes: number;
  /** Whether it exists only for tenants' reads. */
  sheddable: boolean;
}

export interface ShedStore {
  cluster: string;
  resource: string;
  /** What it held when it was shed: what it would hold again. */
  bytes: number;
  /** When it was shed (ms since the epoch). */
  since: number;
}

export class TenantCacheBudget {
  private readonly shed = new Map<string, ShedStore>();

  /** `maxBytes` 0: no budget. */
  constructor(readonly maxBytes: number) {}

  isShed(cluster: string, resource: string): boolean {
    return this.shed.has(idOf(cluster, resource));
  }

  /** The clusters where `resource` is shed. */
  shedClusters(resource: string): string[] {
    return [...this.shed.values()].filter((s) => s.resource === resource).map((s) => s.cluster);
  }

  get shedStores(): readonly ShedStore[] {
    return [...this.shed.values()];
  }

  /** Applies the budget to what the stores hold now; returns the stores shed and let back by this review. */
  review(stores: readonly BudgetedStore[], now = Date.now()): { shed: ShedStore[]; readmitted: ShedStore[] } {
    const changes = { shed: [] as ShedStore[], readmitted: [] as ShedStore[] };
    if (this.maxBytes <= 0) return changes;
    let total = stores.reduce((sum, store) => sum + store.bytes, 0);
    if (total > this.maxBytes) {
      const largestFirst = stores
        .filter((store) => store.sheddable && !this.isShed(store.cluster, store.resource))
        .sort((a, b) => b.bytes - a.bytes);
      for (const store of largestFirst) {
        if (total <= this.maxBytes) break;
        const shed = { cluster: store.cluster, resource: store.resource, bytes: store.bytes, since: now };
        this.shed.set(idOf(store.cluster, store.resource), shed);
        changes.shed.push(shed);
        total -= store.bytes;
      }
      return changes;
    }
    for (const shed of [...this.shed.values()].sort((a, b) => a.bytes - b.bytes)) {
      const fits = total + shed.bytes <= this.maxBytes * READMIT_FRACTION;
      if (!fits && now - shed.since < RETRY_MS) continue;
      this.shed.delete(idOf(shed.cluster, shed.resource));
      changes.readmitted.push(shed);
      if (fits) total += shed.bytes;
    }
    return changes;
  }
}

function idOf(cluster: string, resource: string): string {
  return `${cluster}\n${resource}`;
}
