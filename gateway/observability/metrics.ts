import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { StoreStats } from '../../search/cache-controller.js';
import type { CacheResource } from '../../search/cluster-resource-store.js';
import { processFaults } from '../../apiserver/process-faults.js';
import { BucketHistogram } from './bucket-histogram.js';
import type { Identity } from '../auth/authenticate.js';
import { upstreamFailureReason, type UpstreamFailures } from '../upstream/upstream-failure.js';
import type { PriorityLevel, RejectReason } from '../../clusters/upstream-seats.js';

/** Who made a request, in the metrics: the kind of identity, bounded ("the tenant class"). */
export const IDENTITY_KINDS = ['admin', 'tenant', 'unauthenticated'] as const;
export type IdentityKind = (typeof IDENTITY_KINDS)[number];

/** A request's identity as the metrics see it: its kind, and for a tenant's, the tenant (a label only with `perTenant`). */
export interface Requester {
  identity: IdentityKind;
  tenant?: string;
}

export function requesterOf(identity: Identity | { refused: string }): Requester {
  if ('refused' in identity) return { identity: 'unauthenticated' };
  return identity.kind === 'tenant' ? { identity: 'tenant', tenant: identity.tenant } : { identity: 'admin' };
}

export interface GatewayMetricsOptions {
  /**
   * `--metrics-per-tenant`: requests and open watches carry a `tenant` label as well, and the cache's
   * stores of tenants' custom resources are told apart. One series per tenant (and code and verb):
   * off by default, since ten thousand tenants are ten thousand times the series.
   */
  perTenant?: boolean;
}

/**
 * What the cache metrics call the stores of the tenants' own custom resources (groups `<tid>-…`,
 * cached for failover) without `perTenant`: their resource names hold tenant ids, so they are
 * added up under this one name per cluster.
 */
export const TENANT_CUSTOM_RESOURCES = '(tenant custom resources)';

/**
 * prom-client's default metrics that promtool refuses: gauges named `*_total` (promtool: "non-counter
 * metrics should not have _total suffix"). Each is the sum of its gauge by type beside it
 * (`nodejs_active_handles{type}` and so on), so `sum(paddock_nodejs_active_handles)` says the same:
 * dropped rather than renamed, which would only be a second name for that sum.
 */
const REDUNDANT_DEFAULT_METRICS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

const PREFIX = 'paddock_';

/**
 * The gateway's Prometheus metrics, on a registry of its own (several gateways can run in one
 * process in tests): requests by identity kind, verb and code, and their latency; open watches;
 * upstream latency and errors; the time spent translating requests (up) and responses (down); the
 * caches. Every label is bounded by the gateway's configuration (clusters, resources, verbs, codes)
 * unless `perTenant` asks for the tenants' ids (docs/metrics.md).
 */
