/**
 * The rate limiters against client-go's default_rate_limiters_test.go
 * (TestItemExponentialFailureRateLimiter, ...OverFlow, TestMaxOfRateLimiter) and Karmada's
 * dynamic_rate_limiter_test.go (TestDynamicRateLimiter_When_Scenarios,
 * TestGracefulEvictionRateLimiter_ExponentialBackoff, replayed as exact waits rather than timed
 * attempts), then the token bucket on a fake clock.
 */
import { expect } from 'chai';
import {
  BucketRateLimiter,
  DynamicRateLimiter,
  ItemExponentialFailureRateLimiter,
  MAX_EVICTION_DELAY_MS,
  MaxOfRateLimiter,
  gracefulEvictionRateLimiter,
  type RateLimiter,
} from '../../eviction/rate-limiters.js';
import { FakeClock } from '../support/fake-clock.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const waits = <T>(limiter: RateLimiter<T>, item: T, count: number) =>
  Array.from({ length: count }, () => limiter.when(item));

/** client-go's test-only ItemFastSlowRateLimiter: `fast` for an item's first `maxFast` requeues, `slow` after. */
class FastSlowRateLimiter implements RateLimiter<string> {
  private readonly attempts = new Map<string, number>();

  constructor(
    private readonly fastMs: number,
    private readonly slowMs: number,
    private readonly maxFast: number,
  ) {}

  when(item: string): number {
    const attempts = (this.attempts.get(item) ?? 0) + 1;
    this.attempts.set(item, attempts);
    return attempts <= this.maxFast ? this.fastMs : this.slowMs;
  }

  forget(item: string): void {
    this.attempts.delete(item);
  }

  numRequeues(item: string): number {
    return this.attempts.get(item) ?? 0;
  }
}

describe('eviction/rate-limiters: per-item exponential backoff (client-go)', () => {
  it('doubles from the base for each item on its own, and starts over once forgotten', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1, SECOND);
    expect(waits(limiter, 'one', 5)).to.deep.equal([1, 2, 4, 8, 16]);
    expect(limiter.numRequeues('one')).to.equal(5);
    expect(waits(limiter, 'two', 2)).to.deep.equal([1, 2]);
    expect(limiter.numRequeues('two')).to.equal(2);
    limiter.forget('one');
    expect(limiter.numRequeues('one')).to.equal(0);
    expect(limiter.when('one')).to.equal(1);
  });

  it('stops at the cap after 1000 failures and more, neither overflowing nor turning into NaN', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1, 1000 * SECOND);
    waits(limiter, 'one', 5);
    expect(limiter.when('one')).to.equal(32);
    waits(limiter, 'overflow1', 1000);
    expect(limiter.when('overflow1')).to.equal(1000 * SECOND);

    const minutes = new ItemExponentialFailureRateLimiter<string>(MINUTE, 1000 * HOUR);
    waits(minutes, 'two', 2);
    expect(minutes.when('two')).to.equal(4 * MINUTE);
    waits(minutes, 'overflow2', 1000);
    expect(minutes.when('overflow2')).to.equal(1000 * HOUR);

    const zeroBase = new ItemExponentialFailureRateLimiter<string>(0, SECOND);
    waits(zeroBase, 'item', 2000);
    expect(zeroBase.when('item')).to.equal(0);
  });
});

describe('eviction/rate-limiters: the longest of several limiters (client-go MaxOfRateLimiter)', () => {
  it('waits the longest, counts the most requeues and forgets in all of them', () => {
    const limiter = new MaxOfRateLimiter(
      new FastSlowRateLimiter(5, 3 * SECOND, 3),
      new ItemExponentialFailureRateLimiter<string>(1, SECOND),
    );
    expect(waits(limiter, 'one', 5)).to.deep.equal([5, 5, 5, 3 * SECOND, 3 * SECOND]);
    expect(limiter.numRequeues('one')).to.equal(5);
    expect(waits(limiter, 'two', 2)).to.deep.equal([5, 5]);
    expect(limiter.numRequeues('two')).to.equal(2);
    limiter.forget('one');
    expect(limiter.numRequeues('one')).to.equal(0);
    expect(limiter.when('one')).to.equal(5);
  });

  it('asks every limiter each time, so each counts the requeue', () => {
    const fast = new FastSlowRateLimiter(5, SECOND, 1);
    const exponential = new ItemExponentialFailureRateLimiter<string>(1, SECOND);
    const limiter = new MaxOfRateLimiter(fast, exponential);
    // 5 ms beats 1 ms, then 1 s beats 2 ms: the exponential one counted both all the same.
    expect(waits(limiter, 'one', 2)).to.deep.equal([5, SECOND]);
    expect(exponential.numRequeues('one')).to.equal(2);
    expect(limiter.when('one')).to.equal(SECOND);
    expect(exponential.when('one')).to.equal(8);
  });
});

