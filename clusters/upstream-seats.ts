import { ApiError, statusOf } from '../apiserver/status.js';
import { realClock, type Clock, type Timer } from './clock.js';
import { FairQueues, type FairQueueSettings } from './fair-queues.js';

/**
 * The priority levels of one cluster's seats, as API Priority and Fairness names its levels: the
 * tenants' requests share one, the gateway's own (the admin's pass-through, health probes,
 * discovery) have one of their own, so tenants filling theirs never hold up a probe.
 */
export const PRIORITY_LEVELS = ['tenants', 'gateway'] as const;
export type PriorityLevel = (typeof PRIORITY_LEVELS)[number];

/** Why a request got no seat, in APF's words (`apiserver_flowcontrol_rejected_requests_total{reason}`). */
export const REJECT_REASONS = ['queue-full', 'time-out', 'cancelled'] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

/** One cluster's seats as `paddock serve` sets them (docs/gateway.md, "Fair sharing of a cluster"). */
export interface UpstreamSeatSettings {
  /** `--upstream-tenant-seats`: tenants' requests to the cluster at once. */
  tenantSeats: number;
  /** `--tenant-upstream-seats`: of those, one tenant's at most. */
  seatsPerTenant: number;
  /** `--tenant-queue-length`: one tenant's requests waiting for a seat at most. */
  tenantQueueLength: number;
  /** `--tenant-queue-wait`: how long one waits before it is refused. */
  tenantQueueWaitMs: number;
  /** `--upstream-gateway-seats`: the gateway's own requests to the cluster at once. */
  gatewaySeats: number;
}

export const DEFAULT_UPSTREAM_SEATS: UpstreamSeatSettings = {
  tenantSeats: 128,
  seatsPerTenant: 32,
  tenantQueueLength: 50,
  tenantQueueWaitMs: 15_000,
  gatewaySeats: 32,
};

/**
 * The gateway's own requests wait rather than fail: they are few (a probe every 10 s, discovery
 * once a while) and trusted, so their queues are long and each of the level's flows may take
 * every seat.
 */
const GATEWAY_QUEUE_LENGTH = 1000;

/** Who asks for a seat: a priority level and a flow within it (a tenant, or what the gateway's request is for). */
export interface SeatClaim {
  level: PriorityLevel;
  flow: string;
  /**
   * Called only when the request has to wait: `cancel` takes it out of its queue (its client went
   * away). Returns how to stop listening, called once it got a seat or was refused.
   */
  whenQueued?: (cancel: () => void) => () => void;
  /** Called when the request gets its seat (at once, or after its wait): its time upstream starts there. */
  seated?: () => void;
}

/** The gateway's own requests: discovery, probes, namespace lookups. */
export const GATEWAY_CLAIM: SeatClaim = { level: 'gateway', flow: 'gateway' };
/** The admin's requests passed through to the cluster: a flow of the gateway's level beside the gateway's own, served in turn with it. */
export const ADMIN_CLAIM: SeatClaim = { level: 'gateway', flow: 'admin' };

/** A seat held; `release` gives it back (once; later calls do nothing). */
export interface Seat {
  release(this: void): void;
}

interface Waiter {
  admit(): void;
  refuse(reason: RejectReason): void;
}

interface Level {
  name: PriorityLevel;
  queues: FairQueues<Waiter>;
  timer?: Timer;
  timerAt?: number;
}

/**
 * One cluster's seats: what bounds the requests the gateway has open to it on its pooled
 * connections (its pool has one connection per seat), shared fairly. A request takes a seat
 * before it is sent and gives it back once the cluster's answer has been read off the connection
 * (read-ahead.ts); when none is free for it, it waits in its flow's queue, and is refused 429
 * TooManyRequests with Retry-After when that queue is full or the wait runs out. Long-running
 * requests (watches, followed logs, proxies, upgrades) take no seat: they have connections of
 * their own and a per-tenant bound (gateway/server/tenant-limits.ts), as in APF.
 */
export class UpstreamSeats {
  private readonly levels: Record<PriorityLevel, Level>;

  constructor(
    readonly cluster: string,
    readonly settings: UpstreamSeatSettings = DEFAULT_UPSTREAM_SEATS,
    private readonly clock: Clock = realClock,
    /** Hears of every request refused, for the metrics. */
    private readonly onRejected: (level: PriorityLevel, reason: RejectReason) => void = () => {},
    /** Hears how long each request waited for its seat, and whether it got one, for the metrics. */
    private readonly onWaited: (level: PriorityLevel, ms: number, executed: boolean) => void = () => {},
  ) {
    const level = (name: PriorityLevel, queues: FairQueueSettings): Level => ({
      name,
      queues: new FairQueues<Waiter>(queues),
    });
    this.levels = {
      tenants: level('tenants', {
        seats: settings.tenantSeats,
        seatsPerFlow: settings.seatsPerTenant,
        queueLength: settings.tenantQueueLength,
        maxWaitMs: settings.tenantQueueWaitMs,
      }),
      gateway: level('gateway', {
        seats: settings.gatewaySeats,
        seatsPerFlow: settings.gatewaySeats,
        queueLength: GATEWAY_QUEUE_LENGTH,
        maxWaitMs: settings.tenantQueueWaitMs,
      }),
    };
  }

