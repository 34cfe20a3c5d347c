/**
 * The eviction queue on a fake clock, every time exact: client-go's workqueue semantics (dedupe,
 * an item added while processed handed out again after, delayed adds, rate-limited retries,
 * shut-down), the queue-wide pace (one start per 1/rate whatever the number of workers, none
 * while paused at rate 0 until a rate change), then the observer's view and the real clock's
 * timers.
 */
import { expect } from 'chai';
import { realClock } from '../../clusters/clock.js';
import { EvictionQueue, type EvictionQueueObserver, type PacerKey } from '../../eviction/eviction-queue.js';
import {
  ItemExponentialFailureRateLimiter,
  gracefulEvictionRateLimiter,
  type RateLimiter,
} from '../../eviction/rate-limiters.js';
import { sleep } from '../support/eventually.js';
import { FakeClock } from '../support/fake-clock.js';

/** A pacer that never pauses, for the tests of the queue's own semantics. */
const noPause: RateLimiter<PacerKey> = { when: () => 0, forget: () => undefined, numRequeues: () => 0 };

/** A queue on a fake clock whose retries back off 5 ms doubling and whose workers do not pause. */
function plainQueue(observer?: EvictionQueueObserver<string>) {
  const clock = new FakeClock();
  const queue = new EvictionQueue<string>({
    limiter: new ItemExponentialFailureRateLimiter(5, 1000),
    pacer: noPause,
    clock,
    observer,
  });
  return { clock, queue };
}

/** A queue paced as production paces it: one graceful-eviction limiter for retries and pace, paused at rate 0. */
function pacedQueue(rate: () => number, observer?: EvictionQueueObserver<string>) {
  const clock = new FakeClock();
  const limiter = gracefulEvictionRateLimiter<string | PacerKey>({ evictionRate: rate, clock });
  const paused = () => rate() === 0;
  return { clock, queue: new EvictionQueue<string>({ limiter, pacer: limiter, paused, clock, observer }) };
}

/** A pacer of a fixed interval that counts how often it is asked. */
function countingPacer(intervalMs: number) {
  const pacer = {
    asks: 0,
    when: () => {
      pacer.asks++;
      return intervalMs;
    },
    forget: () => undefined,
    numRequeues: () => 0,
  };
  return pacer;
}