describe('eviction/rate-limiters: the eviction rate (Karmada DynamicRateLimiter)', () => {
  const cases: [rate: number, wait: number][] = [
    [50, 20],
    [20, 50],
    [30, 1000 / 30],
    [10, 100],
    [0.5, 2000],
    [0, MAX_EVICTION_DELAY_MS],
    // No cap: a rate under 1/1800 s waits longer than a pause.
    [0.0001, 10_000_000],
    // Refused by validation before; here it leaves the wait to the other limiters.
    [-1, 0],
  ];
  for (const [rate, wait] of cases) {
    it(`waits ${Number(wait.toFixed(2))} ms at ${rate}/s`, () => {
      expect(new DynamicRateLimiter(() => rate).when('any')).to.equal(wait);
    });
  }

  it('pauses 1800 s at rate 0 and for a NaN rate', () => {
    expect(MAX_EVICTION_DELAY_MS).to.equal(1800 * SECOND);
    expect(new DynamicRateLimiter(() => NaN).when('any')).to.equal(1800 * SECOND);
  });

  it('reads the rate at every wait and tracks no item', () => {
    let rate = 0;
    const limiter = new DynamicRateLimiter<string>(() => rate);
    expect(limiter.when('a')).to.equal(MAX_EVICTION_DELAY_MS);
    rate = 4;
    expect(limiter.when('a')).to.equal(250);
    expect(limiter.numRequeues('a')).to.equal(0);
    limiter.forget('a');
    expect(limiter.when('a')).to.equal(250);
  });
});

describe('eviction/rate-limiters: token bucket (client-go BucketRateLimiter, x/time/rate Reserve().Delay())', () => {
  it('serves a burst at once, then one token each 1/qps, counting from the debt', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(10, 3, clock);
    expect(['a', 'b', 'c', 'd', 'e', 'f'].map((item) => limiter.when(item))).to.deep.equal([0, 0, 0, 100, 200, 300]);
    expect(limiter.numRequeues('a')).to.equal(0);
  });

  it('refills while idle at qps, never past the burst', async () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(10, 3, clock);
    waits(limiter, 'x', 6); // 3 tokens in debt
    // 10 s is 100 tokens' worth: the debt is paid and the bucket full at 3, not 97.
    await clock.advance(10 * SECOND);
    expect(waits(limiter, 'x', 5)).to.deep.equal([0, 0, 0, 100, 200]);
  });

  it('refills part of a token, and a wait shortens by the time passed', async () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(10, 1, clock);
    expect(waits(limiter, 'x', 2)).to.deep.equal([0, 100]);
    await clock.advance(50);
    // 1 token in debt, half a token back: the next one exists 150 ms from now.
    expect(limiter.when('x')).to.equal(150);
    await clock.advance(300);
    // The debt of 1.5 paid by 3 tokens' worth: 1 left (the burst), then debt again.
    expect(waits(limiter, 'x', 2)).to.deep.equal([0, 100]);
  });

  it('refuses a bucket that could never serve a token', () => {
    const clock = new FakeClock();
    expect(() => new BucketRateLimiter(0, 10, clock)).to.throw(RangeError);
    expect(() => new BucketRateLimiter(10, 0, clock)).to.throw(RangeError);
    expect(() => new BucketRateLimiter(Infinity, 10, clock)).to.throw(RangeError);
  });
});

describe('eviction/rate-limiters: the graceful-eviction limiter (Karmada NewGracefulEvictionRateLimiter)', () => {
  it('waits the longer of 1/rate and the backoff: 20 ms at 50/s until the backoff passes it', () => {
    const limiter = gracefulEvictionRateLimiter<string>({ evictionRate: () => 50, clock: new FakeClock() });
    // Backoff 5, 10, 20, 40, 80, 160 ms against the rate's 20 ms.
    expect(waits(limiter, 'item', 6)).to.deep.equal([20, 20, 20, 40, 80, 160]);
    expect(limiter.numRequeues('item')).to.equal(6);
    limiter.forget('item');
    expect(limiter.numRequeues('item')).to.equal(0);
    expect(limiter.when('item')).to.equal(20);
  });

  it('caps the backoff at 1,000,000 ms by default and pauses 1800 s at rate 0', () => {
    let rate = 1000;
    const limiter = gracefulEvictionRateLimiter<string>({ evictionRate: () => rate, clock: new FakeClock() });
    waits(limiter, 'item', 40);
    expect(limiter.when('item')).to.equal(1_000_000);
    rate = 0;
    expect(limiter.when('fresh')).to.equal(MAX_EVICTION_DELAY_MS);
  });

  it('shares one bucket of 100 at 10/s across items: the 101st waits 100 ms', () => {
    const limiter = gracefulEvictionRateLimiter<string>({ evictionRate: () => 1000, clock: new FakeClock() });
    const firsts = Array.from({ length: 100 }, (_, i) => limiter.when(`item-${i}`));
    expect(new Set(firsts)).to.deep.equal(new Set([5]));
    expect(limiter.when('item-100')).to.equal(100);
    expect(limiter.when('item-101')).to.equal(200);
  });

  it('takes its settings, and reads 0 or less as the default, as the flags do', () => {
    const custom = gracefulEvictionRateLimiter<string>({
      baseDelayMs: 100,
      maxDelayMs: 300,
      qps: 1,
      bucketSize: 2,
      evictionRate: () => 1000,
      clock: new FakeClock(),
    });
    expect(waits(custom, 'item', 4)).to.deep.equal([100, 200, 1000, 2000]);
    const zeros = gracefulEvictionRateLimiter<string>({
      baseDelayMs: 0,
      maxDelayMs: -1,
      qps: 0,
      bucketSize: 0,
      evictionRate: () => 1000,
      clock: new FakeClock(),
    });
    expect(waits(zeros, 'item', 3)).to.deep.equal([5, 10, 20]);
  });
});
