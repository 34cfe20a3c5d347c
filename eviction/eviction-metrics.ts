/**
 * Karmada's eviction and cluster metrics (pkg/metrics/cluster.go), under Karmada's names so that
 * its dashboards and alerts read them as they are: the queue's depth, the evictions waiting per
 * cluster and kind (+1 when a tenant is queued, −1 when it is moved), how long each took and how
 * it ended, and each cluster's Ready state. One name differs: Karmada's gauge of the evictions
 * waiting is `eviction_kind_total`, which promtool refuses (a `_total` is a counter's, and this
 * one goes down), so here it is `eviction_kind_pending`.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { clusterReadyStatus } from '../clusters/cluster-resource.js';
import type { UpstreamCluster } from '../clusters/upstream-clusters.js';
import type { EvictionQueueObserver } from './eviction-queue.js';

/** The queue's name in the metrics: Karmada has `binding-eviction` and `cluster-binding-eviction`; tenants are one kind. */
export const EVICTION_QUEUE_NAME = 'tenant-eviction';
const RESOURCE_KIND = 'Tenant';

/** Karmada's `cluster_ready_state`, read from the clusters' Ready conditions when scraped. */
export function clusterReadyStateMetric(registry: Registry, clusters: () => readonly UpstreamCluster[]): void {
  new Gauge({
    name: 'cluster_ready_state',
    help: 'Whether each member cluster is Ready (1) or not (0).',
    labelNames: ['member_cluster'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { name, cluster } of clusters())
        this.set({ member_cluster: name }, clusterReadyStatus(cluster) === 'True' ? 1 : 0);
    },
  });
}

/** The eviction queue's metrics, as the queue's observer. */
export function evictionMetrics(
  registry: Registry,
  clusterOf: (tenantId: string) => string | undefined,
): EvictionQueueObserver<string> {
  const depth = new Gauge({
    name: 'eviction_queue_depth',
    help: 'Tenants waiting in the eviction queue, by queue.',
    labelNames: ['name'] as const,
    registers: [registry],
  });
  const kinds = new Gauge({
    name: 'eviction_kind_pending',
    help: 'Evictions queued and not yet done, by the cluster left and the kind evicted.',
    labelNames: ['member_cluster', 'resource_kind'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'eviction_processing_latency_seconds',
    help: 'How long one eviction took, by queue.',
    labelNames: ['name'] as const,
    buckets: Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i),
    registers: [registry],
  });
  const processed = new Counter({
    name: 'eviction_processing_total',
    help: 'Evictions processed, by queue and result (success or error).',
    labelNames: ['name', 'result'] as const,
    registers: [registry],
  });
  // At 0 from the start, as the queue is: a dashboard shows an idle queue rather than no data.
  depth.set({ name: EVICTION_QUEUE_NAME }, 0);
  latency.zero({ name: EVICTION_QUEUE_NAME });
  for (const result of ['success', 'error']) processed.inc({ name: EVICTION_QUEUE_NAME, result }, 0);
  // Where each queued tenant was when queued: it has moved by the time it is done.
  const queuedFrom = new Map<string, string>();
  const kind = (member: string) => ({ member_cluster: member, resource_kind: RESOURCE_KIND });
  return {
    depth: (n) => depth.set({ name: EVICTION_QUEUE_NAME }, n),
    processed: (_tenantId, ms, error) => {
      latency.observe({ name: EVICTION_QUEUE_NAME }, ms / 1000);
      processed.inc({ name: EVICTION_QUEUE_NAME, result: error === undefined ? 'success' : 'error' });
    },
    enqueued: (tenantId) => {
      const from = clusterOf(tenantId) ?? '';
      queuedFrom.set(tenantId, from);
      kinds.inc(kind(from));
    },
    completed: (tenantId) => {
      const from = queuedFrom.get(tenantId);
      if (from === undefined) return;
      queuedFrom.delete(tenantId);
      kinds.dec(kind(from));
    },
  };
}
