/**
 * The eviction worker's flags, apart from the worker (eviction.ts): `paddock serve` checks them
 * before it loads the gateway.
 */
import type { AdaptiveRateSettings } from './adaptive-eviction-rate.js';
import type { RateLimiterSettings } from './taint-manager.js';
import type { PurgeMode } from './tenant-failover.js';

/** The flags, with Karmada's names and defaults. */
export interface EvictionSettings {
  /** `--resource-eviction-rate`: tenants moved per second; 0 pauses. */
  resourceEvictionRate: number;
  /** `--no-execute-taint-eviction-purge-mode` for tenants whose `spec.failover.purgeMode` is unset. */
  purgeMode: Exclude<PurgeMode, 'Never'>;
  /** `--graceful-eviction-timeout`. */
  gracefulEvictionTimeoutMs: number;
  /** `--concurrent-eviction-syncs`: moves under way at once; the rate, not this, sets the pace. */
  workers: number;
  /** `--rate-limiter-base-delay`, `--rate-limiter-max-delay`, `--rate-limiter-qps`, `--rate-limiter-bucket-size`. */
  rateLimiter: RateLimiterSettings;
  /** `--adaptive-eviction-rate` with `--secondary-resource-eviction-rate` and `--unhealthy-cluster-threshold` (adaptive-eviction-rate.ts); undefined: the rate is the flag's. */
  adaptive?: Omit<AdaptiveRateSettings, 'rate'>;
}

export const DEFAULT_EVICTION_SETTINGS: EvictionSettings = {
  resourceEvictionRate: 0.5,
  purgeMode: 'Gracefully',
  gracefulEvictionTimeoutMs: 600_000,
  workers: 3,
  rateLimiter: { baseDelayMs: 5, maxDelayMs: 1_000_000, qps: 10, bucketSize: 100 },
};

/** Karmada's ClusterFailoverOptions validation of the rate. */
export function validEvictionRate(rate: number): boolean {
  return Number.isFinite(rate) && rate >= 0;
}
