import { expect } from 'chai';
import type { ClusterCondition } from '../../clusters/cluster-conditions.js';
import {
  NOT_READY_TAINT_KEY,
  taintsForReadiness,
  UNREACHABLE_TAINT_KEY,
  updateControllerTaints,
} from '../../clusters/cluster-taints.js';
import type { ClusterTaint } from '../../clusters/tolerations.js';

const NOW = new Date('2026-12-02T10:00:00Z');
const STAMP = '2026-12-02T10:00:00Z';
const notReady = (effect: string, timeAdded?: string): ClusterTaint => ({
  key: NOT_READY_TAINT_KEY,
  effect,
  ...(timeAdded ? { timeAdded } : {}),
});
const unreachable = (effect: string, timeAdded?: string): ClusterTaint => ({
  key: UNREACHABLE_TAINT_KEY,
  effect,
  ...(timeAdded ? { timeAdded } : {}),
});
const ready = (status: ClusterCondition['status'], since = STAMP): ClusterCondition => ({
  type: 'Ready',
  status,
  reason: '',
  message: '',
  lastTransitionTime: since,
});
const keys = (taints: readonly ClusterTaint[]) => taints.map((t) => `${t.key}:${t.effect}`);

describe("clusters: the cluster controller's taints", () => {
  // Karmada's TestUpdateClusterControllerTaint (pkg/util/helper/taint_test.go).
  const CASES: { name: string; taints: ClusterTaint[]; add: ClusterTaint[]; remove: ClusterTaint[]; want: string[] }[] =
    [
      {
        name: 'ready condition from true to false',
        taints: [],
        add: [notReady('NoExecute')],
        remove: [unreachable('NoExecute')],
        want: [`${NOT_READY_TAINT_KEY}:NoExecute`],
      },
      {
        name: 'ready condition from true to unknown',
        taints: [],
        add: [unreachable('NoExecute')],
        remove: [notReady('NoExecute')],
        want: [`${UNREACHABLE_TAINT_KEY}:NoExecute`],
      },
      {
        name: 'ready condition from false to unknown',
        taints: [notReady('NoExecute')],
        add: [unreachable('NoExecute')],
        remove: [notReady('NoExecute')],
        want: [`${UNREACHABLE_TAINT_KEY}:NoExecute`],
      },
      {
        name: 'ready condition from false to true',
        taints: [notReady('NoExecute')],
        add: [],
        remove: [notReady('NoExecute'), unreachable('NoExecute')],
        want: [],
      },
      {
        name: 'ready condition from unknown to true',
        taints: [unreachable('NoExecute')],
        add: [],
        remove: [notReady('NoExecute'), unreachable('NoExecute')],
        want: [],
      },
      {
        name: 'ready condition from unknown to false',
        taints: [unreachable('NoExecute')],
        add: [notReady('NoExecute')],
        remove: [unreachable('NoExecute')],
        want: [`${NOT_READY_TAINT_KEY}:NoExecute`],
      },
    ];
  for (const c of CASES)
    it(c.name, () => expect(keys(updateControllerTaints(c.taints, c.add, c.remove, NOW))).to.deep.equal(c.want));

  it('stamps what it adds with timeAdded, keeps a taint already there as it was, and returns the same list when nothing changes', () => {
    const admin: ClusterTaint = { key: 'maintenance', value: 'true', effect: 'NoSchedule' };
    const before = [admin, notReady('NoSchedule', '2026-01-01T00:00:00Z')];
    const after = updateControllerTaints(before, [notReady('NoSchedule'), unreachable('NoExecute')], [], NOW);
    expect(after).to.deep.equal([...before, unreachable('NoExecute', STAMP)]);
    expect(updateControllerTaints(before, [notReady('NoSchedule')], [unreachable('NoSchedule')], NOW)).to.equal(before);
  });

  // Karmada's taintClusterByCondition: only NoSchedule taints, by the Ready condition.
  it('Ready False: not-ready NoSchedule, unreachable taken away; an admin taint stays', () => {
    const admin: ClusterTaint = { key: 'maintenance', effect: 'NoExecute' };
    expect(taintsForReadiness([admin, unreachable('NoSchedule')], ready('False'), NOW)).to.deep.equal([
      admin,
      notReady('NoSchedule', STAMP),
    ]);
  });

  it('Ready Unknown: unreachable NoSchedule, not-ready taken away', () => {
    expect(taintsForReadiness([notReady('NoSchedule')], ready('Unknown'), NOW)).to.deep.equal([
      unreachable('NoSchedule', STAMP),
    ]);
  });

  it('Ready True: both keys taken away, with either effect', () => {
    const taints = [
      notReady('NoSchedule'),
      unreachable('NoSchedule'),
      notReady('NoExecute'),
      { key: 'x', effect: 'NoSchedule' },
    ];
    expect(keys(taintsForReadiness(taints, ready('True'), NOW))).to.deep.equal(['x:NoSchedule']);
  });

  it('no Ready condition yet: not-ready NoSchedule, nothing taken away', () => {
    expect(taintsForReadiness([unreachable('NoSchedule')], undefined, NOW)).to.deep.equal([
      unreachable('NoSchedule'),
      notReady('NoSchedule', STAMP),
    ]);
  });

  it('--no-execute-taint-after: the NoExecute taint of the same key once not Ready that long, never without it', () => {
    const since = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
    expect(keys(taintsForReadiness([], ready('False', since(59_000)), NOW, 60_000))).to.deep.equal([
      `${NOT_READY_TAINT_KEY}:NoSchedule`,
    ]);
    expect(keys(taintsForReadiness([], ready('False', since(60_000)), NOW, 60_000))).to.deep.equal([
      `${NOT_READY_TAINT_KEY}:NoSchedule`,
      `${NOT_READY_TAINT_KEY}:NoExecute`,
    ]);
    expect(keys(taintsForReadiness([], ready('Unknown', since(3_600_000)), NOW, 0))).to.deep.equal([
      `${UNREACHABLE_TAINT_KEY}:NoSchedule`,
      `${UNREACHABLE_TAINT_KEY}:NoExecute`,
    ]);
    expect(keys(taintsForReadiness([], ready('False', since(3_600_000)), NOW))).to.deep.equal([
      `${NOT_READY_TAINT_KEY}:NoSchedule`,
    ]);
  });
});
