/**
 * A clock for tests: time stands still until `advance` moves it. Timers fire in time order (ties
 * in the order they were set), and after each one the promise continuations it started run
 * before the next is looked for, so that an async worker a timer wakes has set its next timer
 * by then and that timer fires in the same `advance` when it is due.
 */
import type { Clock, Timer } from '../../clusters/clock.js';

/** Event-loop turns given to continuations after a timer: a promise chain needs one, a few spare cover chains that wait on an immediate. */
const SETTLE_TURNS = 5;

interface FakeTimer {
  at: number;
  order: number;
  fn: () => void;
}

async function settle(): Promise<void> {
  for (let turn = 0; turn < SETTLE_TURNS; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export class FakeClock implements Clock {
  private time: number;
  private timersSet = 0;
  private readonly timers = new Set<FakeTimer>();

  constructor(startMs = 0) {
    this.time = startMs;
  }

  now(): number {
    return this.time;
  }

  setTimer(fn: () => void, ms: number): Timer {
    const timer: FakeTimer = { at: this.time + (ms > 0 ? ms : 0), order: this.timersSet++, fn };
    this.timers.add(timer);
    return {
      cancel: () => {
        this.timers.delete(timer);
      },
    };
  }

  /** Timers set and neither fired nor cancelled. */
  pending(): number {
    return this.timers.size;
  }

  /** Moves time `ms` forward, firing every timer that comes due on the way, those set meanwhile included. */
  async advance(ms: number): Promise<void> {
    const until = this.time + ms;
    for (;;) {
      await settle();
      const timer = this.earliest();
      if (timer === undefined || timer.at > until) break;
      this.timers.delete(timer);
      this.time = timer.at;
      timer.fn();
    }
    this.time = until;
  }

  private earliest(): FakeTimer | undefined {
    let earliest: FakeTimer | undefined;
    for (const timer of this.timers) {
      if (
        earliest === undefined ||
        timer.at < earliest.at ||
        (timer.at === earliest.at && timer.order < earliest.order)
      )
        earliest = timer;
    }
    return earliest;
  }
}
