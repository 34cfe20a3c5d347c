import { expect } from 'chai';
import {
  isStoreError,
  type Leadership,
  type Store,
  type StoreErrorCode,
  type Watch,
  type WatchEvent,
} from '../../store/index.js';
import { sleep, waitUntil } from '../support/eventually.js';

/** A process that campaigns in an election and reports on its stdout. */
export interface CandidateProcess {
  /** Resolves when the process says it became leader. */
  elected: Promise<void>;
  kill(): Promise<void>;
}

export interface StoreFixture {
  /** A fresh store; keys written by earlier tests are not visible in it. */
  open(options?: { maxPendingWatchEvents?: number }): Promise<Store>;
  /** Starts a candidate in another process that shares this store (multi-process backends). */
  spawnCandidate?(store: Store, name: string, ttlSeconds: number): Promise<CandidateProcess>;
}

export interface ConformanceOptions {
  /**
   * Whether several processes can share the store (etcd). An embedded store belongs to the one
   * process that locked its data directory, so hand-over after killing a process only applies to
   * shared backends; the release test covers the embedded store's expiry path.
   */
  multiProcess: boolean;
}

export async function expectStoreError(promise: Promise<unknown>, code: StoreErrorCode): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    if (!isStoreError(err, code)) throw new Error(`expected StoreError ${code}, got ${String(err)}`, { cause: err });
    return err;
  }
  throw new Error(`expected StoreError ${code}, but the call succeeded`);
}

/** Reads exactly `count` events, failing after `ms` without them. */
export async function take(watch: Watch, count: number, ms = 10000): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  const iterator = watch[Symbol.asyncIterator]();
  const deadline = Date.now() + ms;
  while (events.length < count) {
    const next = await Promise.race([
      iterator.next(),
      new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), Math.max(deadline - Date.now(), 0))),
    ]);
    if (next === 'timeout') throw new Error(`got ${events.length} of ${count} events within ${ms}ms`);
    if (next.done) throw new Error(`watch ended after ${events.length} of ${count} events`);
    events.push(next.value);
  }
  return events;
}

/** Nothing more arrives within `ms` (no duplicates after the expected events). */
async function expectQuiet(watch: Watch, ms: number): Promise<void> {
  const iterator = watch[Symbol.asyncIterator]();
  const next = await Promise.race([
    iterator.next(),
    new Promise<'quiet'>((resolve) => setTimeout(() => resolve('quiet'), ms)),
  ]);
  if (next !== 'quiet' && !next.done) throw new Error(`unexpected extra event ${JSON.stringify(next.value)}`);
}

