/**
 * What the tenant path needs to answer reads from the cache (cached-read.ts, cached-watch.ts):
 * the stores kept for tenants (search-cache.ts), their freshness, and the replica's shared watch
 * sets. Reads from the cache are authorized by the cluster's one authorizer (auth/request-authorizer.ts).
 */
import type { Freshness, Stale } from '../../search/cache-freshness.js';
import type { CacheResource, ClusterResourceStore } from '../../search/cluster-resource-store.js';
import { TenantWatchSets } from './cached-watch.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { SearchCache } from '../search/search-cache.js';

export class TenantCache {
  readonly watches: TenantWatchSets;

  constructor(
    private readonly search: SearchCache,
    metrics: GatewayMetrics,
    watchFlushIntervalMs: number,
  ) {
    this.watches = new TenantWatchSets(metrics, watchFlushIntervalMs);
  }

  /** The store answering tenants' reads of `resource` on `cluster`, if it is cached for them. */
  storeFor(
    cluster: string,
    resource: Pick<CacheResource, 'group' | 'version' | 'resource'>,
  ): ClusterResourceStore | undefined {
    return this.search.tenantStore(cluster, resource);
  }

  ensureFresh(store: ClusterResourceStore, freshness: Freshness): Promise<Stale | undefined> {
    return this.search.ensureFresh(store, freshness);
  }
}
