/**
 * What the tenant path needs to answer reads from the cache (cached-read.ts, cached-watch.ts):
 * the stores kept for tenants (search-cache.ts), their freshness, one cached-read authorizer per
 * cluster, and the replica's shared watch sets.
 */
import type { Freshness, Stale } from '../../search/cache-freshness.js';
import type { CacheResource, ClusterResourceStore } from '../../search/cluster-resource-store.js';
import { CachedReadAuthorizer } from '../auth/request-authorizer.js';
import { TenantWatchSets } from './cached-watch.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { SearchCache } from '../search/search-cache.js';
import type { UpstreamConnection } from '../upstream/upstream-connection.js';

export class TenantCache {
  readonly watches: TenantWatchSets;
  /** By cluster name: a cluster given new credentials gets a new connection, and its authorizer with it. */
  private readonly authorizers = new Map<string, { upstream: UpstreamConnection; authorizer: CachedReadAuthorizer }>();

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

  /** The cluster's authorizer of cached reads, following its RBAC objects from the first read on. */
  authorizerFor(upstream: UpstreamConnection): CachedReadAuthorizer {
    const known = this.authorizers.get(upstream.name);
    if (known?.upstream === upstream) return known.authorizer;
    // The connection was replaced: the old authorizer's informers use credentials that are gone.
    known?.authorizer.stop();
    const authorizer = new CachedReadAuthorizer(upstream);
    authorizer.start();
    this.authorizers.set(upstream.name, { upstream, authorizer });
    return authorizer;
  }

  stop(): void {
    for (const { authorizer } of this.authorizers.values()) authorizer.stop();
    this.authorizers.clear();
  }
}