/** The one conformance suite every store backend passes, unchanged. */
export function storeConformance(fixture: () => StoreFixture, options: ConformanceOptions): void {
  let store: Store;
  beforeEach(async () => {
    store = await fixture().open();
  });
  afterEach(async () => {
    await store.close();
  });

  describe('create and get', () => {
    it('creates a key at a new revision and reads it back', async () => {
      const before = await store.currentRevision();
      const revision = await store.create('/c/a', 'one');
      expect(revision).to.be.greaterThan(before);
      expect(await store.currentRevision()).to.equal(revision);
      expect(await store.get('/c/a')).to.deep.equal({
        key: '/c/a',
        value: 'one',
        createRevision: revision,
        modRevision: revision,
      });
      expect(await store.get('/c/b')).to.equal(null);
    });

    it('refuses to create a key twice with AlreadyExists and keeps the first value', async () => {
      await store.create('/c/a', 'one');
      await expectStoreError(store.create('/c/a', 'two'), 'AlreadyExists');
      expect((await store.get('/c/a'))!.value).to.equal('one');
    });

    it('gives every write the next revision of one counter shared by all keys', async () => {
      const r1 = await store.create('/c/a', '1');
      const r2 = await store.create('/d/b', '2');
      const r3 = await store.update('/c/a', '3');
      const r4 = (await store.delete('/d/b')).revision;
      expect([r2 - r1, r3 - r2, r4 - r3]).to.deep.equal([1, 1, 1]);
    });
  });

  describe('update', () => {
    it('updates at the expected revision and keeps createRevision', async () => {
      const created = await store.create('/u/a', 'one');
      const updated = await store.update('/u/a', 'two', created);
      expect(updated).to.be.greaterThan(created);
      expect(await store.get('/u/a')).to.deep.equal({
        key: '/u/a',
        value: 'two',
        createRevision: created,
        modRevision: updated,
      });
    });

    it('refuses a stale expected revision with Conflict and leaves the value alone', async () => {
      const created = await store.create('/u/a', 'one');
      await store.update('/u/a', 'two', created);
      const err = await expectStoreError(store.update('/u/a', 'three', created), 'Conflict');
      expect(err.message).to.contain('/u/a');
      expect((await store.get('/u/a'))!.value).to.equal('two');
    });

    it('answers NotFound for a key that does not exist, with or without a revision', async () => {
      await expectStoreError(store.update('/u/missing', 'x'), 'NotFound');
      await expectStoreError(store.update('/u/missing', 'x', 5), 'NotFound');
      expect(await store.get('/u/missing')).to.equal(null);
    });

    it('lets exactly one of many concurrent updates at the same revision win', async () => {
      const created = await store.create('/u/race', '0');
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => store.update('/u/race', `w${i}`, created)),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected' && isStoreError(r.reason, 'Conflict'));
      expect(won).to.have.length(1);
      expect(lost).to.have.length(19);
    });

    it('answers a Conflict only once the winning write can be read, so a writer that reads again can retry', async () => {
      const created = await store.create('/u/retry', '0');
      // Each attempt reports the revision it wrote, or the one a read shows right after its Conflict.
      const attempt = (value: string) =>
        store.update('/u/retry', value, created).then(
          (revision) => ({ outcome: 'won', revision }),
          async (err: unknown) => {
            if (!isStoreError(err, 'Conflict')) throw err;
            return { outcome: 'conflict', revision: (await store.get('/u/retry'))!.modRevision };
          },
        );
      const outcomes = await Promise.all([attempt('a'), attempt('b')]);
      expect(outcomes.map((o) => o.outcome).sort()).to.deep.equal(['conflict', 'won']);
      expect(outcomes[0].revision).to.equal(outcomes[1].revision);
    });
  });

  describe('delete', () => {
    it('deletes a key and returns its last value', async () => {
      await store.create('/x/a', 'one');
      const { revision, value } = await store.delete('/x/a');
      expect(value).to.equal('one');
      expect(revision).to.equal(await store.currentRevision());
      expect(await store.get('/x/a')).to.equal(null);
      await expectStoreError(store.delete('/x/a'), 'NotFound');
    });

    it('deletes only at the expected revision when one is given', async () => {
      const created = await store.create('/x/a', 'one');
      await store.update('/x/a', 'two');
      await expectStoreError(store.delete('/x/a', created), 'Conflict');
      expect((await store.get('/x/a'))!.value).to.equal('two');
    });

    it('gives a key re-created after deletion a new createRevision', async () => {
      const first = await store.create('/x/a', 'one');
      await store.delete('/x/a');
      const second = await store.create('/x/a', 'two');
      expect(second).to.be.greaterThan(first);
      expect((await store.get('/x/a'))!.createRevision).to.equal(second);
    });
  });

  describe('validation', () => {
    const badKeys: unknown[] = [
      '',
      'relative',
      '/trailing/',
      '/double//slash',
      '/dot/./x',
      '/up/../x',
      '/ctl/\n',
      '/nul/\u0000',
      '/ü',
      42,
      null,
      '/' + 'k'.repeat(4000),
    ];

    it('rejects invalid keys with Invalid and stores nothing', async () => {
      const before = await store.currentRevision();
      for (const key of badKeys) {
        await expectStoreError(store.create(key as string, 'v'), 'Invalid');
        await expectStoreError(store.update(key as string, 'v'), 'Invalid');
        await expectStoreError(store.get(key as string), 'Invalid');
      }
      expect(await store.currentRevision()).to.equal(before);
    });

    it('rejects values that are not strings, not well-formed, or too large, and stores nothing', async () => {
      const before = await store.currentRevision();
      for (const value of [undefined, 7, { a: 1 }, 'lone \ud800 surrogate', 'x'.repeat(2 * 1024 * 1024)]) {
        await expectStoreError(store.create('/v/a', value as string), 'Invalid');
      }
      expect(await store.get('/v/a')).to.equal(null);
      expect(await store.currentRevision()).to.equal(before);
    });

    it('rejects continue tokens it did not issue, or issued for another prefix', async () => {
      for (let i = 0; i < 3; i++) await store.create(`/t/k${i}`, 'v');
      const page = await store.list('/t/', { limit: 1 });
      await expectStoreError(store.list('/t/', { continue: 'not-a-token' }), 'Invalid');
      await expectStoreError(store.list('/other/', { continue: page.continue! }), 'Invalid');
    });
  });

  describe('list', () => {
    it('lists exactly the keys with the prefix, in key order', async () => {
      for (const key of ['/p/b', '/p/a', '/pa/x', '/p/c/d', '/q/a']) await store.create(key, key.toUpperCase());
      const { items, revision, continue: more } = await store.list('/p/');
      expect(items.map((kv) => kv.key)).to.deep.equal(['/p/a', '/p/b', '/p/c/d']);
      expect(items.map((kv) => kv.value)).to.deep.equal(['/P/A', '/P/B', '/P/C/D']);
      expect(revision).to.equal(await store.currentRevision());
      expect(more).to.equal(undefined);
    });

    it('pages with limit and continue, every key exactly once', async () => {
      const keys = Array.from({ length: 23 }, (_, i) => `/pg/k${String(i).padStart(2, '0')}`);
      for (const key of keys) await store.create(key, 'v');
      const seen: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const page = await store.list('/pg/', { limit: 5, continue: token });
        expect(page.items.length).to.equal(token === undefined || page.continue ? 5 : 3);
        seen.push(...page.items.map((kv) => kv.key));
        token = page.continue;
        pages++;
      } while (token);
      expect(seen).to.deep.equal(keys);
      expect(pages).to.equal(5);
    });

    it("reads every page at the first page's revision while writers run", async () => {
      const state = new Map<string, string>();
      for (let i = 0; i < 120; i++) {
        const key = `/snap/k${String(i).padStart(3, '0')}`;
        await store.create(key, 'v0');
        state.set(key, 'v0');
      }
      const log: { revision: number; key: string; value: string | null }[] = [];
      let stop = false;
      const writer = (async () => {
        for (let n = 1; !stop; n++) {
          const key = `/snap/k${String((n * 37) % 150).padStart(3, '0')}`;
          const current = await store.get(key);
          if (!current) log.push({ revision: await store.create(key, `c${n}`), key, value: `c${n}` });
          else if (n % 4 === 0) log.push({ revision: (await store.delete(key)).revision, key, value: null });
          else log.push({ revision: await store.update(key, `u${n}`), key, value: `u${n}` });
        }
      })();
      await sleep(20);
      const first = await store.list('/snap/', { limit: 9 });
      const collected = [...first.items];
      let token = first.continue;
      while (token) {
        await sleep(2);
        const page = await store.list('/snap/', { limit: 9, continue: token });
        expect(page.revision).to.equal(first.revision);
        collected.push(...page.items);
        token = page.continue;
      }
      stop = true;
      await writer;
      expect(log.filter((w) => w.revision > first.revision).length, 'writes during paging').to.be.greaterThan(0);
      for (const write of log) {
        if (write.revision > first.revision) continue;
        if (write.value === null) state.delete(write.key);
        else state.set(write.key, write.value);
      }
      expect(collected.map((kv) => [kv.key, kv.value])).to.deep.equal(
        [...state.entries()].sort(([a], [b]) => (a < b ? -1 : 1)),
      );
    });

    it("returns a list larger than 4 MiB (gRPC's default message limit) in one page", async () => {
      const value = 'v'.repeat(512 * 1024);
      for (let i = 0; i < 10; i++) await store.create(`/big/k${i}`, value);
      const { items } = await store.list('/big/');
      expect(items).to.have.length(10);
      expect(items.every((kv) => kv.value === value)).to.equal(true);
    });

    it('reads at an explicit older revision', async () => {
      const r1 = await store.create('/old/a', 'one');
      await store.update('/old/a', 'two');
      await store.create('/old/b', 'three');
      const { items, revision } = await store.list('/old/', { revision: r1 });
      expect(revision).to.equal(r1);
      expect(items.map((kv) => [kv.key, kv.value])).to.deep.equal([['/old/a', 'one']]);
      const current = await store.currentRevision();
      await expectStoreError(store.list('/old/', { revision: current + 1000 }), 'TooLargeRevision');
    });
  });

  describe('watch', () => {
    it('replays history after revision N, then goes live, in order with no gaps or duplicates', async () => {
      const revisions: number[] = [];
      revisions.push(await store.create('/w/a', '1'));
      revisions.push(await store.create('/w/b', '2'));
      revisions.push(await store.update('/w/a', '3'));
      await store.create('/elsewhere/z', 'not watched');
      revisions.push((await store.delete('/w/b')).revision);
      const watch = await store.watch('/w/', revisions[0]);
      const history = await take(watch, 3);
      const live = [await store.create('/w/c', '4'), await store.update('/w/c', '5')];
      const rest = await take(watch, 2);
      const events = [...history, ...rest];
      expect(events.map((e) => e.revision)).to.deep.equal([...revisions.slice(1), ...live]);
      expect(events.map((e) => [e.type, e.key, e.value, e.prevValue])).to.deep.equal([
        ['create', '/w/b', '2', undefined],
        ['update', '/w/a', '3', '1'],
        ['delete', '/w/b', '2', '2'],
        ['create', '/w/c', '4', undefined],
        ['update', '/w/c', '5', '4'],
      ]);
      await expectQuiet(watch, 150);
      watch.close();
    });

    it('without a revision, starts from now', async () => {
      await store.create('/now/a', 'old');
      const watch = await store.watch('/now/');
      const revision = await store.create('/now/b', 'new');
      const [event] = await take(watch, 1);
      expect(event).to.include({ type: 'create', key: '/now/b', revision, value: 'new' });
      watch.close();
    });

    it('ends the iteration when closed', async () => {
      const watch = await store.watch('/close/');
      setTimeout(() => watch.close(), 20);
      const seen: WatchEvent[] = [];
      for await (const event of watch) seen.push(event);
      expect(seen).to.deep.equal([]);
    });

    it('replays history longer than its bound whole, then closes the watch of a consumer that falls the bound behind on new events', async () => {
      const small = await fixture().open({ maxPendingWatchEvents: 20 });
      try {
        const base = await small.currentRevision();
        for (let i = 0; i < 50; i++) await small.create(`/bound/k${i}`, 'v1');
        const watch = await small.watch('/bound/', base);
        // The whole replay is queued before the consumer takes any of it, and new events after it.
        await sleep(300);
        for (let i = 50; i < 60; i++) await small.create(`/bound/k${i}`, 'v1');
        const history = await take(watch, 60);
        expect(history.map((e) => e.key)).to.deep.equal(Array.from({ length: 60 }, (_, i) => `/bound/k${i}`));
        const last = history[59].revision;
        for (let i = 0; i < 30; i++) await small.update(`/bound/k${i}`, 'v2');
        await sleep(300);
        const after: WatchEvent[] = [];
        const ended = await Promise.race([
          (async () => {
            for await (const event of watch) after.push(event);
            return true;
          })(),
          sleep(5000).then(() => false),
        ]);
        expect(ended, 'the consumer fell behind: its watch ended').to.equal(true);
        expect(after).to.deep.equal([]);
        // Watching again from the last revision it took, it misses nothing.
        const again = await small.watch('/bound/', last);
        const rest = await take(again, 30);
        expect(rest.map((e) => [e.type, e.key, e.value])).to.deep.equal(
          Array.from({ length: 30 }, (_, i) => ['update', `/bound/k${i}`, 'v2']),
        );
        again.close();
      } finally {
        await small.close();
      }
    });

    it('delivers every event to 100 concurrent watchers, in order', async () => {
      const base = await store.currentRevision();
      const watches = await Promise.all(Array.from({ length: 100 }, () => store.watch('/many/', base)));
      const written = await Promise.all(Array.from({ length: 60 }, (_, i) => store.create(`/many/k${i}`, `v${i}`)));
      const expected = [...written].sort((a, b) => a - b);
      const received = await Promise.all(watches.map((watch) => take(watch, 60)));
      for (const events of received) expect(events.map((e) => e.revision)).to.deep.equal(expected);
      for (const watch of watches) watch.close();
    });
  });

  describe('compaction', () => {
    it('makes reads and watches from before the compacted revision Expired', async () => {
      const r1 = await store.create('/cp/a', '1');
      await store.create('/cp/b', '3');
      const r2 = await store.update('/cp/a', '2');
      const page = await store.list('/cp/', { limit: 1 });
      expect(page.continue).to.be.a('string');
      const r4 = await store.update('/cp/a', '4');
      await store.compact(r4);
      await expectStoreError(store.watch('/cp/', r1), 'Expired');
      await expectStoreError(store.list('/cp/', { revision: r2 }), 'Expired');
      await expectStoreError(store.list('/cp/', { continue: page.continue! }), 'Expired');
      const watch = await store.watch('/cp/', r4);
      const r5 = await store.update('/cp/a', '5');
      const [event] = await take(watch, 1);
      expect(event).to.include({ revision: r5, value: '5', prevValue: '4' });
      watch.close();
      expect((await store.get('/cp/a'))!.value).to.equal('5');
    });
  });

  describe('leases', () => {
    it('deletes the keys of a revoked lease and tells its holder', async () => {
      const lease = await store.grantLease(5);
      await store.create('/l/a', 'held', { lease });
      await store.update('/l/a', 'still held');
      await store.create('/l/b', 'free');
      await lease.revoke();
      expect(lease.signal.aborted).to.equal(true);
      expect(await store.get('/l/a')).to.equal(null);
      expect((await store.get('/l/b'))!.value).to.equal('free');
      await expectStoreError(store.create('/l/c', 'x', { lease }), 'NotFound');
    });

    it('expires a lease that is no longer renewed', async () => {
      const lease = await store.grantLease(1);
      await store.create('/l/e', 'held', { lease });
      const watch = await store.watch('/l/e');
      lease.release();
      const [event] = await take(watch, 1, 5000);
      expect(event).to.include({ type: 'delete', key: '/l/e' });
      watch.close();
    });
  });

  describe('leader election', () => {
    it('has one leader; the next takes over after the leader stops renewing', async () => {
      const first = await store.elect('ctl', 1, { identity: 'first' });
      let secondElected = false;
      const second = store.elect('ctl', 1, { identity: 'second' }).then((l) => {
        secondElected = true;
        return l;
      });
      await sleep(1500);
      expect(secondElected, 'second elected while the first still leads').to.equal(false);
      const released = Date.now();
      first.release();
      const leader = await second;
      expect(leader.identity).to.equal('second');
      expect(Date.now() - released).to.be.lessThan(4000);
      await waitUntil("the released leadership's signal aborted", () => first.signal.aborted, {
        timeout: 5000,
        interval: 10,
      });
      await leader.resign();
      expect(leader.signal.aborted).to.equal(true);
    });

    it('hands over at once when the leader resigns, in campaign order', async () => {
      const first = await store.elect('order', 30, { identity: 'a' });
      const order: string[] = [];
      const rest: Promise<Leadership>[] = [];
      for (const identity of ['b', 'c', 'd']) {
        const pending = store.elect('order', 30, { identity });
        pending.then(
          (l) => order.push(l.identity),
          () => order.push(`${identity} failed`),
        );
        rest.push(pending);
        await sleep(100);
      }
      await first.resign();
      for (const pending of rest) await (await pending).resign();
      expect(order).to.deep.equal(['b', 'c', 'd']);
    });

    it('stops campaigning when asked', async () => {
      const leader = await store.elect('stop', 30, { identity: 'leader' });
      const controller = new AbortController();
      const campaign = store.elect('stop', 30, { identity: 'quitter', signal: controller.signal });
      await sleep(50);
      controller.abort(new Error('not interested'));
      await campaign.then(
        () => expect.fail('campaign should have been stopped'),
        (err: Error) => expect(err.message).to.equal('not interested'),
      );
      await leader.resign();
      const next = await store.elect('stop', 30, { identity: 'next' });
      expect(next.identity).to.equal('next');
      await next.resign();
    });

    if (options.multiProcess) {
      it("hands over when the leader's process is killed", async () => {
        const ttl = 2;
        const leaderProcess = await fixture().spawnCandidate!(store, 'killed', ttl);
        await leaderProcess.elected;
        const follower = await fixture().spawnCandidate!(store, 'killed', ttl);
        await sleep(300);
        const killedAt = Date.now();
        await leaderProcess.kill();
        await follower.elected;
        expect(Date.now() - killedAt).to.be.lessThan(ttl * 1000 + 2000);
        await follower.kill();
      });
    }
  });
}
