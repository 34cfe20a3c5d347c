/**
 * The eviction queue: a rate-limited work queue as client-go's workqueue keeps one (queue.go,
 * delaying_queue.go, rate_limiting_queue.go), worked after Karmada's eviction worker
 * (pkg/controllers/cluster/eviction_worker.go): a failure is retried after the limiter's wait, and
 * items added all at once still leave at the eviction rate.
 *
 * The rate is the queue's, unlike Karmada's. Karmada pauses each worker for the pacer's wait after
 * each success, so its 3 workers move up to 3 × rate a second, and at rate 0 each worker still
 * takes one more item before the pause holds. An admin reads `--resource-eviction-rate` as
 * tenants moved a second by the whole gateway, whatever the number of workers, and sets 0 in an
 * emergency to stop every eviction at once. So here the workers share one schedule of start
 * slots, each item (a retry too) waiting for the next: `max(now, last start + interval)`, the
 * interval being the pacer's wait, and a rate of 0 (`paused`) starts nothing. A reconcile slower
 * than 1/rate does not slow the pace: another worker takes the next slot. The first item after an
 * idle spell starts at once. Workers waiting for a slot queue for it in the order they took their
 * items, only the first in line asking the pacer and setting a timer: items start in the order
 * handed out, and a worker whose reconciles are quick cannot take every slot from the others.
 *
 * Pause and resume. While `paused()` says so no item starts; workers holding one wait for
 * `rateChanged()` and then look again. `rateChanged()` also has the first in line ask the pacer
 * again, its slot counted from the last start: at 2/s, waiting since a start 100 ms ago, it goes
 * on 400 ms later, and a rate lowered mid-wait pushes its slot back. The pacer is asked once per
 * start and again only on a rate change, since each ask takes a token from a pacer's token
 * bucket. A retry already scheduled keeps its time, as a delayed add does in client-go; `add`
 * hands the item out sooner.
 */
import { realClock } from '../clusters/clock.js';
import type { Clock, Timer } from '../clusters/clock.js';
import type { RateLimiter } from './rate-limiters.js';

/** The one key the pacer is asked about: the pace is the queue's, not any item's. */
export const PACER_KEY = Symbol('eviction pacer');
export type PacerKey = typeof PACER_KEY;

/** What metrics need to know. Called synchronously: a hook must not throw. */
export interface EvictionQueueObserver<T> {
  /** The number of items ready to be handed out, each time it changes. */
  depth?(length: number): void;
  /** A reconcile of `item` took `ms` on the queue's clock; `error` is what it threw, absent on success. */
  processed?(item: T, ms: number, error?: unknown): void;
  /** `item` became pending: it was not ready, scheduled or being processed. */
  enqueued?(item: T): void;
  /**
   * `item` was reconciled and nothing is pending for it any more. One for each `enqueued` of an
   * item that gets this far (a failed item stays pending), so +1 and −1 keep a gauge exact.
   */
  completed?(item: T): void;
}

export interface EvictionQueueOptions<T> {
  /** The wait before a failed item is retried. */
  limiter: RateLimiter<T>;
  /** The interval between two starts, asked about PACER_KEY. One instance may serve as both. */
  pacer: RateLimiter<PacerKey>;
  /** While true, no item starts (default: never). Read before each start and after `rateChanged()`. */
  paused?: () => boolean;
  clock?: Clock;
  observer?: EvictionQueueObserver<T>;
}

/** Why a worker's wait for its slot ended. */
type Wake = 'elapsed' | 'first in line' | 'rate changed' | 'shut down';

/** A worker waiting for a start slot with `item`. */
interface Turn<T> {
  item: T;
  /** Ends the worker's wait; set while it sleeps. */
  wake?: (wake: Wake) => void;
}

export class EvictionQueue<T> {
  private readonly limiter: RateLimiter<T>;
  private readonly pacer: RateLimiter<PacerKey>;
  private readonly paused: () => boolean;
  private readonly clock: Clock;
  private readonly observer: EvictionQueueObserver<T>;
  /** Items ready to be handed out, in order. */
  private readonly ready: T[] = [];
  /** Items that need processing: the ready ones, and those added again while being processed. */
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  /** Items added with a delay, each with the time it becomes ready and the timer that makes it so. */
  private readonly scheduled = new Map<T, { at: number; timer: Timer }>();
  /** Workers waiting for an item. */
  private readonly idle: ((next: { item: T } | undefined) => void)[] = [];
  /** Workers waiting for a start slot, in the order they took their items. */
  private readonly line: Turn<T>[] = [];
  /** When the last item started; none yet, so the first starts at once. */
  private lastStart = -Infinity;
  private shuttingDown = false;

  constructor(options: EvictionQueueOptions<T>) {
    this.limiter = options.limiter;
    this.pacer = options.pacer;
    this.paused = options.paused ?? (() => false);
    this.clock = options.clock ?? realClock;
    this.observer = options.observer ?? {};
  }

  /** Items ready to be handed out (not those scheduled or being processed). */
  get length(): number {
    return this.ready.length;
  }

  /** Makes `item` ready, once: an item already ready is not added again, one being processed is handed out again when it is done. */
  add(item: T): void {
    if (this.shuttingDown) return;
    this.announce(item);
    this.insert(item);
  }

  /** Adds `item` in `ms`; an item already scheduled keeps the earlier of the two times. */
  addAfter(item: T, ms: number): void {
    if (this.shuttingDown) return;
    if (!(ms > 0)) {
      this.add(item);
      return;
    }
    this.announce(item);
    const at = this.clock.now() + ms;
    const earlier = this.scheduled.get(item);
    if (earlier !== undefined) {
      if (earlier.at <= at) return;
      earlier.timer.cancel();
    }
    const timer = this.clock.setTimer(() => {
      this.scheduled.delete(item);
      this.insert(item);
    }, ms);
    this.scheduled.set(item, { at, timer });
  }

