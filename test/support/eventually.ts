/**
 * The one home of the tests' waiting: `sleep`, `waitUntil` (a condition, or a value, to come) and
 * `eventually` (an assertion to come to pass). For what happens "within seconds" — a controller's
 * pass, a watch's delivery — without putting a timing in the assertion.
 */

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface WaitOptions {
  /** How long to wait, in ms, before failing: 10 s unless given. */
  timeout?: number;
  /** How long to sleep between two checks, in ms: 50 unless given. */
  interval?: number;
  /** The error's whole message when time is up (read then), instead of `<what>: not within <timeout>ms`. */
  message?: () => string;
}

/**
 * Checks `condition` until it gives something other than `false` or `undefined`, and resolves to
 * that: `true` for a yes/no condition, the value for one that returns it once it is there. A
 * condition that throws ends the wait with its error. Past the timeout, throws
 * `<what>: not within <timeout>ms` (or `message()`).
 */
export async function waitUntil<T>(
  what: string,
  condition: () => T | Promise<T>,
  { timeout = 10_000, interval = 50, message }: WaitOptions = {},
): Promise<Exclude<T, false | undefined>> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const result = await condition();
    if (result !== false && result !== undefined) return result as Exclude<T, false | undefined>;
    if (Date.now() > deadline) throw new Error(message ? message() : `${what}: not within ${timeout}ms`);
    await sleep(interval);
  }
}

/**
 * Reads until the check passes or the deadline passes (then the check's own error is thrown):
 * the assertion's own message says what was read last.
 */
export async function eventually<T>(read: () => T | Promise<T>, check: (value: T) => void, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    try {
      check(value);
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(50);
    }
  }
}
