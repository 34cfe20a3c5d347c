import { expect } from 'chai';
import { ApiError, type Status } from '../../apiserver/status.js';
import { FairQueues, type FairQueueSettings } from '../../clusters/fair-queues.js';
import {
  ADMIN_CLAIM,
  GATEWAY_CLAIM,
  tenantClaim,
  UpstreamSeats,
  type RejectReason,
  type Seat,
  type UpstreamSeatSettings,
} from '../../clusters/upstream-seats.js';
import { FakeClock } from '../support/fake-clock.js';

/**
 * One step of a level's life and what the level answers: `+a1` a request a1 of flow a arrives
 * (executing, queued or queue-full); `-a` a request of flow a gives its seat back (the waiting
 * requests that got seats, in order); `x a2` a2 is cancelled (whether it was still waiting);
 * `@1500` time moves to 1500 ms (the requests whose wait ran out).
 */
type Step = [string, string | string[] | boolean];

interface Case {
  name: string;
  settings: Partial<FairQueueSettings>;
  steps: Step[];
}

const BASE: FairQueueSettings = { seats: 1, seatsPerFlow: 1, queueLength: 10, maxWaitMs: 1000 };

const CASES: Case[] = [
  {
    name: "a flow takes at most its share of seats; the rest of its requests wait while seats are free, and another flow's do not",
    settings: { seats: 4, seatsPerFlow: 2 },
    steps: [
      ['+a1', 'executing'],
      ['+a2', 'executing'],
      ['+a3', 'queued'],
      ['+b1', 'executing'],
      ['+b2', 'executing'],
      ['+c1', 'queued'],
      ['-a', ['a3']],
      ['-b', ['c1']],
      ['-a', []],
    ],
  },
  {
    name: 'free seats go to the waiting flows in turn (round robin), whatever their queue lengths; a flow is FIFO',
    settings: { seats: 1, seatsPerFlow: 1 },
    steps: [
      ['+a1', 'executing'],
      ['+a2', 'queued'],
      ['+a3', 'queued'],
      ['+a4', 'queued'],
      ['+b1', 'queued'],
      ['+c1', 'queued'],
      ['+b2', 'queued'],
      ['-a', ['a2']],
      ['-a', ['b1']],
      ['-b', ['c1']],
      ['-c', ['a3']],
      ['-a', ['b2']],
      ['-b', ['a4']],
      ['-a', []],
    ],
  },
  {
    name: "a request arriving while its flow waits queues behind it, even when a seat is free for the flow's share",
    settings: { seats: 3, seatsPerFlow: 1 },
    steps: [
      ['+a1', 'executing'],
      ['+a2', 'queued'],
      ['-a', ['a2']],
      ['+a3', 'queued'],
      ['+b1', 'executing'],
    ],
  },
  {
    name: "a flow's full queue refuses one more (queue-full); other flows have queues of their own",
    settings: { queueLength: 2 },
    steps: [
      ['+a1', 'executing'],
      ['+a2', 'queued'],
      ['+a3', 'queued'],
      ['+a4', 'queue-full'],
      ['+b1', 'queued'],
      ['-a', ['a2']],
      ['+a5', 'queued'],
      ['+a6', 'queue-full'],
    ],
  },
  {
    name: 'no queue at all: every request without a seat is refused',
    settings: { queueLength: 0 },
    steps: [
      ['+a1', 'executing'],
      ['+a2', 'queue-full'],
      ['+b1', 'queue-full'],
    ],
  },
  {
    name: 'a request that waited its whole time is taken out (time-out), in the order of their deadlines',
    settings: { maxWaitMs: 1000 },
    steps: [
      ['+a1', 'executing'],
      ['+a2', 'queued'],
      ['@500', []],
      ['+b1', 'queued'],
      ['@700', []],
      ['+a3', 'queued'],
      ['@999', []],
      ['@1000', ['a2']],
      ['@1600', ['b1']],
      ['@1700', ['a3']],
      ['-a', []],
    ],
  },
  {
    name: 'a cancelled request leaves its queue and is never admitted',
    settings: {},
    steps: [
      ['+a1', 'executing'],
      ['+a2', 'queued'],
      ['+a3', 'queued'],
      ['x a2', true],
      ['x a2', false],
      ['-a', ['a3']],
      ['-a', []],
    ],
  },
];

