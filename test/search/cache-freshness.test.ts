/**
 * How a consistent read's store is made fresh (search/cache-freshness.ts): waited for by its watch,
 * relisted when small enough, else left to the caller; a store whose last wait ran out and that
 * has heard nothing since is not waited for again.
 */
import { expect } from 'chai';
import { FreshnessGate, type StoreRefresh } from '../../search/cache-freshness.js';
import { ClusterResourceStore } from '../../search/cluster-resource-store.js';
import { PODS, pod } from '../support/cached-objects.js';

/** A store of `count` Pods listed at revision 5, while the cluster is at 10. */
function behindStore(count: number): ClusterResourceStore {
  const store = new ClusterResourceStore('c1', PODS);
  store.replace(
    Array.from({ length: count }, (_, i) => pod(`p${i}`, { resourceVersion: '5' })),
    '5',
  );
  return store;
}

/** A gate whose cluster is at revision 10, counting its probes. */
function countingGate(consistentWaitMs: number, refresh: StoreRefresh): { gate: FreshnessGate; probes: () => number } {
  let probes = 0;
  const gate = new FreshnessGate(
    async () => {
      probes++;
      return '10';
    },
    1000,
    consistentWaitMs,
    refresh,
  );
  return { gate, probes: () => probes };
}

describe('cache: the freshness of a consistent read', () => {
  it('relists a store behind its cluster when it is within refreshUpTo, and leaves a larger one to the caller', async () => {
    const refreshed: ClusterResourceStore[] = [];
    const gate = new FreshnessGate(
      async () => '10',
      1000,
      10,
      async (store) => {
        refreshed.push(store);
        store.replace([], '10');
        return true;
      },
    );
    const small = behindStore(3);
    expect(await gate.ensure(small, { kind: 'consistent' }, { refreshUpTo: 3 })).to.equal(undefined);
    expect(refreshed).to.deep.equal([small]);
    const large = behindStore(4);
    const stale = await gate.ensure(large, { kind: 'consistent' }, { refreshUpTo: 3 });
    expect(stale).to.include({ fresh: false, cluster: 'c1' });
    expect(stale?.reason).to.contain('behind the cluster');
    expect(refreshed, 'the large store is not relisted').to.deep.equal([small]);
  });

  it('relists one store for such reads at most once per interval: a revision that never rests cannot keep it listing', async () => {
    let revision = '10';
    let relists = 0;
    const gate = new FreshnessGate(
      async () => revision,
      1000,
      10,
      async (store) => {
        relists++;
        store.replace([], revision);
        return true;
      },
    );
    const store = behindStore(3);
    expect(await gate.ensure(store, { kind: 'consistent' }, { refreshUpTo: 10 })).to.equal(undefined);
    revision = '20';
    expect(await gate.ensure(store, { kind: 'consistent' }, { refreshUpTo: 10 })).to.include({ fresh: false });
    expect(relists).to.equal(1);
    // Unbounded, as the admin's search proxy asks, every such read relists.
    expect(await gate.ensure(store, { kind: 'consistent' })).to.equal(undefined);
    expect(relists).to.equal(2);
  });

  it('waits for a store its watch brings to the revision in time', async () => {
    const gate = new FreshnessGate(async () => '10', 1000, 60_000);
    const store = behindStore(1);
    const read = gate.ensure(store, { kind: 'consistent' }, { refreshUpTo: 0 });
    store.add(pod('late', { resourceVersion: '10' }), '10');
    expect(await read).to.equal(undefined);
  });

  it('does not wait again for a store that has heard nothing since its last wait ran out, nor probe for one too large to relist', async () => {
    const waited: number[] = [];
    const store = behindStore(1);
    const waitUntilFresh = store.waitUntilFresh.bind(store);
    store.waitUntilFresh = (resourceVersion, timeoutMs) => {
      if (resourceVersion === '10') waited.push(timeoutMs);
      return waitUntilFresh(resourceVersion, timeoutMs);
    };
    const { gate, probes } = countingGate(20, async () => false);
    // May be relisted (1 object): probed each time, waited for only the first.
    const relistable = () => gate.ensure(store, { kind: 'consistent' }, { refreshUpTo: 1 });
    expect(await relistable()).to.include({ fresh: false });
    expect(await relistable()).to.include({ fresh: false });
    expect(waited, 'the second read does not wait').to.deep.equal([20, 0]);
    expect(probes()).to.equal(2);
    // Too large to relist: stale at once, without a probe.
    const tooLarge = await gate.ensure(store, { kind: 'consistent' }, { refreshUpTo: 0 });
    expect(tooLarge?.reason).to.contain('has heard nothing since it fell behind');
    expect(probes()).to.equal(2);
    // Once the store hears something, a read probes and waits for it again, and its watch can bring it there.
    store.bookmark('7');
    const read = gate.ensure(store, { kind: 'consistent' }, { refreshUpTo: 0 });
    store.bookmark('10');
    expect(await read).to.equal(undefined);
    expect(waited).to.deep.equal([20, 0, 20]);
    expect(probes()).to.equal(3);
  });

  it('a version the store does not reach: 504 unbounded, as kube; relisted when small, else stale, for tenants', async () => {
    let relists = 0;
    const gate = new FreshnessGate(
      async () => '30',
      50,
      10,
      async (store) => {
        relists++;
        store.replace([], '30');
        return true;
      },
    );
    await gate.ensure(behindStore(1), { kind: 'atLeast', resourceVersion: '20' }).then(
      () => expect.fail('a version not reached in time is 504'),
      (err: { status?: { code?: number } }) => expect(err.status?.code).to.equal(504),
    );
    expect(await gate.ensure(behindStore(1), { kind: 'atLeast', resourceVersion: '20' }, { refreshUpTo: 5 })).to.equal(
      undefined,
    );
    expect(relists).to.equal(1);
    const stale = await gate.ensure(behindStore(6), { kind: 'atLeast', resourceVersion: '20' }, { refreshUpTo: 5 });
    expect(stale).to.include({ fresh: false });
    expect(stale?.reason).to.contain('behind the requested 20');
  });

  it('a watch from N: at once when the store or the cluster has reached N (the watcher skips what is before), stale when N is ahead of the cluster', async () => {
    const { gate, probes } = countingGate(60_000, async () => {
      throw new Error('a watch never relists');
    });
    const store = behindStore(1000);
    expect(await gate.ensure(store, { kind: 'watchFrom', resourceVersion: '5' }, { refreshUpTo: 0 })).to.equal(
      undefined,
    );
    expect(probes(), 'the store is at 5: no probe').to.equal(0);
    expect(await gate.ensure(store, { kind: 'watchFrom', resourceVersion: '8' }, { refreshUpTo: 0 })).to.equal(
      undefined,
    );
    expect(probes()).to.equal(1);
    const ahead = await gate.ensure(store, { kind: 'watchFrom', resourceVersion: '12' }, { refreshUpTo: 0 });
    expect(ahead?.reason).to.contain('the requested 12 is ahead of the cluster');
  });
});
