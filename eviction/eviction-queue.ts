/**
 * The eviction queue: a rate-limited work queue as client-go's workqueue keeps one (queue.go,
 * delaying_queue.go, rate_limiting_queue.go), worked the way Karmada's eviction worker works it
 * (pkg/controllers/cluster/eviction_worker.go): a failure is retried after the limiter's wait, and
 * after each success the worker pauses for the pacer's wait, so that items added all at once
 * still leave at the eviction rate. The pause is per worker: n workers evict up to n × rate a
 * second.
 *
 * Pause and resume. The pacer reads the rate at every `when`, and a rate of 0 makes the pause
 * 1800 s. `rateChanged()` asks the pacer again for every pause under way and counts the new wait
 * from where that pause began: a worker paused at rate 0 for 10 s goes on at once when the rate
 * becomes 2/s, one paused for 100 ms goes on 400 ms later, and a rate lowered mid-pause
 * lengthens the pause. Asking again takes one more token from a pacer's token bucket. A retry
 * already scheduled keeps its time, as a delayed add does in client-go; `add` hands the item out
 * sooner.
 */
import { realClock } from './clock.js';
import type { Clock, Timer } from './clock.js';
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
  /** The pause after each success, asked about PACER_KEY. One instance may serve as both. */
  pacer: RateLimiter<PacerKey>;
  clock?: Clock;
  observer?: EvictionQueueObserver<T>;
}

/** Why a worker's pause ended. */
type Wake = 'elapsed' | 'rate changed' | 'shut down';

export class EvictionQueue<T> {
  private readonly limiter: RateLimiter<T>;
  private readonly pacer: RateLimiter<PacerKey>;
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
  /** Workers pausing after a success, each with the timer that ends its pause. */
  private readonly pauses = new Map<Timer, (wake: Wake) => void>();
  private shuttingDown = false;

  constructor(options: EvictionQueueOptions<T>) {
    this.limiter = options.limiter;
    this.pacer = options.pacer;
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
   * Re-asks the pacer for every pause under way, counting from the pause's start (see the file's
   * comment). Call it when the eviction rate changes.
   */
  rateChanged(): void {
    this.endPauses('rate changed');
  }

  /**
   * Workers stop after the item they are on, paused workers at once; scheduled adds are
   * cancelled, later adds ignored. Ready items stay unprocessed: client-go's workers would drain
   * them, but at an eviction rate that can take hours.
   */
  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const { timer } of this.scheduled.values()) timer.cancel();
    this.scheduled.clear();
    this.endPauses('shut down');
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
      await this.pause();
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
   * The pacer's wait after a success. The sentinel is forgotten as soon as it is asked about, not
   * after the pause: workers pausing at the same time would otherwise raise its backoff for one
   * another (5, 10, 20 ms ...), the pace slowing with the number of workers.
   */
  private async pause(): Promise<void> {
    const start = this.clock.now();
    for (;;) {
      const wait = this.pacer.when(PACER_KEY);
      this.pacer.forget(PACER_KEY);
      const remaining = start + wait - this.clock.now();
      if (remaining <= 0 || this.shuttingDown) return;
      if ((await this.sleep(remaining)) !== 'rate changed') return;
    }
  }

  private sleep(ms: number): Promise<Wake> {
    return new Promise((resolve) => {
      const timer = this.clock.setTimer(() => {
        this.pauses.delete(timer);
        resolve('elapsed');
      }, ms);
      this.pauses.set(timer, resolve);
    });
  }

  private endPauses(wake: Wake): void {
    for (const [timer, resolve] of this.pauses) {
      timer.cancel();
      resolve(wake);
    }
    this.pauses.clear();
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