function run(c: Case): void {
  const queues = new FairQueues<string>({ ...BASE, ...c.settings });
  let now = 0;
  for (const [step, expected] of c.steps) {
    let got: string | string[] | boolean;
    if (step.startsWith('+')) got = queues.arrive(step[1], step.slice(1), now);
    else if (step.startsWith('-')) got = queues.finish(step.slice(1));
    else if (step.startsWith('x ')) got = queues.cancel(step[2], step.slice(2));
    else {
      now = Number(step.slice(1));
      got = queues.expire(now);
    }
    expect(got, `${c.name}: ${step}`).to.deep.equal(expected);
  }
}

describe('gateway: fair queues of a priority level (the scheduler)', () => {
  for (const c of CASES) it(c.name, () => run(c));

  it('counts seats held and requests waiting, and refuses a seat given back that was not held', () => {
    const queues = new FairQueues<string>({ ...BASE, seats: 2 });
    queues.arrive('a', 'a1', 0);
    queues.arrive('a', 'a2', 0);
    queues.arrive('b', 'b1', 0);
    queues.arrive('b', 'b2', 0);
    expect([queues.executing, queues.waiting]).to.deep.equal([2, 2]);
    expect(queues.nextDeadline()).to.equal(1000);
    queues.finish('a');
    queues.finish('b');
    queues.finish('a');
    queues.finish('b');
    expect([queues.executing, queues.waiting, queues.nextDeadline()]).to.deep.equal([0, 0, undefined]);
    expect(() => queues.finish('a'), 'a flow given back more seats than it held').to.throw('holds no seat');
  });
});

