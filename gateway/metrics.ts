import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { StoreStats } from '../cache/cache-controller.js';
import { processFaults } from '../apiserver/process-faults.js';

/**
 * The gateway's Prometheus metrics, on a registry of its own (several gateways can run in one
 * process in tests): requests by identity, tenant, verb and code; upstream latency; the time
 * spent translating requests (up) and responses (down).
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'paddock_requests_total',
    help: 'Requests served, by identity kind, tenant, verb and HTTP code.',
    labelNames: ['identity', 'tenant', 'verb', 'code'] as const,
    registers: [this.registry],
  });
  readonly upstreamLatency = new Histogram({
    name: 'paddock_upstream_request_duration_seconds',
    help: 'Time until the upstream cluster answered a forwarded request (headers), by cluster and verb.',
    labelNames: ['cluster', 'verb'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly objectsRead = new Counter({
    name: 'paddock_upstream_objects_read_total',
    help: 'Objects (list items and Table rows) read from upstream lists, by cluster: what a list costs upstream.',
    labelNames: ['cluster'] as const,
    registers: [this.registry],
  });
  readonly watchEventsRead = new Counter({
    name: 'paddock_upstream_watch_events_total',
    help: 'Events read from upstream watches, by cluster, before the foreign ones are dropped: what a watch costs upstream.',
    labelNames: ['cluster'] as const,
    registers: [this.registry],
  });
  readonly translation = new Histogram({
    name: 'paddock_translation_duration_seconds',
    help: 'Time spent translating, by direction (up: request, down: response).',
    labelNames: ['direction'] as const,
    buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers: [this.registry],
  });

  readonly cacheReads = new Counter({
    name: 'paddock_cache_reads_total',
    help: 'Reads through the search proxy for the multi-cluster cache: answered (cache), or 503 because a store could not be made fresh enough (unavailable).',
    labelNames: ['answer'] as const,
    registers: [this.registry],
  });

  readonly tenantCacheReads = new Counter({
    name: 'paddock_tenant_cache_reads_total',
    help: 'Tenant get, list and watch requests of a resource cached for tenants, by verb and answer: from the cache (cache), sent to the cluster because the cache could not be made fresh enough in time (forwarded), or sent to the cluster because its RBAC denies the read to the user (denied): the cluster answers those.',
    labelNames: ['verb', 'answer'] as const,
    registers: [this.registry],
  });
  readonly tenantWatchSets = new Gauge({
    name: 'paddock_tenant_watch_sets',
    help: 'Tenant watches served from the cache, by what is shared: sets (one conversion of each event each) and watchers.',
    labelNames: ['count'] as const,
    registers: [this.registry],
  });

  /** The stores the tenant cache's budget has shed (tenant-cache-budget.ts): 1 each, by cluster and resource. */
  followTenantCacheBudget(maxBytes: number, shed: () => readonly { cluster: string; resource: string }[]): void {
    new Gauge({
      name: 'paddock_tenant_cache_budget_bytes',
      help: 'The most JSON bytes the cache holds before stores kept only for tenants are shed (--tenant-cache-max-bytes; 0: no budget).',
      registers: [this.registry],
    }).set(maxBytes);
    new Gauge({
      name: 'paddock_tenant_cache_shed',
      help: "Stores kept only for tenants' reads that the budget shed, by cluster and resource: tenants' reads of them are forwarded.",
      labelNames: ['cluster', 'resource'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const s of shed()) this.set({ cluster: s.cluster, resource: s.resource }, 1);
      },
    });
  }

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'paddock_' });
    this.registry.registerMetric(processFaults);
  }

  /**
   * Per cluster and resource, what the multi-cluster cache holds: objects, their JSON bytes,
   * seconds since its watch last heard from the cluster (an event or a BOOKMARK), and relists.
   */
  followCache(stats: () => StoreStats[]): void {
    const labelNames = ['cluster', 'resource'] as const;
    const labelsOf = (s: StoreStats) => ({
      cluster: s.cluster,
      resource: s.resource.group ? `${s.resource.resource}.${s.resource.group}` : s.resource.resource,
    });
    const gauge = (name: string, help: string, value: (s: StoreStats) => number | undefined) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const s of stats()) {
            const v = value(s);
            if (v !== undefined) this.set(labelsOf(s), v);
          }
        },
      });
    gauge('paddock_cache_objects', 'Objects in the multi-cluster cache, by cluster and resource.', (s) => s.objects);
    gauge('paddock_cache_object_bytes', 'JSON bytes of the cached objects, by cluster and resource.', (s) => s.bytes);
    gauge(
      'paddock_cache_watch_lag_seconds',
      "Seconds since a cache store's watch last heard from its cluster (an event or a BOOKMARK).",
      (s) => (s.lastEventAt === undefined ? undefined : (Date.now() - s.lastEventAt) / 1000),
    );
    const counted = new Map<string, number>();
    new Counter({
      name: 'paddock_cache_relists_total',
      help: 'Lists a cache store made again after its first (a 410, a resync for a consistent read), by cluster and resource.',
      labelNames,
      registers: [this.registry],
      collect() {
        for (const s of stats()) {
          const labels = labelsOf(s);
          const key = `${labels.cluster}/${labels.resource}`;
          const delta = s.relists - (counted.get(key) ?? 0);
          if (delta > 0) this.inc(labels, delta);
          counted.set(key, s.relists);
        }
      },
    });
  }

  /** Awaits an upstream request, recording the time until its headers came under `verb`. */
  async upstream<T>(cluster: string, verb: string, request: () => Promise<T>): Promise<T> {
    const end = this.upstreamLatency.startTimer({ cluster, verb });
    try {
      return await request();
    } finally {
      end();
    }
  }

  /** Runs `fn`, recording its duration under `direction`. */
  time<T>(direction: 'up' | 'down', fn: () => T): T {
    const end = this.translation.startTimer({ direction });
    try {
      return fn();
    } finally {
      end();
    }
  }
}
