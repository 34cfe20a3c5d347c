import type { RequestInfo } from '../../apiserver/request-info.js';
import { ApiError, statusOf } from '../../apiserver/status.js';

/**
 * A tenant's share of one gateway replica. Each bound is per tenant and per replica; 0 turns it off.
 */
export interface TenantLimitValues {
  /** Requests per second, refilled into the tenant's token bucket. */
  qps: number;
  /** The bucket's size: how many requests may come at once after a quiet spell. */
  burst: number;
  /** Open long-running requests: watches, logs, pod and service proxies, exec/attach/port-forward. */
  maxWatches: number;
  /** Upstream connections the tenant's requests hold at once (a cross-namespace watch holds one per namespace, plus one). */
  maxUpstreamConnections: number;
}

/**
 * Generous enough that a tenant's ordinary work (kubectl, controllers with a few informers, a
 * test suite of thousands of sequential requests) never meets them, tight enough that one tenant
 * cannot take a replica's CPU or file descriptors from the others.
 */
export const DEFAULT_TENANT_LIMITS: TenantLimitValues = {
  qps: 1000,
  burst: 2000,
  maxWatches: 200,
  maxUpstreamConnections: 1000,
};

/** What one request of a tenant holds while it runs, given back by `end()`. */
export interface TenantRequestLease {
  /** The request is long-running (a watch, a stream): it takes one of the tenant's open-stream places, or is refused 429. */
  openStream(): void;
  /** `n` more upstream connections (a cross-namespace watch's per-namespace watches), or 429 if they would pass the bound; nothing is taken then. */
  claimUpstream(n: number): void;
  releaseUpstream(n: number): void;
  /** The request is over: its stream place and every upstream connection it holds go back. Later calls do nothing. */
  end(): void;
}

interface TenantUsage {
  tokens: number;
  /** When `tokens` was last brought up to date (ms, monotonic). */
  at: number;
  streams: number;
  upstream: number;
}

/**
 * Fair share per tenant on this replica, as kube-apiserver's max-in-flight and priority-and-
 * fairness answer an overload: 429 TooManyRequests with `Retry-After`, which kubectl and
 * client-go wait out and retry. Every request takes a token of its tenant's bucket when it
 * starts (a watch counts once, however long it runs) and holds one upstream connection until it
 * ends. The limits are read on each request, so a change of the Tenant's `spec.limits` applies
 * at once. One entry per tenant that has made a request, so memory is bounded by the tenants.
 */
export class TenantLimits {
  private readonly usage = new Map<string, TenantUsage>();
  /** The defaults under each Tenant's overrides, merged once per overrides object rather than per request. */
  private readonly merged = new WeakMap<Partial<TenantLimitValues>, TenantLimitValues>();

  constructor(
    private readonly defaults: TenantLimitValues,
    /** The Tenant's own `spec.limits`, where it sets any. */
    private readonly overridesOf: (tenantId: string) => Partial<TenantLimitValues> | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {}

  limitsOf(tenantId: string): TenantLimitValues {
    const overrides = this.overridesOf(tenantId);
    if (!overrides) return this.defaults;
    let limits = this.merged.get(overrides);
    if (!limits) this.merged.set(overrides, (limits = { ...this.defaults, ...overrides }));
    return limits;
  }

  /** A request of the tenant starts: one token and one upstream connection, or 429. */
  begin(tenantId: string): TenantRequestLease {
    const limits = this.limitsOf(tenantId);
    const usage = this.usageOf(tenantId, limits);
    if (limits.maxUpstreamConnections > 0 && usage.upstream + 1 > limits.maxUpstreamConnections)
      throw upstreamBound(tenantId, limits);
    if (limits.qps > 0) {
      if (usage.tokens < 1) throw rateBound(tenantId, limits, Math.ceil((1 - usage.tokens) / limits.qps));
      usage.tokens -= 1;
    }
    usage.upstream += 1;
    return this.lease(tenantId, usage);
  }

  private lease(tenantId: string, usage: TenantUsage): TenantRequestLease {
    let streams = 0;
    let upstream = 1;
    let ended = false;
    return {
      openStream: () => {
        if (ended || streams > 0) return;
        const limits = this.limitsOf(tenantId);
        if (limits.maxWatches > 0 && usage.streams + 1 > limits.maxWatches) throw streamBound(tenantId, limits);
        usage.streams += 1;
        streams = 1;
      },
      claimUpstream: (n) => {
        if (ended) return;
        const limits = this.limitsOf(tenantId);
        if (limits.maxUpstreamConnections > 0 && usage.upstream + n > limits.maxUpstreamConnections)
          throw upstreamBound(tenantId, limits, n);
        usage.upstream += n;
        upstream += n;
      },
      releaseUpstream: (n) => {
        if (ended) return;
        const released = Math.min(n, upstream);
        usage.upstream -= released;
        upstream -= released;
      },
      end: () => {
        if (ended) return;
        ended = true;
        usage.streams -= streams;
        usage.upstream -= upstream;
      },
    };
  }

  /** The tenant's usage with its bucket refilled up to now. */
  private usageOf(tenantId: string, limits: TenantLimitValues): TenantUsage {
    const now = this.now();
    let usage = this.usage.get(tenantId);
    if (!usage) this.usage.set(tenantId, (usage = { tokens: limits.burst, at: now, streams: 0, upstream: 0 }));
    usage.tokens = Math.min(limits.burst, usage.tokens + ((now - usage.at) / 1000) * limits.qps);
    usage.at = now;
    return usage;
  }
}

function tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
  return new ApiError(statusOf(429, 'TooManyRequests', message, { retryAfterSeconds: Math.max(1, retryAfterSeconds) }));
}

function rateBound(tenantId: string, limits: TenantLimitValues, retryAfterSeconds: number): ApiError {
  return tooManyRequests(
    `Too many requests, please try again later: tenant ${tenantId} may make ${limits.qps} requests per second (burst ${limits.burst}) on this gateway`,
    retryAfterSeconds,
  );
}

function streamBound(tenantId: string, limits: TenantLimitValues): ApiError {
  return tooManyRequests(
    `Too many requests, please try again later: tenant ${tenantId} may hold ${limits.maxWatches} open watches and streams (maxWatches) on this gateway; close one first`,
    1,
  );
}

function upstreamBound(tenantId: string, limits: TenantLimitValues, wanted = 1): ApiError {
  const what =
    wanted > 1
      ? `this request needs ${wanted} more upstream connections (a watch across namespaces holds one per namespace, plus one), and `
      : '';
  return tooManyRequests(
    `Too many requests, please try again later: ${what}tenant ${tenantId} may hold ${limits.maxUpstreamConnections} upstream connections (maxUpstreamConnections) on this gateway`,
    1,
  );
}

const LONG_RUNNING_SUBRESOURCES = new Set(['log', 'proxy', 'exec', 'attach', 'portforward']);

/** kube-apiserver's long-running requests (its `LongRunningRequestCheck`): watches, and logs, proxies and the upgraded streams. */
export function isLongRunning(info: RequestInfo): boolean {
  return info.verb === 'watch' || (info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource));
}
