/**
 * How fresh a store must be before it answers a read, and the waiting for it.
 *
 * - `any` (resourceVersion "0", and pages after the first): once the store has listed.
 * - `consistent` (resourceVersion ""): at least as fresh as the cluster when the read arrived.
 *   The cluster's current revision is probed (the caller's probe: a `limit=1` list), shared among
 *   the reads that arrive while one is under way, and the store must reach it: by its watch's
 *   events within a short wait (`consistentWaitMs`), else by the caller's `refresh` (a relist of
 *   that store at the cluster's newest state). A quiet resource hears a BOOKMARK only about once
 *   a minute, while the cluster's revision moves with every write of any kind (a node's Lease
 *   every 10 s), so waiting longer seldom helps. Without a probe, a consistent read is served as
 *   `any`.
 * - `watchFrom` (a watch from a version N): the store has reached N, or the cluster has (probed):
 *   the watcher then skips the events up to N as the store hears them, so nothing waits for a
 *   quiet store to reach a revision other resources moved (an informer's watch after a list the
 *   cluster answered). N ahead of the cluster is stale: the cluster answers it.
 * - `atLeast` (a version N): the store must reach N; if it does not in time, the read fails
 *   as kube's watch cache fails it (504 Too large resource version) — or, for a caller that bounds
 *   relists (`refreshUpTo`, the tenant path), the store is relisted if small, else the read is
 *   stale and the caller asks the cluster.
 *
 * A store that cannot be made fresh in time (not listed yet, behind the cluster, probe failed)
 * makes the read `stale`: the caller answers it from the cluster itself.
 *
 * kube-apiserver learns that its watch cache has reached etcd's revision through etcd's progress
 * notifications, even for a resource nothing writes; a client of kube-apiserver cannot ask for
 * one (BOOKMARKs come about once a minute). So when the cluster's revision moved through other
 * resources, only a relist proves a quiet store fresh. A store whose last wait ran out and that
 * has heard nothing since is not waited for again; if it is too large to relist for a read, it is
 * not even probed: the read is stale at once.
 */
import { tooLargeResourceVersion } from './cache-errors.js';
import { resourceKey, type CacheResource, type ClusterResourceStore } from './cluster-resource-store.js';
import { atLeast } from '../informer/resource-version-order.js';
import { SharedProbe } from './shared-probe.js';

/** How often a read bounded by `refreshUpTo` may relist one store. */
export const BOUNDED_REFRESH_INTERVAL_MS = 5000;

export type Freshness =
  | { kind: 'any' }
  | { kind: 'consistent' }
  | { kind: 'atLeast'; resourceVersion: string }
  /** A watch from N: its watcher skips the store's events up to N, so the store need not be there yet, only the cluster. */
  | { kind: 'watchFrom'; resourceVersion: string };

/** The revision a cluster's resource is at now, as a list of it would report. */
export type RevisionProbe = (cluster: string, resource: CacheResource) => Promise<string>;

/** Lists a store again at its cluster's newest state; false when that could not be done. */
export type StoreRefresh = (store: ClusterResourceStore) => Promise<boolean>;

/** Why a read cannot be answered from the cache. */
export interface Stale {
  readonly fresh: false;
  readonly cluster: string;
  readonly reason: string;
}

/** The freshness a cluster's resourceVersion asks for: "" consistent, "0" any, N at least N. */
export function freshnessOf(resourceVersion: string): Freshness {
  if (resourceVersion === '') return { kind: 'consistent' };
  if (resourceVersion === '0') return { kind: 'any' };
  return { kind: 'atLeast', resourceVersion };
}

export class FreshnessGate {
  private readonly probes: SharedProbe<string>;
  /** What each probe key names; as many as cluster × resource pairs ever probed. */
  private readonly probeTargets = new Map<string, { cluster: string; resource: CacheResource }>();
  /** Stores whose last wait for a consistent read ran out, with their progress then. */
  private readonly quiet = new WeakMap<ClusterResourceStore, number>();
  /** When each store was last relisted for a read bounded by `refreshUpTo`. */
  private readonly refreshedAt = new WeakMap<ClusterResourceStore, number>();

  constructor(
    private readonly currentRevision: RevisionProbe | undefined,
    private readonly timeoutMs: number,
    private readonly consistentWaitMs = timeoutMs,
    private readonly refresh?: StoreRefresh,
  ) {
    this.probes = new SharedProbe((key) => {
      const { cluster, resource } = this.probeTargets.get(key)!;
      return this.currentRevision!(cluster, resource);
    });
  }

