/**
 * The gateway's histograms (gateway/observability/bucket-histogram.ts) observe without
 * prom-client's per-observation cost, and must read in /metrics exactly as prom-client's own
 * Histogram would: the same lines, buckets, sums and counts, for every series.
 */
import { expect } from 'chai';
import { Histogram, Registry } from 'prom-client';
import { BucketHistogram } from '../../gateway/observability/bucket-histogram.js';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.25, 1];
/** Values on bounds, between them, below the first and above the last. */
const OBSERVED: [Record<'cluster' | 'verb', string>, number][] = [
  [{ cluster: 'member1', verb: 'get' }, 0.0005],
  [{ cluster: 'member1', verb: 'get' }, 0.001],
  [{ cluster: 'member1', verb: 'get' }, 0.003],
  [{ cluster: 'member1', verb: 'list' }, 0.25],
  [{ cluster: 'member2', verb: 'get' }, 7],
  [{ cluster: 'member1', verb: 'get' }, 0.0025],
  [{ cluster: 'member1', verb: 'list' }, 0],
];

async function exposition(make: (registry: Registry) => { observe(labels: never, value: number): void }) {
  const registry = new Registry();
  const histogram = make(registry);
  for (const [labels, value] of OBSERVED) histogram.observe(labels as never, value);
  return registry.metrics();
}

describe('gateway: the bucket histogram under its metrics', () => {
  it("writes the same exposition as prom-client's Histogram for the same observations", async () => {
    const config = { name: 'x_seconds', help: 'x.', labelNames: ['cluster', 'verb'] as const, buckets: BUCKETS };
    const ours = await exposition((registry) => new BucketHistogram({ ...config, registers: [registry] }));
    const theirs = await exposition((registry) => new Histogram({ ...config, registers: [registry] }));
    expect(ours).to.equal(theirs);
    expect(ours).to.include('x_seconds_bucket{le="0.0025",cluster="member1",verb="get"} 3');
    expect(ours).to.include('x_seconds_count{cluster="member2",verb="get"} 1');
  });

  it('forgets its series when the registry is reset', async () => {
    const registry = new Registry();
    const histogram = new BucketHistogram({
      name: 'y',
      help: 'y.',
      labelNames: ['verb'],
      buckets: BUCKETS,
      registers: [registry],
    });
    histogram.observe({ verb: 'get' }, 1);
    registry.resetMetrics();
    expect(await registry.metrics()).not.to.include('y_count');
  });
});