export class GatewayMetrics implements UpstreamFailures {
  readonly registry = new Registry();
  readonly perTenant: boolean;
  private readonly requests: Counter<string>;
  private readonly requestDuration = new BucketHistogram({
    name: 'paddock_request_duration_seconds',
    help: "Time from a request to the end of its answer, by identity kind, verb and code class (2xx, 4xx, ...); long-running requests (watches, logs, proxies) are left out, as in kube-apiserver's SLO metrics.",
    labelNames: ['identity', 'verb', 'code_class'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly openWatches: Gauge<string>;
  /** The open watches by their labels (JSON): a tenant's series is removed, not left at 0, when its last one closes. */
  private readonly watchCounts = new Map<string, number>();
  readonly upstreamErrors = new Counter({
    name: 'paddock_upstream_errors_total',
    help: 'Requests to a cluster that got no answer, by cluster and reason (timeout, refused, reset, dns, unreachable, tls).',
    labelNames: ['cluster', 'reason'] as const,
    registers: [this.registry],
  });
  readonly upstreamLatency = new BucketHistogram({
    name: 'paddock_upstream_request_duration_seconds',
    help: 'Time until the upstream cluster answered a forwarded request (headers), from when the request had its seat, by cluster and verb.',
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
  private readonly upstreamWatches = new Gauge({
    name: 'paddock_upstream_watches',
    help: "Watches the gateway holds open on a cluster now, by cluster and resource: its caches' and informers' and the tenants' forwarded ones (upstream-watches.ts).",
    labelNames: ['cluster', 'resource'] as const,
    registers: [this.registry],
  });
  readonly watchEventsRead = new Counter({
    name: 'paddock_upstream_watch_events_total',
    help: 'Events read from upstream watches, by cluster, before the foreign ones are dropped: what a watch costs upstream.',
    labelNames: ['cluster'] as const,
    registers: [this.registry],
  });
  private readonly flowRejections = new Counter({
    name: 'paddock_flowcontrol_rejected_requests_total',
    help: "Requests to a cluster refused 429 for want of a seat, by cluster, priority level (tenants, gateway) and reason: the flow's queue was full (queue-full), its wait ran out (time-out), or its client went away while it waited (cancelled).",
    labelNames: ['cluster', 'priority_level', 'reason'] as const,
    registers: [this.registry],
  });
  private readonly seatWaits = new BucketHistogram({
    name: 'paddock_flowcontrol_request_wait_duration_seconds',
    help: 'Time a request to a cluster waited for a seat, by cluster, priority level and whether it then executed (true) or was refused (false).',
    labelNames: ['cluster', 'priority_level', 'execute'] as const,
    buckets: [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30],
    registers: [this.registry],
  });
  readonly translation = new BucketHistogram({
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

  constructor(options: GatewayMetricsOptions = {}) {
    this.perTenant = options.perTenant ?? false;
    const tenant = this.perTenant ? ['tenant'] : [];
    this.requests = new Counter({
      name: 'paddock_requests_total',
      help: `Requests answered, by identity kind (admin, tenant, unauthenticated)${this.perTenant ? ', tenant' : ''}, verb and HTTP code.`,
      labelNames: ['identity', ...tenant, 'verb', 'code'],
      registers: [this.registry],
    });
    this.openWatches = new Gauge({
      name: 'paddock_open_watches',
      help: `Watches open now, by identity kind${this.perTenant ? ' and tenant' : ''}.`,
      labelNames: ['identity', ...tenant],
      registers: [this.registry],
    });
    // Every kind at 0 from the start, so that a dashboard shows 0 rather than no data (per tenant, the
    // tenants' series come and go with their watches).
    for (const identity of this.perTenant ? (['admin', 'unauthenticated'] as const) : IDENTITY_KINDS)
      this.openWatches.set(this.labels({ identity }), 0);
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    for (const answer of ['cache', 'unavailable']) this.cacheReads.inc({ answer }, 0);
    for (const name of REDUNDANT_DEFAULT_METRICS) this.registry.removeSingleMetric(PREFIX + name);
    this.registry.registerMetric(processFaults);
  }

  /** A request's labels: the identity kind, and the tenant when per tenant (empty for the admin and the unauthenticated). */
  private labels(who: Requester): Record<string, string> {
    return this.perTenant ? { identity: who.identity, tenant: who.tenant ?? '' } : { identity: who.identity };
  }

  /**
   * A request answered: counted under its identity, verb and code, and, unless it is long-running
   * (a watch, a followed log, a proxied stream, whose time is the client's), its duration observed.
   */
  requestEnded(who: Requester, verb: string, code: number, seconds: number, longRunning: boolean): void {
    // Spelled out rather than spread from labels(): a spread object made the counter's label hash 2 µs slower.
    const codeText = String(code);
    this.requests.inc(
      this.perTenant
        ? { identity: who.identity, tenant: who.tenant ?? '', verb, code: codeText }
        : { identity: who.identity, verb, code: codeText },
    );
    if (!longRunning)
      this.requestDuration.observe(
        { identity: who.identity, verb, code_class: `${Math.floor(code / 100)}xx` },
        seconds,
      );
  }

  /** A watch opened; the function returned closes it (once). A tenant's own series goes when its last watch does. */
  watchOpened(who: Requester): () => void {
    const labels = this.labels(who);
    const key = JSON.stringify(labels);
    this.watchCounts.set(key, (this.watchCounts.get(key) ?? 0) + 1);
    this.openWatches.set(labels, this.watchCounts.get(key)!);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      const left = this.watchCounts.get(key)! - 1;
      if (left === 0 && this.perTenant && who.tenant !== undefined) {
        this.watchCounts.delete(key);
        this.openWatches.remove(labels);
      } else {
        this.watchCounts.set(key, left);
        this.openWatches.set(labels, left);
      }
    };
  }

  /** A watch opened on `cluster`; the function returned closes it (once). */
  upstreamWatchOpened(cluster: string, resource: string): () => void {
    this.upstreamWatches.inc({ cluster, resource });
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.upstreamWatches.dec({ cluster, resource });
    };
  }

  /** Counts `err` under `cluster` when it is a failure to talk to the cluster (upstream-failure.ts); anything else is not the cluster's. */
  upstreamFailed(cluster: string, err: unknown): void {
    const reason = upstreamFailureReason(err);
    if (reason) this.upstreamErrors.inc({ cluster, reason });
  }

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

  /**
   * Per cluster and resource, what the multi-cluster cache holds: objects, their JSON bytes,
   * seconds since its watch last heard from the cluster (an event or a BOOKMARK), and relists.
   * The stores `isTenantCustom` says hold a tenant's own custom resources are added up under
   * TENANT_CUSTOM_RESOURCES, unless per tenant: their names hold tenant ids (the most objects and
   * bytes, the longest lag and every relist of them).
   */
  followCache(stats: () => StoreStats[], isTenantCustom: (resource: CacheResource) => boolean): void {
    const labelNames = ['cluster', 'resource'] as const;
    const resourceOf = (s: StoreStats) =>
      !this.perTenant && isTenantCustom(s.resource)
        ? TENANT_CUSTOM_RESOURCES
        : s.resource.group
          ? `${s.resource.resource}.${s.resource.group}`
          : s.resource.resource;
    /** Each store's value, added up (or the largest taken) per cluster and resource label. */
    const byLabels = (value: (s: StoreStats) => number | undefined, combine: (a: number, b: number) => number) => {
      const values = new Map<string, { labels: { cluster: string; resource: string }; value: number }>();
      for (const s of stats()) {
        const v = value(s);
        if (v === undefined) continue;
        const labels = { cluster: s.cluster, resource: resourceOf(s) };
        const key = `${labels.cluster}/${labels.resource}`;
        const seen = values.get(key);
        values.set(key, { labels, value: seen ? combine(seen.value, v) : v });
      }
      return values.values();
    };
    const sum = (a: number, b: number) => a + b;
    const gauge = (
      name: string,
      help: string,
      value: (s: StoreStats) => number | undefined,
      combine: (a: number, b: number) => number,
    ) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const { labels, value: v } of byLabels(value, combine)) this.set(labels, v);
        },
      });
    gauge(
      'paddock_cache_objects',
      'Objects in the multi-cluster cache, by cluster and resource.',
      (s) => s.objects,
      sum,
    );
    gauge(
      'paddock_cache_object_bytes',
      'JSON bytes of the cached objects, by cluster and resource.',
      (s) => s.bytes,
      sum,
    );
    gauge(
      'paddock_cache_watch_lag_seconds',
      "Seconds since a cache store's watch last heard from its cluster (an event or a BOOKMARK), by cluster and resource.",
      (s) => (s.lastEventAt === undefined ? undefined : (Date.now() - s.lastEventAt) / 1000),
      Math.max,
    );
    // Relists are counted per store (each store's own count since its last scrape), then added up under its labels.
    const counted = new Map<string, number>();
    new Counter({
      name: 'paddock_cache_relists_total',
      help: 'Lists a cache store made again after its first (a 410, a resync for a consistent read), by cluster and resource.',
      labelNames,
      registers: [this.registry],
      collect() {
        for (const s of stats()) {
          const key = `${s.cluster}/${s.resource.group}/${s.resource.resource}`;
          // At 0 from the store's first scrape: a store that never relisted has a series too.
          const delta = Math.max(0, s.relists - (counted.get(key) ?? 0));
          this.inc({ cluster: s.cluster, resource: resourceOf(s) }, delta);
          counted.set(key, s.relists);
        }
      },
    });
  }

  /** A request to `cluster` waited `ms` for a seat, then got one or was refused (upstream-seats.ts). */
  seatWaited(cluster: string, level: PriorityLevel, ms: number, executed: boolean): void {
    this.seatWaits.observe({ cluster, priority_level: level, execute: String(executed) }, ms / 1000);
  }

  /** A request to `cluster` refused a seat (upstream-seats.ts). */
  seatRefused(cluster: string, level: PriorityLevel, reason: RejectReason): void {
    this.flowRejections.inc({ cluster, priority_level: level, reason });
  }

  /** Per cluster and priority level, its seats, the seats held and the requests waiting, read at each scrape. */
  followFlowControl(
    levels: () => { cluster: string; level: PriorityLevel; seats: number; executing: number; waiting: number }[],
  ): void {
    const gauge = (name: string, help: string, value: (l: ReturnType<typeof levels>[number]) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['cluster', 'priority_level'] as const,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const l of levels()) this.set({ cluster: l.cluster, priority_level: l.level }, value(l));
        },
      });
    gauge(
      'paddock_flowcontrol_nominal_limit_seats',
      "The seats of a cluster's priority level: its requests at once (--upstream-tenant-seats, --upstream-gateway-seats).",
      (l) => l.seats,
    );
    gauge(
      'paddock_flowcontrol_current_executing_seats',
      "Seats of a cluster's priority level held now: requests sent and their answers not yet read off the connection.",
      (l) => l.executing,
    );
    gauge(
      'paddock_flowcontrol_current_inqueue_requests',
      "Requests waiting for a seat of a cluster's priority level now.",
      (l) => l.waiting,
    );
  }

  /**
   * Awaits an upstream request, recording the time until its headers came under `verb`: from when
   * `request` calls `seated` (its seat on the cluster, upstream-seats.ts, is got: the wait for it
   * is not the cluster's), or from the start if it never does.
   */
  async upstream<T>(cluster: string, verb: string, request: (seated: () => void) => Promise<T>): Promise<T> {
    let start = performance.now();
    try {
      return await request(() => (start = performance.now()));
    } finally {
      this.upstreamLatency.observe({ cluster, verb }, (performance.now() - start) / 1000);
    }
  }

  /** Runs `fn`, recording its duration under `direction`, with `earlierMs` of the same translation spent before it. */
  time<T>(direction: 'up' | 'down', fn: () => T, earlierMs = 0): T {
    const start = performance.now();
    try {
      return fn();
    } finally {
      this.translation.observe({ direction }, (performance.now() - start + earlierMs) / 1000);
    }
  }
}
