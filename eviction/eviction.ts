/**
 * The failover half, as one replica runs it: Karmada's taint manager and eviction queue
 * (taint-manager.ts) over the gateway's tenant and cluster rosters, moving tenants with
 * tenant-failover.ts, with Karmada's metrics. Off unless `--enable-no-execute-taint-eviction`
 * (Karmada's default too: moving tenants is the admin's decision).
 */
import type { Registry } from 'prom-client';
import type { GenericRegistry } from '../apiserver/registry/generic-registry.js';
import type { ClusterResourceStore } from '../search/cluster-resource-store.js';
import { logger } from '../log/log.js';
import type { Store } from '../store/index.js';
import type { UpstreamCluster } from '../clusters/upstream-clusters.js';
import { adaptiveEvictionRate } from './adaptive-eviction-rate.js';
import { validEvictionRate, type EvictionSettings } from './eviction-settings.js';
import { realClock, type Clock } from '../clusters/clock.js';
import { evictionMetrics } from './eviction-metrics.js';
import { TaintManager, type TenantPlacements } from './taint-manager.js';
import { TenantFailover } from './tenant-failover.js';

export interface EvictionDeps {
  settings: EvictionSettings;
  store: Store;
  identity: string;
  electionTtlSeconds: number;
  clusters: () => readonly UpstreamCluster[];
  onClustersChange: (listener: () => void) => () => void;
  tenants: TenantPlacements & { tenantsPerCluster(): ReadonlyMap<string, number> };
  tenantRegistry: GenericRegistry;
  cachedStores: (cluster: string) => readonly ClusterResourceStore[];
  metrics: Registry;
  clock?: Clock;
}

/** What the gateway holds of the running eviction. */
export interface Eviction {
  /** Sets `--resource-eviction-rate` while running; negative is refused as Karmada's validation does. */
  setRate(rate: number): void;
  stop(): Promise<void>;
}

export function startEviction(deps: EvictionDeps): Eviction {
  const clock = deps.clock ?? realClock;
  let rate = deps.settings.resourceEvictionRate;
  const { adaptive } = deps.settings;
  const effectiveRate = () => (adaptive ? adaptiveEvictionRate(deps.clusters(), { ...adaptive, rate }) : rate);
  const log = logger('eviction');
  const failover = new TenantFailover({
    tenants: deps.tenantRegistry,
    clusters: deps.clusters,
    load: () => deps.tenants.tenantsPerCluster(),
    cachedStores: deps.cachedStores,
    defaultPurgeMode: deps.settings.purgeMode,
    gracefulEvictionTimeoutMs: deps.settings.gracefulEvictionTimeoutMs,
    clock,
    log,
  });
  const manager = new TaintManager({
    store: deps.store,
    identity: deps.identity,
    electionTtlSeconds: deps.electionTtlSeconds,
    clusters: deps.clusters,
    onClustersChange: deps.onClustersChange,
    tenants: deps.tenants,
    failover,
    evictionRate: effectiveRate,
    workers: deps.settings.workers,
    rateLimiter: deps.settings.rateLimiter,
    clock,
    observer: evictionMetrics(deps.metrics, (tenantId) => deps.tenants.clusterOf(tenantId)),
    log,
  });
  manager.start();
  // The adaptive rate moves with the clusters: a worker waiting for its start asks again when it does.
  let lastRate = effectiveRate();
  const unfollow = adaptive
    ? deps.onClustersChange(() => {
        const now = effectiveRate();
        if (now === lastRate) return;
        log.info(
          `rate ${now}/s (was ${lastRate}/s): ${now === 0 ? 'no healthy cluster left with room' : 'clusters changed'}`,
          { rate: now, was: lastRate },
        );
        lastRate = now;
        manager.rateChanged();
      })
    : () => {};
  return {
    setRate(next) {
      if (!validEvictionRate(next)) throw new Error(`resource eviction rate ${next} must be non-negative`);
      rate = next;
      lastRate = effectiveRate();
      manager.rateChanged();
    },
    stop: () => {
      unfollow();
      return manager.stop();
    },
  };
}
