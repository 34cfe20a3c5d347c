import { expect } from 'chai';
import { apiEnablementsCondition, readyCondition, setConditions } from '../../clusters/cluster-conditions.js';

describe("clusters: the conditions a probe leads to, with Karmada's reasons", () => {
  it('Ready from what the probe saw: healthy, answering but not ok, not answering', () => {
    expect(readyCondition({ online: true, healthy: true })).to.deep.equal({
      type: 'Ready',
      status: 'True',
      reason: 'ClusterReady',
      message: 'cluster is healthy and ready to accept workloads',
    });
    expect(readyCondition({ online: true, healthy: false })).to.deep.equal({
      type: 'Ready',
      status: 'False',
      reason: 'ClusterNotReady',
      message: 'cluster is reachable but health endpoint responded without ok',
    });
    expect(readyCondition({ online: false, healthy: false })).to.deep.equal({
      type: 'Ready',
      status: 'False',
      reason: 'ClusterNotReachable',
      message: 'cluster is not reachable',
    });
  });

  it('CompleteAPIEnablements: Empty, Partial with the count, Complete', () => {
    expect(apiEnablementsCondition(0, true)).to.include({ status: 'False', reason: 'Empty' });
    expect(apiEnablementsCondition(7, true)).to.deep.equal({
      type: 'CompleteAPIEnablements',
      status: 'False',
      reason: 'Partial',
      message: 'might collect partial APIEnablements(7) from the cluster',
    });
    expect(apiEnablementsCondition(7, false)).to.include({ status: 'True', reason: 'Complete' });
  });

  it('a condition keeps its lastTransitionTime until its status changes, as SetStatusCondition', () => {
    const first = setConditions(
      [],
      [readyCondition({ online: true, healthy: true })],
      new Date('2026-01-01T00:00:00Z'),
    );
    expect(first).to.have.length(1);
    expect(first[0].lastTransitionTime).to.equal('2026-01-01T00:00:00Z');
    const same = setConditions(
      first,
      [readyCondition({ online: true, healthy: true })],
      new Date('2026-01-01T00:01:00Z'),
    );
    expect(same).to.deep.equal(first);
    const down = setConditions(
      same,
      [readyCondition({ online: false, healthy: false })],
      new Date('2026-01-01T00:02:00Z'),
    );
    expect(down[0]).to.include({
      status: 'False',
      reason: 'ClusterNotReachable',
      lastTransitionTime: '2026-01-01T00:02:00Z',
    });
    // A reason change within the same status keeps the time.
    const notReady = setConditions(
      down,
      [readyCondition({ online: true, healthy: false })],
      new Date('2026-01-01T00:03:00Z'),
    );
    expect(notReady[0]).to.include({ reason: 'ClusterNotReady', lastTransitionTime: '2026-01-01T00:02:00Z' });
    const withApis = setConditions(notReady, [apiEnablementsCondition(3, false)], new Date('2026-01-01T00:04:00Z'));
    expect(withApis.map((c) => c.type)).to.deep.equal(['Ready', 'CompleteAPIEnablements']);
  });
});