  /** The connections the cluster's pool needs: one per seat of either level. */
  get connections(): number {
    return this.settings.tenantSeats + this.settings.gatewaySeats;
  }

  /** A seat for `claim`: at once when one is free for it, after a wait in its flow's queue otherwise; a 429 ApiError when refused. */
  acquire(claim: SeatClaim): Promise<Seat> {
    const level = this.levels[claim.level];
    let admit = (): void => {};
    let refuse = (_reason: RejectReason): void => {};
    const waiter: Waiter = { admit: () => admit(), refuse: (reason) => refuse(reason) };
    const arrived = this.clock.now();
    const arrival = level.queues.arrive(claim.flow, waiter, arrived);
    if (arrival === 'executing') return Promise.resolve(this.seat(level, claim, arrived));
    if (arrival === 'queue-full') return Promise.reject(this.refusal(level, claim, 'queue-full', arrived));
    return new Promise<Seat>((resolve, reject) => {
      let unfollow = () => {};
      admit = () => {
        unfollow();
        resolve(this.seat(level, claim, arrived));
      };
      refuse = (reason) => {
        unfollow();
        reject(this.refusal(level, claim, reason, arrived));
      };
      this.arm(level);
      unfollow =
        claim.whenQueued?.(() => {
          if (level.queues.cancel(claim.flow, waiter)) refuse('cancelled');
        }) ?? unfollow;
    });
  }

  /** Each level's seats, the seats held and the requests waiting now, for the metrics. */
  state(): { level: PriorityLevel; seats: number; executing: number; waiting: number }[] {
    return PRIORITY_LEVELS.map((name) => {
      const { queues } = this.levels[name];
      return { level: name, seats: queues.settings.seats, executing: queues.executing, waiting: queues.waiting };
    });
  }

  /** The cluster's connections are closed: every request still waiting is refused, and the timers stop. */
  close(): void {
    for (const level of Object.values(this.levels)) {
      level.timer?.cancel();
      level.timer = undefined;
      for (const waiter of level.queues.expire(Infinity)) waiter.refuse('cancelled');
    }
  }

  private seat(level: Level, claim: SeatClaim, arrived: number): Seat {
    this.onWaited(level.name, this.clock.now() - arrived, true);
    claim.seated?.();
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        for (const waiter of level.queues.finish(claim.flow)) waiter.admit();
      },
    };
  }

  /** One timer per level, at its earliest deadline: the requests whose wait ran out are refused when it fires. */
  private arm(level: Level): void {
    const next = level.queues.nextDeadline();
    if (next === undefined || (level.timer && level.timerAt! <= next)) return;
    level.timer?.cancel();
    level.timerAt = next;
    level.timer = this.clock.setTimer(() => {
      level.timer = undefined;
      for (const waiter of level.queues.expire(this.clock.now())) waiter.refuse('time-out');
      this.arm(level);
    }, next - this.clock.now());
  }

  private refusal(level: Level, claim: SeatClaim, reason: RejectReason, arrived: number): ApiError {
    this.onWaited(level.name, this.clock.now() - arrived, false);
    this.onRejected(level.name, reason);
    const { seatsPerFlow, queueLength, maxWaitMs } = level.queues.settings;
    const who =
      claim.level === 'tenants'
        ? `tenant ${claim.flow}'s requests to its cluster`
        : `the gateway's ${claim.flow} requests to cluster ${this.cluster}`;
    const why =
      reason === 'queue-full'
        ? `${who} fill their ${seatsPerFlow} seats and ${queueLength} places in the queue`
        : reason === 'time-out'
          ? `${who} waited ${maxWaitMs / 1000}s for one of ${seatsPerFlow} seats`
          : `${who} stopped waiting for a seat`;
    return new ApiError(
      statusOf(429, 'TooManyRequests', `Too many requests, please try again later: ${why}`, { retryAfterSeconds: 1 }),
    );
  }
}

/** A tenant's claim: its own flow of the tenants' level. */
export function tenantClaim(tenantId: string, whenQueued?: SeatClaim['whenQueued']): SeatClaim {
  return { level: 'tenants', flow: tenantId, whenQueued };
}