/** A reconcile that notes each item and the fake time it was reconciled at. */
function recorder(clock: FakeClock) {
  const log: [item: string, at: number][] = [];
  const reconcile = async (item: string) => {
    log.push([item, clock.now()]);
  };
  return { log, reconcile, times: () => log.map(([, at]) => at), items: () => log.map(([item]) => item) };
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('eviction/eviction-queue: workqueue semantics (client-go)', () => {
  it('keeps an item once however often it is added, in the order first added', async () => {
    const enqueued: string[] = [];
    const { clock, queue } = plainQueue({ enqueued: (item) => enqueued.push(item) });
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.length).to.equal(2);
    expect(enqueued).to.deep.equal(['a', 'b']);
    const { items, reconcile } = recorder(clock);
    const running = queue.run(1, reconcile);
    await clock.advance(0);
    expect(items()).to.deep.equal(['a', 'b']);
    expect(queue.length).to.equal(0);
    queue.shutDown();
    await running;
  });

  it('hands an item added while it is processed out again once it is done, never to two workers at once', async () => {
    const completed: string[] = [];
    const { clock, queue } = plainQueue({ completed: (item) => completed.push(item) });
    const first = gate();
    const calls: string[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const running = queue.run(2, async (item) => {
      calls.push(item);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      if (calls.length === 1) await first.opened;
      inFlight--;
    });
    queue.add('a');
    await clock.advance(0);
    queue.add('a');
    queue.add('a');
    await clock.advance(0);
    // Marked, not ready: the idle second worker must not take it.
    expect(queue.length).to.equal(0);
    expect(calls).to.deep.equal(['a']);
    first.open();
    await clock.advance(0);
    expect(calls).to.deep.equal(['a', 'a']);
    expect(mostInFlight).to.equal(1);
    // Still pending after the first pass, so one completion for the one enqueue.
    expect(completed).to.deep.equal(['a']);
    queue.shutDown();
    await running;
  });

  it('adds an item after its delay on the clock, keeping the earlier time when added after again', async () => {
    const { clock, queue } = plainQueue();
    const { log, reconcile } = recorder(clock);
    const running = queue.run(1, reconcile);
    queue.addAfter('a', 1000);
    queue.addAfter('b', 500);
    queue.addAfter('b', 300);
    queue.addAfter('b', 800);
    expect(clock.pending()).to.equal(2);
    expect(queue.length).to.equal(0);
    await clock.advance(999);
    expect(log).to.deep.equal([['b', 300]]);
    await clock.advance(1);
    expect(log).to.deep.equal([
      ['b', 300],
      ['a', 1000],
    ]);
    queue.shutDown();
    await running;
  });

  it('retries a failing item after 5, 10, 20, 40 ms and forgets its failures once it succeeds', async () => {
    const { clock, queue } = pacedQueue(() => 1000);
    const requeues: number[] = [];
    const { times, reconcile } = recorder(clock);
    const running = queue.run(1, async (item) => {
      await reconcile(item);
      requeues.push(queue.numRequeues(item));
      if (requeues.length < 5) throw new Error('not yet');
    });
    queue.add('a');
    await clock.advance(1000);
    expect(times()).to.deep.equal([0, 5, 15, 35, 75]);
    expect(requeues).to.deep.equal([0, 1, 2, 3, 4]);
    expect(queue.numRequeues('a')).to.equal(0);
    queue.shutDown();
    await running;
  });
});

describe('eviction/eviction-queue: the pace of evictions (queue-wide)', () => {
  it('reconciles one item each 2 s at 0.5/s with one worker, though all were added at once', async () => {
    const { clock, queue } = pacedQueue(() => 0.5);
    for (const item of ['a', 'b', 'c', 'd', 'e']) queue.add(item);
    const { times, reconcile } = recorder(clock);
    const running = queue.run(1, reconcile);
    await clock.advance(1999);
    expect(times()).to.deep.equal([0]);
    // 'b' is taken, waiting for its slot.
    expect(queue.length).to.equal(3);
    await clock.advance(10_000 - 1999);
    expect(times()).to.deep.equal([0, 2000, 4000, 6000, 8000]);
    queue.shutDown();
    await running;
  });

  it('shares one pace among the workers: 3 workers at 0.5/s start one item each 2 s, not 3', async () => {
    const { clock, queue } = pacedQueue(() => 0.5);
    for (let i = 0; i < 6; i++) queue.add(`item-${i}`);
    const { times, items, reconcile } = recorder(clock);
    const running = queue.run(3, reconcile);
    await clock.advance(1999);
    expect(times()).to.deep.equal([0]);
    // 'item-0' is done, the next three are taken, each waiting for a slot; only the first in line
    // has a timer.
    expect(queue.length).to.equal(2);
    expect(clock.pending()).to.equal(1);
    await clock.advance(10_000 - 1999);
    expect(times()).to.deep.equal([0, 2000, 4000, 6000, 8000, 10_000]);
    expect(items()).to.deep.equal(Array.from({ length: 6 }, (_, i) => `item-${i}`));
    queue.shutDown();
    await running;
  });

  it('keeps the pace with reconciles slower than 1/rate: another worker takes the next slot', async () => {
    const { clock, queue } = pacedQueue(() => 0.5);
    for (let i = 0; i < 6; i++) queue.add(`item-${i}`);
    const { times, reconcile } = recorder(clock);
    let inFlight = 0;
    let mostInFlight = 0;
    const running = queue.run(3, async (item) => {
      await reconcile(item);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await new Promise<void>((resolve) => clock.setTimer(resolve, 5000));
      inFlight--;
    });
    await clock.advance(20_000);
    expect(times()).to.deep.equal([0, 2000, 4000, 6000, 8000, 10_000]);
    expect(mostInFlight).to.equal(3);
    queue.shutDown();
    await running;
  });

  it('does not let workers asking together raise the sentinel backoff for one another', async () => {
    // At 1000/s the backoff's 5 ms base is the interval; a sentinel forgotten only after the
    // wait would give the three workers 5, 10 and 20 ms.
    const { clock, queue } = pacedQueue(() => 1000);
    for (let i = 0; i < 9; i++) queue.add(`item-${i}`);
    const { times, reconcile } = recorder(clock);
    const running = queue.run(3, reconcile);
    await clock.advance(100);
    expect(times()).to.deep.equal([0, 5, 10, 15, 20, 25, 30, 35, 40]);
    queue.shutDown();
    await running;
  });

  it('asks the pacer once per start, again only when the rate changes', async () => {
    const clock = new FakeClock();
    const pacer = countingPacer(1000);
    const queue = new EvictionQueue<string>({ limiter: new ItemExponentialFailureRateLimiter(5, 1000), pacer, clock });
    for (let i = 0; i < 6; i++) queue.add(`item-${i}`);
    const { times, reconcile } = recorder(clock);
    const running = queue.run(3, reconcile);
    await clock.advance(7000);
    // Workers woken for a slot another took meanwhile did not ask again.
    expect(times()).to.deep.equal([0, 1000, 2000, 3000, 4000, 5000]);
    expect(pacer.asks).to.equal(6);
    // After an idle spell the first starts at once. Of the two waiting, only the first in line has
    // asked, and asks again on the rate change.
    for (const item of ['x', 'y', 'z']) queue.add(item);
    await clock.advance(500);
    expect(pacer.asks).to.equal(8);
    queue.rateChanged();
    await clock.advance(2000);
    expect(times().slice(6)).to.deep.equal([7000, 8000, 9000]);
    expect(pacer.asks).to.equal(10);
    queue.shutDown();
    await running;
  });

  it('starts nothing at rate 0 until the rate changes, then goes on at the new rate at once', async () => {
    let rate = 0;
    const { clock, queue } = pacedQueue(() => rate);
    for (const item of ['a', 'b', 'c', 'd']) queue.add(item);
    const { times, reconcile } = recorder(clock);
    const running = queue.run(1, reconcile);
    await clock.advance(3_600_000);
    expect(times()).to.deep.equal([]);
    // The worker holds 'a' without a timer: it waits for the rate to change.
    expect(queue.length).to.equal(3);
    expect(clock.pending()).to.equal(0);
    rate = 2;
    await clock.advance(0);
    // Nothing until the queue is told.
    expect(times()).to.deep.equal([]);
    queue.rateChanged();
    await clock.advance(1500);
    expect(times()).to.deep.equal([3_600_000, 3_600_500, 3_601_000, 3_601_500]);
    queue.shutDown();
    await running;
  });

  it('counts a waiting slot again from the last start when the rate changes: sooner, later, or at once', async () => {
    let rate = 0.5;
    const { clock, queue } = pacedQueue(() => rate);
    for (const item of ['a', 'b', 'c', 'd']) queue.add(item);
    const { times, reconcile } = recorder(clock);
    const running = queue.run(1, reconcile);
    await clock.advance(100);
    // 'b' waits for 2000; at 2/s its slot is 0 + 500.
    rate = 2;
    queue.rateChanged();
    await clock.advance(399);
    expect(times()).to.deep.equal([0]);
    await clock.advance(1);
    expect(times()).to.deep.equal([0, 500]);
    // 'c' waits for 1000; at 0.25/s its slot is 500 + 4000.
    await clock.advance(200);
    rate = 0.25;
    queue.rateChanged();
    await clock.advance(3799);
    expect(times()).to.deep.equal([0, 500]);
    await clock.advance(1);
    expect(times()).to.deep.equal([0, 500, 4500]);
    // 'd' waits for 8500; at 1/s its slot, 5500, has passed.
    await clock.advance(1500);
    rate = 1;
    queue.rateChanged();
    await clock.advance(0);
    expect(times()).to.deep.equal([0, 500, 4500, 6000]);
    queue.shutDown();
    await running;
  });

  it('starts nothing more once the rate is set to 0 mid-run, until it is raised again', async () => {
    let rate = 2;
    const { clock, queue } = pacedQueue(() => rate);
    for (const item of ['a', 'b', 'c', 'd']) queue.add(item);
    const { times, reconcile } = recorder(clock);
    const running = queue.run(1, reconcile);
    await clock.advance(700);
    expect(times()).to.deep.equal([0, 500]);
    // 'c' waits for 1000.
    rate = 0;
    queue.rateChanged();
    expect(clock.pending()).to.equal(0);
    await clock.advance(3_600_000);
    expect(times()).to.deep.equal([0, 500]);
    rate = 2;
    queue.rateChanged();
    await clock.advance(1000);
    expect(times()).to.deep.equal([0, 500, 3_600_700, 3_601_200]);
    queue.shutDown();
    await running;
  });

  it('looks at the pause again when a slot comes, though the queue was not told', async () => {
    let rate = 2;
    const { clock, queue } = pacedQueue(() => rate);
    for (const item of ['a', 'b']) queue.add(item);
    const { times, reconcile } = recorder(clock);
    const running = queue.run(1, reconcile);
    await clock.advance(200);
    rate = 0;
    await clock.advance(60_000);
    expect(times()).to.deep.equal([0]);
    expect(clock.pending()).to.equal(0);
    rate = 2;
    queue.rateChanged();
    await clock.advance(0);
    expect(times()).to.deep.equal([0, 60_200]);
    queue.shutDown();
    await running;
  });
});

describe('eviction/eviction-queue: shutting down', () => {
  it('stops workers after the item they reconcile and at once when waiting, ends scheduled adds, ignores later adds', async () => {
    const { clock, queue } = pacedQueue(() => 0.5);
    const slow = gate();
    const done: string[] = [];
    const running = queue.run(2, async (item) => {
      if (item === 'a') await slow.opened;
      done.push(item);
    });
    for (const item of ['a', 'b', 'c', 'd']) queue.add(item);
    queue.addAfter('later', 5000);
    await clock.advance(0);
    // 'a' is in flight, 'b' waits for its slot at 2000, 'later' is scheduled.
    expect(done).to.deep.equal([]);
    expect(queue.length).to.equal(2);
    expect(clock.pending()).to.equal(2);
    queue.shutDown();
    expect(clock.pending()).to.equal(0);
    slow.open();
    await running;
    expect(done).to.deep.equal(['a']);
    // 'b' is ready again, with 'c' and 'd'.
    expect(queue.length).to.equal(3);
    queue.add('e');
    queue.addAfter('f', 10);
    expect(queue.length).to.equal(3);
    expect(clock.pending()).to.equal(0);
    await queue.run(1, () => Promise.reject(new Error('no worker runs after shut-down')));
  });

  it('does not reconcile the item of a worker waiting for its slot, and puts it back first in line', async () => {
    const depths: number[] = [];
    const processed: string[] = [];
    const completed: string[] = [];
    const { clock, queue } = pacedQueue(() => 0.5, {
      depth: (length) => depths.push(length),
      processed: (item) => processed.push(item),
      completed: (item) => completed.push(item),
    });
    queue.add('a');
    queue.add('b');
    const { items, reconcile } = recorder(clock);
    const running = queue.run(1, reconcile);
    await clock.advance(1000);
    queue.shutDown();
    await running;
    await clock.advance(10_000);
    expect(items()).to.deep.equal(['a']);
    expect(processed).to.deep.equal(['a']);
    expect(completed).to.deep.equal(['a']);
    expect(depths).to.deep.equal([1, 2, 1, 0, 1]);
    expect(queue.length).to.equal(1);
  });

  it('stops a worker paused at rate 0 without reconciling its item', async () => {
    const processed: string[] = [];
    const { clock, queue } = pacedQueue(() => 0, { processed: (item) => processed.push(item) });
    queue.add('a');
    const { items, reconcile } = recorder(clock);
    const running = queue.run(2, reconcile);
    await clock.advance(1000);
    queue.shutDown();
    await running;
    expect(items()).to.deep.equal([]);
    expect(processed).to.deep.equal([]);
    expect(queue.length).to.equal(1);
  });

  it('shuts down when the signal aborts', async () => {
    const { clock, queue } = pacedQueue(() => 0.5);
    const controller = new AbortController();
    const { items, reconcile } = recorder(clock);
    queue.add('a');
    queue.add('b');
    const running = queue.run(1, reconcile, controller.signal);
    await clock.advance(1000);
    controller.abort();
    await running;
    expect(items()).to.deep.equal(['a']);
    expect(clock.pending()).to.equal(0);
    // 'b' was waiting for its slot: ready again.
    expect(queue.length).to.equal(1);
  });
});

describe('eviction/eviction-queue: what the observer sees', () => {
  it('sees the depth at each change, every reconcile with its time and error, and enqueues balanced by completions', async () => {
    const depths: number[] = [];
    const processed: [string, number, string | undefined][] = [];
    const enqueued: string[] = [];
    const completed: string[] = [];
    const { clock, queue } = plainQueue({
      depth: (length) => depths.push(length),
      processed: (item, ms, error) => processed.push([item, ms, error instanceof Error ? error.message : undefined]),
      enqueued: (item) => enqueued.push(item),
      completed: (item) => completed.push(item),
    });
    let failures = 0;
    for (const item of ['a', 'b', 'c']) queue.add(item);
    const running = queue.run(1, async (item) => {
      if (item === 'a') await new Promise<void>((resolve) => clock.setTimer(resolve, 250));
      if (item === 'b' && failures++ === 0) throw new Error('boom');
    });
    await clock.advance(1000);
    // 'b' came back at 255 to an idle worker, taken at once: the depth stayed 0.
    expect(depths).to.deep.equal([1, 2, 3, 2, 1, 0]);
    expect(processed).to.deep.equal([
      ['a', 250, undefined],
      ['b', 0, 'boom'],
      ['c', 0, undefined],
      ['b', 0, undefined],
    ]);
    expect(enqueued).to.deep.equal(['a', 'b', 'c']);
    expect(completed).to.deep.equal(['a', 'c', 'b']);
    queue.shutDown();
    await running;
  });
  it('counts an item scheduled again while it is processed as pending until that run succeeds too', async () => {
    const enqueued: string[] = [];
    const completed: [string, number][] = [];
    const { clock, queue } = plainQueue({
      enqueued: (item) => enqueued.push(item),
      completed: (item) => completed.push([item, clock.now()]),
    });
    const running = queue.run(1, async (item) => {
      if (clock.now() === 0) queue.addAfter(item, 100);
    });
    queue.add('a');
    await clock.advance(0);
    expect(completed).to.deep.equal([]);
    await clock.advance(100);
    expect(completed).to.deep.equal([['a', 100]]);
    expect(enqueued).to.deep.equal(['a']);
    queue.shutDown();
    await running;
  });
});

describe('eviction/clock: the real clock', () => {
  it('fires a timer after its delay and not once cancelled', async () => {
    const fired: string[] = [];
    realClock.setTimer(() => fired.push('kept'), 5);
    realClock.setTimer(() => fired.push('cancelled'), 5).cancel();
    await sleep(50);
    expect(fired).to.deep.equal(['kept']);
  });

  it('waits out a delay past setTimeout’s limit instead of firing after 1 ms', async () => {
    let fired = false;
    const timer = realClock.setTimer(() => (fired = true), 2 ** 31 + 1000);
    await sleep(50);
    timer.cancel();
    expect(fired).to.equal(false);
  });
});