  /** Adds `item` after the limiter's wait for it. */
  addRateLimited(item: T): void {
    if (this.shuttingDown) return;
    this.addAfter(item, this.limiter.when(item));
  }

  /** Clears the limiter's count for `item`: its next retry waits the least. */
  forget(item: T): void {
    this.limiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.limiter.numRequeues(item);
  }

  /**
   * Wakes every worker waiting for its slot: it asks the pacer again and counts from the last
   * start, or, paused, looks at `paused()` again (see the file's comment). Call it when the
   * eviction rate changes.
   */
  rateChanged(): void {
    for (const turn of this.line) turn.wake?.('rate changed');
  }

  /**
   * Workers stop after the item they are reconciling; those waiting for a slot stop at once,
   * their items ready again, unreconciled. Scheduled adds are cancelled, later adds ignored. Ready
   * items stay unprocessed: client-go's workers would drain them, but at an eviction rate that can
   * take hours.
   */
  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const { timer } of this.scheduled.values()) timer.cancel();
    this.scheduled.clear();
    const waiting = this.line.splice(0);
    if (waiting.length > 0) {
      for (const { item } of waiting) {
        this.processing.delete(item);
        this.dirty.add(item);
      }
      this.ready.unshift(...waiting.map(({ item }) => item));
      this.observer.depth?.(this.ready.length);
    }
    for (const turn of waiting) turn.wake?.('shut down');
    for (const worker of this.idle.splice(0)) worker(undefined);
  }

  /** Runs `workers` workers until the queue shuts down (or `signal` aborts); resolves when all have stopped. */
  async run(workers: number, reconcile: (item: T) => Promise<void>, signal?: AbortSignal): Promise<void> {
    const stop = () => this.shutDown();
    signal?.addEventListener('abort', stop, { once: true });
    if (signal?.aborted) this.shutDown();
    try {
      await Promise.all(Array.from({ length: workers }, () => this.work(reconcile)));
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }

  private async work(reconcile: (item: T) => Promise<void>): Promise<void> {
    for (let next = await this.next(); next !== undefined; next = await this.next()) {
      const { item } = next;
      if (!(await this.slot(item))) return;
      const start = this.clock.now();
      try {
        await reconcile(item);
      } catch (error) {
        this.observer.processed?.(item, this.clock.now() - start, error);
        this.addRateLimited(item);
        this.finish(item, false);
        continue;
      }
      this.observer.processed?.(item, this.clock.now() - start);
      this.forget(item);
      this.finish(item, true);
    }
  }

  private next(): Promise<{ item: T } | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    if (this.ready.length === 0) return new Promise((resolve) => this.idle.push(resolve));
    const item = this.ready.shift() as T;
    this.observer.depth?.(this.ready.length);
    this.startProcessing(item);
    return Promise.resolve({ item });
  }

  /**
   * Waits its turn for the queue's next start slot and takes it; false if the queue shut down
   * first (which put `item` back). The sentinel is forgotten as soon as it is asked about: workers
   * asking in turn would otherwise raise its backoff for one another (5, 10, 20 ms ...), the pace
   * slowing with the number of workers.
   */
  private async slot(item: T): Promise<boolean> {
    const turn: Turn<T> = { item };
    this.line.push(turn);
    let interval: number | undefined;
    for (;;) {
      if (this.shuttingDown) return false;
      let wake: Wake;
      if (this.line[0] !== turn || this.paused()) {
        wake = await this.sleep(turn);
      } else {
        if (interval === undefined) {
          interval = this.pacer.when(PACER_KEY);
          this.pacer.forget(PACER_KEY);
        }
        const now = this.clock.now();
        const wait = this.lastStart + interval - now;
        if (!(wait > 0)) {
          // On the schedule when started within an interval of its slot: a timer's lateness would
          // otherwise add to every interval (1% at 50/s). Later than that, the queue was idle.
          this.lastStart = -wait < interval ? this.lastStart + interval : now;
          this.line.shift();
          this.line[0]?.wake?.('first in line');
          return true;
        }
        wake = await this.sleep(turn, wait);
      }
      if (wake === 'rate changed') interval = undefined;
    }
  }

  /** Until `ms` have passed, or without a timer until woken; either way until shut-down. */
  private sleep(turn: Turn<T>, ms?: number): Promise<Wake> {
    return new Promise((resolve) => {
      const end = (wake: Wake) => {
        timer?.cancel();
        turn.wake = undefined;
        resolve(wake);
      };
      const timer = ms === undefined ? undefined : this.clock.setTimer(() => end('elapsed'), ms);
      turn.wake = end;
    });
  }

  private pending(item: T): boolean {
    return this.dirty.has(item) || this.processing.has(item) || this.scheduled.has(item);
  }

  private announce(item: T): void {
    if (!this.pending(item)) this.observer.enqueued?.(item);
  }

  private insert(item: T): void {
    if (this.dirty.has(item)) return;
    this.dirty.add(item);
    if (!this.processing.has(item)) this.makeReady(item);
  }

  private makeReady(item: T): void {
    const worker = this.idle.shift();
    if (worker !== undefined) {
      this.startProcessing(item);
      worker({ item });
      return;
    }
    this.ready.push(item);
    this.observer.depth?.(this.ready.length);
  }

  private startProcessing(item: T): void {
    this.dirty.delete(item);
    this.processing.add(item);
  }

  private finish(item: T, succeeded: boolean): void {
    this.processing.delete(item);
    if (this.dirty.has(item)) this.makeReady(item);
    else if (succeeded && !this.scheduled.has(item)) this.observer.completed?.(item);
  }
}
