/**
 * Time as the eviction queue and a cluster's seats (upstream-seats.ts) read it: the current time
 * and timers, in milliseconds. Injected so that tests run them on a fake clock
 * (test/support/fake-clock.ts) and assert exact times. In clusters/, the lowest room that uses it.
 */

export interface Timer {
  /** Stops the timer; a no-op once it has fired or been cancelled. */
  cancel(): void;
}

export interface Clock {
  /** The current time in ms. */
  now(): number;
  /** Calls `fn` once, `ms` from now (at once for 0, a negative or NaN). */
  setTimer(fn: () => void, ms: number): Timer;
}

/** The longest delay setTimeout keeps: past it, Node fires after 1 ms instead. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Date.now and setTimeout. A delay past setTimeout's limit (about 24.8 days, reached by an
 * eviction rate under 1/2,147,483 per second) is waited out in legs rather than cut to 1 ms.
 *
 * The timers are not unref'd. They are a worker's pending work (the next retry, the pause
 * before the next eviction), and a process kept alive only by them still owes that work: an
 * unref'd timer would let it exit with evictions silently undone. A server is held open by its
 * listeners anyway, so unref would change nothing there. The queue's shutDown cancels every
 * timer it set, which is what ends them on purpose.
 */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    let timeout: NodeJS.Timeout;
    const arm = (remaining: number) => {
      timeout =
        remaining > MAX_TIMEOUT_MS
          ? setTimeout(() => arm(remaining - MAX_TIMEOUT_MS), MAX_TIMEOUT_MS)
          : setTimeout(fn, remaining);
    };
    arm(ms > 0 ? ms : 0);
    return { cancel: () => clearTimeout(timeout) };
  },
};
