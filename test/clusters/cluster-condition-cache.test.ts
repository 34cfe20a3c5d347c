import { expect } from 'chai';
import { ClusterConditionCache } from '../../clusters/cluster-condition-cache.js';
import type { ClusterCondition } from '../../clusters/cluster-conditions.js';

const THRESHOLD = 30_000;
const NOW = Date.parse('2026-12-02T10:00:00Z');
const ready = (status: ClusterCondition['status']): ClusterCondition => ({
  type: 'Ready',
  status,
  reason: '',
  message: '',
});

// Karmada's TestThresholdAdjustedReadyCondition (pkg/controllers/status/cluster_condition_cache_test.go),
// with 30 s thresholds both ways and its "now" made explicit.
const CASES: {
  name: string;
  seen?: { status: ClusterCondition['status']; since: number };
  current?: ClusterCondition['status'];
  observed: ClusterCondition['status'];
  expected: ClusterCondition['status'];
}[] = [
  { name: 'cluster just joined in ready state', observed: 'True', expected: 'True' },
  { name: 'cluster just joined in not-ready state', observed: 'False', expected: 'False' },
  {
    name: 'cluster stays ready',
    seen: { status: 'True', since: 0 },
    current: 'True',
    observed: 'True',
    expected: 'True',
  },
  {
    name: 'cluster becomes not ready but still not reach failure threshold',
    seen: { status: 'False', since: NOW - THRESHOLD / 2 },
    current: 'True',
    observed: 'False',
    expected: 'True',
  },
  {
    name: 'cluster becomes not ready and reaches failure threshold',
    seen: { status: 'False', since: NOW - THRESHOLD },
    current: 'True',
    observed: 'False',
    expected: 'False',
  },
  {
    name: 'cluster stays not ready',
    seen: { status: 'False', since: NOW - 2 * THRESHOLD },
    current: 'False',
    observed: 'False',
    expected: 'False',
  },
  {
    name: 'cluster recovers but still not reach success threshold',
    seen: { status: 'True', since: NOW - THRESHOLD / 2 },
    current: 'False',
    observed: 'True',
    expected: 'False',
  },
  {
    name: 'cluster recovers and reaches success threshold',
    seen: { status: 'True', since: NOW - THRESHOLD },
    current: 'False',
    observed: 'True',
    expected: 'True',
  },
  {
    name: 'ready condition changes from true to false (the threshold starts now)',
    seen: { status: 'True', since: NOW - 600_000 },
    current: 'True',
    observed: 'False',
    expected: 'True',
  },
  {
    name: 'ready condition changes from false to true (the threshold starts now)',
    seen: { status: 'False', since: NOW - 600_000 },
    current: 'False',
    observed: 'True',
    expected: 'False',
  },
  {
    name: 'current condition is nil, should return observed condition',
    seen: { status: 'False', since: NOW - THRESHOLD },
    observed: 'True',
    expected: 'True',
  },
  {
    name: 'unknown to false is not a flip between true and not true: applied at once',
    seen: { status: 'False', since: NOW },
    current: 'Unknown',
    observed: 'False',
    expected: 'False',
  },
];

describe('clusters: the Ready condition waits for its success and failure thresholds', () => {
  for (const c of CASES)
    it(c.name, () => {
      const cache = new ClusterConditionCache({ successMs: THRESHOLD, failureMs: THRESHOLD });
      if (c.seen) cache.remember('member', c.seen.status, c.seen.since);
      const adjusted = cache.adjust('member', c.current ? ready(c.current) : undefined, ready(c.observed), NOW);
      expect(adjusted.status).to.equal(c.expected);
    });

  it('applies a failure once it has lasted the threshold, probe after probe', () => {
    const cache = new ClusterConditionCache({ successMs: 10_000, failureMs: 30_000 });
    let current = cache.adjust('member', undefined, ready('True'), NOW);
    const at = (s: number, observed: ClusterCondition['status']) =>
      (current = cache.adjust('member', current, ready(observed), NOW + s * 1000)).status;
    expect([at(10, 'True'), at(20, 'False'), at(40, 'False'), at(50, 'False')]).to.deep.equal([
      'True',
      'True',
      'True',
      'False',
    ]);
    // A success in between starts the failure's wait again.
    expect([at(55, 'True'), at(60, 'False'), at(64, 'True'), at(70, 'True'), at(74, 'True')]).to.deep.equal([
      'False',
      'False',
      'False',
      'False',
      'True',
    ]);
  });

  it('forgets a cluster no longer registered: its next observation is applied at once', () => {
    const cache = new ClusterConditionCache({ successMs: THRESHOLD, failureMs: THRESHOLD });
    cache.adjust('member', undefined, ready('True'), NOW);
    expect(cache.adjust('member', ready('True'), ready('False'), NOW + 1).status).to.equal('True');
    cache.retainOnly(new Set(['other']));
    expect(cache.adjust('member', ready('True'), ready('False'), NOW + 2).status).to.equal('False');
  });
});
