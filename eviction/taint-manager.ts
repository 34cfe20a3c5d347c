/**
 * Karmada's NoExecute taint manager with its rate-limited eviction queue, for tenants, run by one
 * elected replica. Every `recheckMs` (Karmada: 10 s), and when a cluster or a tenant changes, each
 * tenant on a cluster with NoExecute taints is looked at: a taint it does not tolerate, or whose
 * toleration ran out, queues it now; a toleration with time left queues it for when it ends; one
 * that holds for ever leaves it (eviction-decision.ts). The queue's workers (Karmada: 3) take the
 * tenants at the paced rate (eviction-queue.ts, `--resource-eviction-rate`) and move each one
 * (tenant-failover.ts), deciding again first since the taint may have gone meanwhile. Every 2 s,
 * apart from that, the tenants' open eviction tasks are settled (purges of the clusters left).
 */
import type { UpstreamCluster } from '../clusters/upstream-clusters.js';
import { ElectedRunner } from '../store/elected-runner.js';
import type { Store } from '../store/index.js';
import type { Clock } from '../clusters/clock.js';
import type { Logger } from '../log/log.js';
import { evictionDecision } from './eviction-decision.js';
import { EvictionQueue, type EvictionQueueObserver } from './eviction-queue.js';
import { gracefulEvictionRateLimiter } from './rate-limiters.js';
import type { TenantFailover } from './tenant-failover.js';
import { hasNoExecuteTaints, type ClusterTaint, type ClusterToleration } from '../clusters/tolerations.js';

const ELECTION = 'taint-manager';
/** How often the tenants' open eviction tasks are settled (their purges tried). */
const SETTLE_INTERVAL_MS = 2000;

/** The tenants the manager reads (the gateway's tenant roster). */
export interface TenantPlacements {
  clusterOf(tenantId: string): string | undefined;
  placedOn(cluster: string): string[];
  tolerationsOf(tenantId: string): readonly ClusterToleration[];
  evicting(): string[];
  onChange(listener: (tenantId: string) => void): () => void;
}

/** Karmada's `--rate-limiter-*` settings of the queue's default limiter. */
export interface RateLimiterSettings {
  baseDelayMs: number;
  maxDelayMs: number;
  qps: number;
  bucketSize: number;
}

export interface TaintManagerOptions {
  store: Store;
  identity: string;
  electionTtlSeconds: number;
  clusters: () => readonly UpstreamCluster[];
  onClustersChange: (listener: () => void) => () => void;
  tenants: TenantPlacements;
  failover: TenantFailover;
  /** Evictions per second (`--resource-eviction-rate`); 0 pauses. Read at every pacing decision. */
  evictionRate: () => number;
  rateLimiter: RateLimiterSettings;
  clock: Clock;
  /** Queue workers, moves at once (`--concurrent-eviction-syncs`; Karmada's ConcurrentReconciles: 3). */
  workers?: number;
  /** How often every tenant on a NoExecute-tainted cluster is looked at again (Karmada: 10 s). */
  recheckMs?: number;
  observer?: EvictionQueueObserver<string>;
  log: Logger;
}

export class TaintManager {
  private readonly runner: ElectedRunner;
  private queue: EvictionQueue<string> | undefined;
  /**
   * Tenants a worker is moving now. The move's own writes (its task, its switch) are tenant
   * changes that start a pass; queued again then, the tenant would take a start slot of the
   * paced queue only to find it has moved.
   */
  private readonly moving = new Set<string>();

  constructor(private readonly options: TaintManagerOptions) {
    this.runner = new ElectedRunner({
      store: options.store,
      election: ELECTION,
      identity: options.identity,
      ttlSeconds: options.electionTtlSeconds,
      name: 'taint manager',
      lead: (leading) => this.lead(leading),
    });
  }

  start(): void {
    this.runner.start();
  }

  stop(): Promise<void> {
    return this.runner.stop();
  }

  /** The rate changed: a worker waiting for its start asks the pacer again (from 0: the pause ends). */
  rateChanged(): void {
    this.queue?.rateChanged();
  }

