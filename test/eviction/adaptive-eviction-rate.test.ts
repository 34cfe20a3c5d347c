import { expect } from 'chai';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { adaptiveEvictionRate } from '../../eviction/adaptive-eviction-rate.js';
import type { ClusterTaint } from '../../clusters/tolerations.js';
import type { UpstreamCluster } from '../../clusters/upstream-clusters.js';

const client = new RestClient(new URL('https://127.0.0.1:1'), { ca: '', cert: '', key: '' });
const cluster = (name: string, ready: 'True' | 'False' | 'Unknown', taints: ClusterTaint[] = []): UpstreamCluster => ({
  name,
  labels: {},
  client,
  cluster: {
    metadata: { name },
    spec: { syncMode: 'Push', taints },
    status: { conditions: [{ type: 'Ready', status: ready, reason: '', message: '' }] },
  },
});
const SETTINGS = { rate: 0.5, secondaryRate: 0.05, unhealthyThreshold: 0.55 };
const rateOf = (clusters: UpstreamCluster[]) => adaptiveEvictionRate(clusters, SETTINGS);

describe('eviction: the adaptive rate, as kube slows node evictions in a disrupted zone', () => {
  after(() => client.close());

  it('keeps the set rate while at most the threshold share of clusters is unhealthy', () => {
    expect(rateOf([cluster('a', 'True'), cluster('b', 'True')])).to.equal(0.5);
    expect(rateOf([cluster('a', 'False'), cluster('b', 'True')]), '1 of 2 is 0.5').to.equal(0.5);
    expect(rateOf([cluster('a', 'False'), cluster('b', 'True'), cluster('c', 'True')])).to.equal(0.5);
  });

  it('slows to the secondary rate once more than the threshold share is unhealthy (Unknown counts)', () => {
    expect(rateOf([cluster('a', 'False'), cluster('b', 'Unknown'), cluster('c', 'True')]), '2 of 3').to.equal(0.05);
    const many = Array.from({ length: 20 }, (_, i) => cluster(`m${i}`, i < 12 ? 'False' : 'True'));
    expect(rateOf(many), '12 of 20 is 0.6').to.equal(0.05);
    expect(rateOf(many.slice(1)), '11 of 19 is 0.579').to.equal(0.05);
    expect(rateOf(many.slice(2)), '10 of 18 is 0.556').to.equal(0.05);
    expect(rateOf(many.slice(3)), '9 of 17 is 0.529').to.equal(0.5);
  });

  it('stops when no healthy cluster is left to take a tenant', () => {
    expect(rateOf([cluster('a', 'False'), cluster('b', 'Unknown')])).to.equal(0);
    expect(rateOf([])).to.equal(0);
    const full = cluster('b', 'True', [{ key: 'full', effect: 'NoSchedule' }]);
    const draining = cluster('c', 'True', [{ key: 'drain', effect: 'NoExecute' }]);
    expect(rateOf([cluster('a', 'False'), full, draining]), 'every healthy cluster closed').to.equal(0);
    const steered = cluster('d', 'True', [{ key: 'spot', effect: 'PreferNoSchedule' }]);
    expect(rateOf([cluster('a', 'False'), full, steered]), 'PreferNoSchedule leaves room').to.equal(0.5);
  });
});
