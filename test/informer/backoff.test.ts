/**
 * The backoff against apimachinery's own test tables (wait_test.go: TestBackoff_Step,
 * TestBackoffDelayWithResetExponential/Empty/Jitter), with the random source pinned so that
 * jittered delays are exact rather than within a range; then the reflector's defaults.
 */
import { expect } from 'chai';
import { Backoff, REFLECTOR_BACKOFF, REFLECTOR_BACKOFF_RESET_MS, ResettingBackoff } from '../../informer/backoff.js';
import type { BackoffParameters } from '../../informer/backoff.js';

const SECOND = 1000;
const NONE: BackoffParameters = { durationMs: 0, factor: 0, jitter: 0, steps: 0, capMs: 0 };
const steps = (next: () => number, count: number) => Array.from({ length: count }, next);

describe('cache/backoff: exponential backoff with jitter (apimachinery wait.Backoff)', () => {
  const table: { parameters: Partial<BackoffParameters>; want: number[] }[] = [
    { parameters: { durationMs: SECOND, steps: -1 }, want: [1, 1, 1] },
    { parameters: { durationMs: SECOND, steps: 0 }, want: [1, 1, 1] },
    { parameters: { durationMs: SECOND, steps: 1 }, want: [1, 1, 1] },
    { parameters: { durationMs: SECOND, factor: 1, steps: 1 }, want: [1, 1, 1] },
    { parameters: { durationMs: SECOND, factor: 2, steps: 3 }, want: [1, 2, 4] },
    { parameters: { durationMs: SECOND, factor: 2, steps: 3, capMs: 3 * SECOND }, want: [1, 2, 3] },
  ];
  for (const { parameters, want } of table) {
    it(`steps ${JSON.stringify(parameters)} as ${want.join(', ')} s`, () => {
      const backoff = new Backoff({ ...NONE, ...parameters });
      expect(steps(() => backoff.step(), want.length)).to.deep.equal(want.map((s) => s * SECOND));
    });
  }

  it('stretches each delay by random·jitter of itself, the cap and the step count applying before the stretch', () => {
    // Steps 2, cap 3 s, jitter 0.5: delays 1 s, 2 s, then 3 s for good, each ×(1 + 0.5·random).
    const capped = new Backoff(
      { ...NONE, durationMs: SECOND, factor: 2, steps: 2, capMs: 3 * SECOND, jitter: 0.5 },
      () => 0.5,
    );
    expect(steps(() => capped.step(), 3)).to.deep.equal([1250, 2500, 3750]);
    // Jitter 4 and random 0.5: each delay tripled.
    const wide = new Backoff({ ...NONE, durationMs: SECOND, factor: 2, steps: 6, jitter: 4 }, () => 0.5);
    expect(steps(() => wide.step(), 6)).to.deep.equal([3, 6, 12, 24, 48, 96].map((s) => s * SECOND));
  });

  it('starts over once more than the reset interval has passed since it last started over', () => {
    let now = 0;
    const parameters = { ...NONE, durationMs: 1, capMs: 10, factor: 2, steps: 10 };
    const backoff = new ResettingBackoff(parameters, 10, () => now);
    expect(steps(() => backoff.next(), 7)).to.deep.equal([1, 2, 4, 8, 10, 10, 10]);
    now += 11;
    expect(backoff.next()).to.equal(1);
  });

  it('gives the first delay every time when the reset interval is 0', () => {
    let now = 0;
    const backoff = new ResettingBackoff({ ...NONE, durationMs: 1, capMs: 10, factor: 2, steps: 10 }, 0, () => now);
    expect(steps(() => backoff.next(), 7)).to.deep.equal([1, 1, 1, 1, 1, 1, 1]);
    now += 11;
    expect(backoff.next()).to.equal(1);
  });

  it('jitters a constant delay within [d, 2d] for jitter 1, and not at all for a negative jitter', () => {
    const random = [0, 0.25, 0.5, 0.75, 0.999];
    const jittered = new ResettingBackoff(
      { ...NONE, durationMs: 1, jitter: 1 },
      0,
      () => 0,
      () => random.shift()!,
    );
    expect(steps(() => jittered.next(), 5)).to.deep.equal([1, 1.25, 1.5, 1.75, 1.999]);
    const fixed = new ResettingBackoff({ ...NONE, durationMs: 1, jitter: -1 }, 0, () => 0);
    expect(fixed.next()).to.equal(1);
  });

  it("is the reflector's: 0.8 s doubling to 30 s, each up to twice as long at random, reset after two quiet minutes", () => {
    let now = 0;
    let random = 0;
    const backoff = new ResettingBackoff(
      REFLECTOR_BACKOFF,
      REFLECTOR_BACKOFF_RESET_MS,
      () => now,
      () => random,
    );
    expect(steps(() => backoff.next(), 8)).to.deep.equal([800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]);
    random = 0.5;
    expect(backoff.next()).to.equal(45_000);
    now += REFLECTOR_BACKOFF_RESET_MS;
    expect(backoff.next()).to.equal(45_000);
    now += 1;
    expect(backoff.next()).to.equal(1200);
    random = 0;
    expect(backoff.next()).to.equal(1600);
  });
});