  private async lead(leading: AbortSignal): Promise<void> {
    const limiter = gracefulEvictionRateLimiter<string | symbol>({
      ...this.options.rateLimiter,
      evictionRate: this.options.evictionRate,
      clock: this.options.clock,
    });
    const queue = new EvictionQueue<string>({
      limiter,
      pacer: limiter,
      paused: () => this.options.evictionRate() === 0,
      clock: this.options.clock,
      observer: this.options.observer,
    });
    this.queue = queue;
    const workers = queue.run(this.options.workers ?? 3, (tenantId) => this.reconcile(queue, tenantId), leading);
    const settling = this.settleWhileLeading(leading);
    let wake: (() => void) | undefined;
    const changed = () => wake?.();
    const unfollowClusters = this.options.onClustersChange(changed);
    const unfollowTenants = this.options.tenants.onChange(changed);
    leading.addEventListener('abort', changed, { once: true });
    while (!leading.aborted) {
      this.enqueueTainted(queue);
      await this.sleep(this.options.recheckMs ?? 10_000, (w) => (wake = w));
    }
    unfollowClusters();
    unfollowTenants();
    queue.shutDown();
    await Promise.all([workers, settling]);
    if (this.queue === queue) this.queue = undefined;
  }

  /**
   * The tenants' open tasks, settled every SETTLE_INTERVAL_MS apart from the decisions: a purge
   * lists and deletes on the old cluster, and a burst of moves (each a tenant change) would
   * otherwise start one round of it per change.
   */
  private async settleWhileLeading(leading: AbortSignal): Promise<void> {
    let wake: (() => void) | undefined;
    leading.addEventListener('abort', () => wake?.(), { once: true });
    while (!leading.aborted) {
      await this.settleTasks();
      await this.sleep(SETTLE_INTERVAL_MS, (w) => (wake = w));
    }
  }

  /** Sleeps on the clock; `onWake` gets what ends the sleep early. */
  private sleep(ms: number, onWake: (wake: () => void) => void): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = this.options.clock.setTimer(resolve, ms);
      onWake(() => (timer.cancel(), resolve()));
    });
  }

  /** Karmada's enqueueBinding, for every tenant on a cluster with NoExecute taints. */
  private enqueueTainted(queue: EvictionQueue<string>): void {
    const now = new Date(this.options.clock.now());
    for (const cluster of this.options.clusters()) {
      const taints = taintsOf(cluster);
      if (!hasNoExecuteTaints(taints)) continue;
      for (const tenantId of this.options.tenants.placedOn(cluster.name)) {
        if (this.moving.has(tenantId)) continue;
        const decision = evictionDecision(taints, this.options.tenants.tolerationsOf(tenantId), now);
        if (decision.action === 'now') queue.add(tenantId);
        else if (decision.action === 'after') queue.addAfter(tenantId, decision.ms);
      }
    }
  }

  /** Karmada's needEviction, then the eviction: the decision is made again with what is true now. */
  private async reconcile(queue: EvictionQueue<string>, tenantId: string): Promise<void> {
    const from = this.options.tenants.clusterOf(tenantId);
    const cluster = this.options.clusters().find((c) => c.name === from);
    if (!from || !cluster) return;
    const decision = evictionDecision(
      taintsOf(cluster),
      this.options.tenants.tolerationsOf(tenantId),
      new Date(this.options.clock.now()),
    );
    if (decision.action === 'after') queue.addAfter(tenantId, decision.ms);
    if (decision.action !== 'now') return;
    this.moving.add(tenantId);
    try {
      await this.options.failover.evict(tenantId, from);
    } finally {
      this.moving.delete(tenantId);
    }
  }

  private async settleTasks(): Promise<void> {
    const evicting = this.options.tenants.evicting();
    if (evicting.length === 0) return;
    await this.options.failover
      .settle(evicting)
      .catch((err: Error) => this.options.log.warn('settling eviction tasks', { error: err.message }));
  }
}

function taintsOf(cluster: UpstreamCluster): ClusterTaint[] {
  const taints: unknown = cluster.cluster.spec?.taints;
  return Array.isArray(taints) ? (taints as ClusterTaint[]) : [];
}
