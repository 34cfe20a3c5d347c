/**
 * Rate limiters as client-go's workqueue has them (util/workqueue/default_rate_limiters.go) and
 * the one Karmada adds for evictions (pkg/controllers/cluster/dynamic_rate_limiter.go): each
 * says how long an item waits before it is handed out again. Durations are in milliseconds.
 * Items are compared as Map keys are (strings by value, objects by identity).
 */
import type { Clock } from '../clusters/clock.js';

export interface RateLimiter<T> {
  /** How long `item` waits before it is handed out again; the call counts as one more requeue. */
  when(item: T): number;
  /** `item` succeeded: its next `when` starts over. */
  forget(item: T): void;
  /** How many `when`s `item` has had since it was last forgotten. */
  numRequeues(item: T): number;
}

/** The per-item backoff: base × 2^(requeues so far), capped at max. */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
  ) {}

  when(item: T): number {
    const failures = this.failures.get(item) ?? 0;
    this.failures.set(item, failures + 1);
    // 2^1023 is the largest finite power of two: past it the product would be ∞, or NaN for a 0 base.
    return Math.min(this.maxMs, this.baseMs * 2 ** Math.min(failures, 1023));
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/**
 * One token bucket for all items, as golang.org/x/time/rate's Limiter answers
 * `Reserve().Delay()`: `burst` tokens, refilled at `qps` a second, never above `burst`. Each
 * `when` takes a token, into debt if none is left, and answers how long until that token exists.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly clock: Clock,
  ) {
    // x/time/rate would answer "never" for a bucket that cannot hold the one token asked for.
    if (!(Number.isFinite(qps) && qps > 0 && burst >= 1)) {
      throw new RangeError(`a token bucket needs a finite qps > 0 and a burst ≥ 1, not qps ${qps}, burst ${burst}`);
    }
    this.tokens = burst;
    this.last = clock.now();
  }

  when(_item: T): number {
    const now = this.clock.now();
    // A clock that steps back refills nothing.
    this.tokens = Math.min(this.burst, this.tokens + (Math.max(0, now - this.last) * this.qps) / 1000);
    this.last = now;
    this.tokens -= 1;
    return this.tokens < 0 ? (-this.tokens * 1000) / this.qps : 0;
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** Karmada's wait when the eviction rate is 0: a pause, until the rate changes. */
export const MAX_EVICTION_DELAY_MS = 1_800_000;

/**
 * Karmada's eviction pace: 1000 / rate ms for a rate in evictions a second, read at every `when`
 * so that a change applies to the next wait. Items are not tracked.
 */
export class DynamicRateLimiter<T> implements RateLimiter<T> {
  constructor(private readonly rate: () => number) {}

  when(_item: T): number {
    const rate = this.rate();
    // Karmada's flag validation refuses a negative rate (ClusterFailoverOptions: "must be
    // non-negative"); one that gets here anyway adds no wait, leaving it to the other limiters.
    if (rate < 0) return 0;
    // 0 pauses; so does NaN, a rate nobody can tell, as Karmada halts evictions when it cannot tell.
    if (!(rate > 0)) return MAX_EVICTION_DELAY_MS;
    return 1000 / rate;
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** The longest wait of all the limiters; every one of them counts each `when`. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: readonly RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    let longest = 0;
    for (const limiter of this.limiters) longest = Math.max(longest, limiter.when(item));
    return longest;
  }

  forget(item: T): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }

  numRequeues(item: T): number {
    let most = 0;
    for (const limiter of this.limiters) most = Math.max(most, limiter.numRequeues(item));
    return most;
  }
}

export interface GracefulEvictionRateLimiterOptions {
  /** The first retry's wait (5 ms). */
  baseDelayMs?: number;
  /** No retry waits longer (1,000,000 ms). */
  maxDelayMs?: number;
  /** The token bucket's refill a second (10). */
  qps?: number;
  /** The token bucket's size (100). */
  bucketSize?: number;
  /** Evictions a second, read at every `when`. */
  evictionRate: () => number;
  clock: Clock;
}

/**
 * Karmada's NewGracefulEvictionRateLimiter: the eviction pace combined with its controllers'
 * default limiter (the per-item backoff and the token bucket, ratelimiterflag's
 * DefaultControllerRateLimiter). As its flags do, a setting of 0 or less means the default.
 */
export function gracefulEvictionRateLimiter<T>(options: GracefulEvictionRateLimiterOptions): RateLimiter<T> {
  const setting = (value: number | undefined, fallback: number) =>
    value !== undefined && value > 0 ? value : fallback;
  return new MaxOfRateLimiter<T>(
    new DynamicRateLimiter(options.evictionRate),
    new MaxOfRateLimiter(
      new ItemExponentialFailureRateLimiter(setting(options.baseDelayMs, 5), setting(options.maxDelayMs, 1_000_000)),
      new BucketRateLimiter(setting(options.qps, 10), setting(options.bucketSize, 100), options.clock),
    ),
  );
}