describe('gateway: upstream seats (priority levels, 429 when refused)', () => {
  const SMALL: UpstreamSeatSettings = {
    tenantSeats: 3,
    seatsPerTenant: 2,
    tenantQueueLength: 1,
    tenantQueueWaitMs: 15_000,
    gatewaySeats: 1,
  };
  let clock: FakeClock;
  let rejected: string[];
  let seats: UpstreamSeats;

  beforeEach(() => {
    clock = new FakeClock();
    rejected = [];
    seats = new UpstreamSeats('member1', SMALL, clock, (level, reason) => rejected.push(`${level} ${reason}`));
  });

  /** The Status of a refusal. */
  async function refusal(seat: Promise<Seat>): Promise<Status> {
    try {
      await seat;
    } catch (err) {
      if (err instanceof ApiError) return err.status;
      throw err;
    }
    throw new Error('expected a 429 refusal');
  }

  /** Whether a promise has settled, after its continuations ran. */
  async function settled(promise: Promise<unknown>): Promise<boolean> {
    let done = false;
    promise.then(
      () => (done = true),
      () => (done = true),
    );
    await clock.advance(0);
    return done;
  }

  it("a tenant past its share and its queue is refused 429 TooManyRequests with Retry-After 1, in APF's words", async () => {
    await seats.acquire(tenantClaim('hogged'));
    await seats.acquire(tenantClaim('hogged'));
    const waiting = seats.acquire(tenantClaim('hogged'));
    expect(await settled(waiting), 'the third waits: the tenant holds its 2 seats, though 1 is free').to.equal(false);
    const status = await refusal(seats.acquire(tenantClaim('hogged')));
    expect(status).to.deep.include({ code: 429, reason: 'TooManyRequests' });
    expect(status.details?.retryAfterSeconds).to.equal(1);
    expect(status.message).to.match(/^Too many requests, please try again later: /);
    expect(status.message).to.contain("tenant hogged's requests to its cluster fill their 2 seats and 1 places");
    expect(rejected).to.deep.equal(['tenants queue-full']);
    // Another tenant takes the free seat at once.
    await seats.acquire(tenantClaim('others'));
    expect(seats.state()).to.deep.equal([
      { level: 'tenants', seats: 3, executing: 3, waiting: 1 },
      { level: 'gateway', seats: 1, executing: 0, waiting: 0 },
    ]);
  });

  it('a request that waits the whole --tenant-queue-wait is refused 429 (time-out); one admitted before then is not', async () => {
    const held = [await seats.acquire(tenantClaim('hogged')), await seats.acquire(tenantClaim('hogged'))];
    const first = seats.acquire(tenantClaim('hogged'));
    await clock.advance(5_000);
    held[0].release();
    expect(await settled(first)).to.equal(true);
    const second = seats.acquire(tenantClaim('hogged'));
    await clock.advance(14_999);
    expect(await settled(second)).to.equal(false);
    await clock.advance(1);
    const status = await refusal(second);
    expect(status).to.deep.include({ code: 429, reason: 'TooManyRequests' });
    expect(status.message).to.contain('waited 15s for one of 2 seats');
    expect(rejected).to.deep.equal(['tenants time-out']);
    expect(seats.state()[0]).to.deep.include({ executing: 2, waiting: 0 });
  });

  it('seats given back go to the waiting tenants in turn, not to the one with the most waiting', async () => {
    const wide = new UpstreamSeats('member1', { ...SMALL, tenantSeats: 1, tenantQueueLength: 5 }, clock);
    let current = await wide.acquire(tenantClaim('hogged'));
    const order: string[] = [];
    const admitted = new Map<string, Seat>();
    const waiting = ['h1', 'h2', 'h3', 'o1'].map((name) =>
      wide.acquire(tenantClaim(name.startsWith('h') ? 'hogged' : 'others')).then((seat) => {
        order.push(name);
        admitted.set(name, seat);
      }),
    );
    // One seat: each holder gives it back in turn, and the next waiting request takes it.
    for (let i = 0; i < waiting.length; i++) {
      current.release();
      await clock.advance(0);
      current = admitted.get(order.at(-1)!)!;
    }
    current.release();
    await Promise.all(waiting);
    expect(order).to.deep.equal(['h1', 'o1', 'h2', 'h3']);
  });

  it("the gateway's level is apart: probes and the admin get seats while the tenants' are full and queued", async () => {
    for (const tenant of ['aaaaaa', 'aaaaaa', 'bbbbbb']) await seats.acquire(tenantClaim(tenant));
    const queued = seats.acquire(tenantClaim('bbbbbb'));
    expect(await settled(queued)).to.equal(false);
    const probe = await seats.acquire(GATEWAY_CLAIM);
    const admin = seats.acquire(ADMIN_CLAIM);
    expect(await settled(admin), "the gateway's one seat is the probe's").to.equal(false);
    probe.release();
    (await admin).release();
    expect(seats.connections, 'the pool: a connection per seat of either level').to.equal(4);
  });

  it('a waiting request whose client went away leaves the queue (cancelled), and close refuses every one still waiting', async () => {
    await seats.acquire(tenantClaim('hogged'));
    await seats.acquire(tenantClaim('hogged'));
    let cancel = () => {};
    let stopped = false;
    const gone = seats.acquire(
      tenantClaim('hogged', (c) => {
        cancel = c;
        return () => (stopped = true);
      }),
    );
    cancel();
    expect((await refusal(gone)).code).to.equal(429);
    expect(stopped, 'its listener is removed').to.equal(true);
    expect(seats.state()[0].waiting).to.equal(0);
    const left = seats.acquire(tenantClaim('hogged'));
    seats.close();
    expect((await refusal(left)).code).to.equal(429);
    expect(rejected).to.deep.equal(['tenants cancelled', 'tenants cancelled'] satisfies `${string} ${RejectReason}`[]);
    expect(clock.pending(), 'no timer left').to.equal(0);
  });

  it('tells how long each request waited for its seat and whether it got one, and calls `seated` when it has it', async () => {
    const waits: string[] = [];
    const timed = new UpstreamSeats('member1', { ...SMALL, tenantSeats: 1 }, clock, undefined, (level, ms, executed) =>
      waits.push(`${level} ${ms} ${executed}`),
    );
    const seatedAt: number[] = [];
    const claim = () => tenantClaim('aaaaaa');
    const first = await timed.acquire({ ...claim(), seated: () => seatedAt.push(clock.now()) });
    const second = timed.acquire({ ...claim(), seated: () => seatedAt.push(clock.now()) });
    await clock.advance(250);
    first.release();
    (await second).release();
    await timed.acquire(GATEWAY_CLAIM);
    const third = await timed.acquire(claim());
    const refused = timed.acquire(claim());
    await clock.advance(SMALL.tenantQueueWaitMs);
    expect((await refusal(refused)).code).to.equal(429);
    third.release();
    expect(seatedAt).to.deep.equal([0, 250]);
    expect(waits).to.deep.equal([
      'tenants 0 true',
      'tenants 250 true',
      'gateway 0 true',
      'tenants 0 true',
      `tenants ${SMALL.tenantQueueWaitMs} false`,
    ]);
  });

  it('a seat given back twice is given back once', async () => {
    const seat = await seats.acquire(tenantClaim('aaaaaa'));
    seat.release();
    seat.release();
    expect(seats.state()[0].executing).to.equal(0);
  });
});