  /**
   * Resolves undefined when `store` may answer; Stale when it may not; throws 504 for an unreached
   * N. `refreshUpTo` relists only a store of at most that many objects for this read, and at most
   * once per `BOUNDED_REFRESH_INTERVAL_MS`; otherwise a stale store leaves the read to the caller
   * (the tenant path forwards it, which costs the read, not the whole store). On a cluster whose
   * revision never rests, relists for every read would never end.
   */
  async ensure(
    store: ClusterResourceStore,
    freshness: Freshness,
    options: { refreshUpTo?: number } = {},
  ): Promise<Stale | undefined> {
    if (!(await store.waitUntilFresh('', this.timeoutMs)))
      return this.stale(store, 'its cache has not listed the resource yet');
    if (freshness.kind === 'any' || (freshness.kind === 'consistent' && this.currentRevision === undefined))
      return undefined;
    if (freshness.kind === 'watchFrom' && this.currentRevision !== undefined) {
      const wanted = freshness.resourceVersion;
      if (await store.waitUntilFresh(wanted, 0)) return undefined;
      let revision: string;
      try {
        revision = await this.probe(store);
      } catch (err) {
        return this.stale(store, `its current revision could not be read: ${(err as Error).message}`);
      }
      if (atLeast(revision, wanted)) return undefined;
      return this.stale(store, `the requested ${wanted} is ahead of the cluster's ${revision}`);
    }
    if (freshness.kind === 'atLeast' || freshness.kind === 'watchFrom') {
      const wanted = freshness.resourceVersion;
      if (options.refreshUpTo === undefined) {
        if (await store.waitUntilFresh(wanted, this.timeoutMs)) return undefined;
        throw tooLargeResourceVersion(wanted, store.resourceVersion);
      }
      // A version from a list the cluster answered moves with every resource: a quiet store may
      // never reach it by its watch. Relisted (if small) it is there; else the cluster answers,
      // a 504 of its own if N is truly ahead of it.
      if (await store.waitUntilFresh(wanted, this.consistentWaitMs)) return undefined;
      if (this.mayRefresh(store, options.refreshUpTo) && this.refresh && (await this.refresh(store)))
        if (await store.waitUntilFresh(wanted, 0)) return undefined;
      return this.stale(store, `its cache is at ${store.resourceVersion}, behind the requested ${wanted}`);
    }
    // A store that heard nothing since its last wait ran out would wait in vain again: its
    // resource is quiet and the cluster's revision moved through others. When it is also too
    // large to relist for a read, the probe would only delay the cluster's answer.
    const quiet = this.quiet.get(store) === store.progress;
    if (quiet && options.refreshUpTo !== undefined && store.size > options.refreshUpTo)
      return this.stale(store, `its cache is at ${store.resourceVersion} and has heard nothing since it fell behind`);
    let revision: string;
    try {
      revision = await this.probe(store);
    } catch (err) {
      return this.stale(store, `its current revision could not be read: ${(err as Error).message}`);
    }
    const waitMs = quiet ? 0 : this.consistentWaitMs;
    if (await store.waitUntilFresh(revision, waitMs)) return undefined;
    this.quiet.set(store, store.progress);
    // Listed again after the read arrived: as fresh as the read asks.
    if (this.mayRefresh(store, options.refreshUpTo) && this.refresh && (await this.refresh(store))) return undefined;
    return this.stale(store, `its cache is at ${store.resourceVersion}, behind the cluster's ${revision}`);
  }

  /** Every store made fresh at once; the first Stale, if any. */
  async ensureAll(stores: readonly [ClusterResourceStore, Freshness][]): Promise<Stale | undefined> {
    const results = await Promise.all(stores.map(([store, freshness]) => this.ensure(store, freshness)));
    return results.find((result) => result !== undefined);
  }

  /** The cluster's current revision of the store's resource, one probe shared by the reads that ask meanwhile. */
  private probe(store: ClusterResourceStore): Promise<string> {
    const key = `${store.cluster}\n${resourceKey(store.resource)}`;
    this.probeTargets.set(key, { cluster: store.cluster, resource: store.resource });
    return this.probes.get(key);
  }

  private mayRefresh(store: ClusterResourceStore, refreshUpTo: number | undefined): boolean {
    if (refreshUpTo === undefined) return true;
    if (store.size > refreshUpTo) return false;
    const now = Date.now();
    if (now - (this.refreshedAt.get(store) ?? -Infinity) < BOUNDED_REFRESH_INTERVAL_MS) return false;
    this.refreshedAt.set(store, now);
    return true;
  }

  private stale(store: ClusterResourceStore, why: string): Stale {
    return {
      fresh: false,
      cluster: store.cluster,
      reason: `cluster ${store.cluster}: ${resourceKey(store.resource)}: ${why}`,
    };
  }
}
