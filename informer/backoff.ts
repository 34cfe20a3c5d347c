/**
 * Exponential backoff with jitter, as apimachinery's `wait.Backoff` computes it, and the delay a
 * reflector waits before it lists and watches again (`Backoff.DelayWithReset`): it grows from
 * 800 ms by ×2 up to 30 s, each delay stretched by up to 100% at random (so 0.8–1.6 s first,
 * 30–60 s at worst), and starts over once two minutes have passed since it last started over.
 * Durations are in milliseconds; the clock and the random source are injectable so tests can
 * check the sequence exactly.
 */

export interface BackoffParameters {
  /** The first delay. */
  durationMs: number;
  /** Each delay is the previous one times this (0: no growth). */
  factor: number;
  /** A delay d becomes d + random·jitter·d (≤ 0: none). */
  jitter: number;
  /** How many delays grow; after that (or once the cap is hit) the delay stays. */
  steps: number;
  /** No delay grows past this (0: no cap). */
  capMs: number;
}

/** client-go's reflector defaults (tools/cache/reflector.go). */
export const REFLECTOR_BACKOFF: BackoffParameters = {
  durationMs: 800,
  factor: 2,
  jitter: 1,
  steps: Math.ceil(30_000 / 800),
  capMs: 30_000,
};

/** After this long without starting over, a reflector's backoff starts over (a healthy stretch). */
export const REFLECTOR_BACKOFF_RESET_MS = 120_000;

/** `d` plus up to `maxFactor`·`d` at random (apimachinery's `wait.Jitter`; a factor ≤ 0 counts as 1). */
export function jitter(durationMs: number, maxFactor: number, random: () => number = Math.random): number {
  return durationMs + random() * (maxFactor <= 0 ? 1 : maxFactor) * durationMs;
}

/** One backoff sequence (`wait.Backoff` and its `Step`). */
export class Backoff {
  private durationMs: number;
  private steps: number;

  constructor(
    private readonly parameters: BackoffParameters,
    private readonly random: () => number = Math.random,
  ) {
    this.durationMs = parameters.durationMs;
    this.steps = parameters.steps;
  }

  /** The next delay. */
  step(): number {
    const { factor, capMs, jitter: maxFactor } = this.parameters;
    const current = this.durationMs;
    if (this.steps < 1) return maxFactor > 0 ? jitter(current, maxFactor, this.random) : current;
    this.steps--;
    if (factor !== 0) {
      this.durationMs = current * factor;
      if (capMs > 0 && this.durationMs > capMs) {
        this.durationMs = capMs;
        this.steps = 0;
      }
    }
    return maxFactor > 0 ? jitter(current, maxFactor, this.random) : current;
  }
}

/**
 * A backoff that starts over when more than `resetIntervalMs` has passed since it last started
 * over (`Backoff.DelayWithReset`); an interval ≤ 0 gives the first delay every time.
 */
export class ResettingBackoff {
  private backoff: Backoff;
  private lastStart: number;

  constructor(
    private readonly parameters: BackoffParameters,
    private readonly resetIntervalMs: number,
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {
    this.backoff = this.fresh();
    this.lastStart = now();
  }

  /** The delay to wait now. */
  next(): number {
    if (this.parameters.factor > 0 && this.resetIntervalMs > 0 && this.now() - this.lastStart > this.resetIntervalMs) {
      this.backoff = this.fresh();
      this.lastStart = this.now();
    }
    return this.backoff.step();
  }

  private fresh(): Backoff {
    const { parameters } = this;
    // Without growth or a reset interval the delay never changes.
    const constant = parameters.factor <= 0 || this.resetIntervalMs <= 0;
    return new Backoff(constant ? { ...parameters, steps: 0, factor: 0 } : parameters, this.random);
  }
}
