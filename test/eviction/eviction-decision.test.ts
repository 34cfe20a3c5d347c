/**
 * The taint manager's decision for one tenant on one cluster, against Karmada's tables in
 * pkg/controllers/cluster/taint_manager_test.go: TestNoExecuteTaintManager_needEvictionWithCurrentTime,
 * Test_enqueueBinding, TestNoExecuteTaintManager_syncBindingEviction (and its ClusterResourceBinding
 * twin) and Test_syncCluster_enqueuesBindingsCorrectly, the cases about taints and tolerations
 * (not the ones about reading annotations, a missing cluster or the feature switch), then our own.
 */
import { expect } from 'chai';
import { evictionDecision, type EvictionDecision } from '../../eviction/eviction-decision.js';
import type { ClusterTaint, ClusterToleration } from '../../clusters/tolerations.js';

/** Karmada's fixed "now" in these tables. */
const now = new Date('2025-09-23T12:00:00Z');
const secondsFromNow = (seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();
const noExecute = (key: string, addedSecondsFromNow?: number): ClusterTaint => ({
  key,
  effect: 'NoExecute',
  ...(addedSecondsFromNow === undefined ? {} : { timeAdded: secondsFromNow(addedSecondsFromNow) }),
});
const exists = (key: string, tolerationSeconds?: number): ClusterToleration => ({
  key,
  operator: 'Exists',
  effect: 'NoExecute',
  ...(tolerationSeconds === undefined ? {} : { tolerationSeconds }),
});
const NOW: EvictionDecision = { action: 'now' };
const NEVER: EvictionDecision = { action: 'never' };
const after = (ms: number): EvictionDecision => ({ action: 'after', ms });

describe('eviction: when a tenant must leave a tainted cluster (Karmada taint manager)', () => {
  const cases: [string, ClusterTaint[], ClusterToleration[], EvictionDecision][] = [
    // needEvictionWithCurrentTime
    ['cluster has no NoExecute taints: never', [{ key: 'test-key', effect: 'NoSchedule' }], [], NEVER],
    ['taint not tolerated: now', [noExecute('test-key', -1)], [], NOW],
    ['taint tolerated with zero toleration seconds: now', [noExecute('test-key', -1)], [exists('test-key', 0)], NOW],
    [
      'taint tolerated with positive toleration seconds: after the 59 s left of 60',
      [noExecute('test-key', -1)],
      [exists('test-key', 60)],
      after(59_000),
    ],
    ['taint tolerated forever: never', [noExecute('test-key', -1)], [exists('test-key')], NEVER],
    [
      'multiple taints with mixed tolerations: the untolerated one evicts now',
      [noExecute('tolerated-key', 1), noExecute('not-tolerated-key', -1)],
      [exists('tolerated-key', 30)],
      NOW,
    ],
    [
      'toleration time expired (added 2 s ago, tolerated 1 s): now',
      [noExecute('test-key', -2)],
      [exists('test-key', 1)],
      NOW,
    ],
    // enqueueBinding
    ['no taints: never (not enqueued)', [], [], NEVER],
    ['no tolerations: now', [noExecute('test-key', -1)], [], NOW],
    [
      'finite tolerationSeconds unexpired: delayed',
      [noExecute('test-key', -1)],
      [exists('test-key', 60)],
      after(59_000),
    ],
    ['infinite toleration (no tolerationSeconds): never', [noExecute('test-key', -1)], [exists('test-key')], NEVER],
    [
      'multiple taints, one not tolerated: now',
      [noExecute('tolerated-key', -1), noExecute('not-tolerated-key', -1)],
      [exists('tolerated-key')],
      NOW,
    ],
    [
      'multiple taints, all tolerated indefinitely: never',
      [noExecute('key1', -1), noExecute('key2', -1)],
      [exists('key1'), exists('key2')],
      NEVER,
    ],
    [
      'multiple taints, one tolerated with finite seconds: delayed by what is left of it',
      [noExecute('key1', -1), noExecute('key2', -1)],
      [exists('key1'), exists('key2', 120)],
      after(119_000),
    ],
    // syncBindingEviction: Karmada's not-ready taint, here without timeAdded.
    [
      'binding without a toleration of not-ready: evicted now',
      [noExecute('cluster.karmada.io/not-ready')],
      [exists('cluster.karmada.io/unreachable', 30)],
      NOW,
    ],
    [
      'binding tolerating not-ready for 30 s, taint without timeAdded: never, as nothing starts the clock',
      [noExecute('cluster.karmada.io/not-ready')],
      [exists('cluster.karmada.io/not-ready', 30), exists('cluster.karmada.io/unreachable', 30)],
      NEVER,
    ],
    // syncCluster: one maintenance taint added 1 s ago, three bindings.
    [
      'maintenance tolerated indefinitely: never',
      [noExecute('cluster.karmada.io/maintenance', -1)],
      [exists('cluster.karmada.io/maintenance')],
      NEVER,
    ],
    [
      'maintenance tolerated 142 s: delayed by 141 s',
      [noExecute('cluster.karmada.io/maintenance', -1)],
      [exists('cluster.karmada.io/maintenance', 142)],
      after(141_000),
    ],
    ['maintenance not tolerated: now', [noExecute('cluster.karmada.io/maintenance', -1)], [], NOW],
    // Our own.
    [
      'untolerated NoSchedule and PreferNoSchedule taints do not evict: never',
      [{ key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'PreferNoSchedule' }, noExecute('c', -1)],
      [exists('c')],
      NEVER,
    ],
    [
      'a toleration for another effect does not hold a NoExecute taint: now',
      [noExecute('key', -1)],
      [{ key: 'key', operator: 'Exists', effect: 'NoSchedule' }],
      NOW,
    ],
    ['a negative tolerationSeconds: now', [noExecute('key', 0)], [exists('key', -5)], NOW],
    ['a toleration that ends exactly now: now', [noExecute('key', -30)], [exists('key', 30)], NOW],
    [
      'a future end gives the exact remaining ms',
      [{ key: 'key', effect: 'NoExecute', timeAdded: '2025-09-23T11:59:59.750Z' }],
      [exists('key', 2)],
      after(1_750),
    ],
    [
      'the earliest end across taints decides',
      [noExecute('a', -100), noExecute('b', -10)],
      [exists('a', 300), exists('b', 30)],
      after(20_000),
    ],
  ];
  for (const [name, taints, tolerations, expected] of cases) {
    it(name, () => {
      expect(evictionDecision(taints, tolerations, now)).to.deep.equal(expected);
    });
  }
});
