import { expect } from 'chai';
import { purgeDue, type EvictionTask } from '../../eviction/tenant-failover.js';

const CREATED = '2026-12-02T10:00:00Z';
const at = (seconds: number) => Date.parse(CREATED) + seconds * 1000;
const TIMEOUT_MS = 600_000;
const task = (fields: Partial<EvictionTask>): EvictionTask => ({
  fromCluster: 'member1',
  purgeMode: 'Gracefully',
  reason: 'TaintUntolerated',
  producer: 'TaintManager',
  creationTimestamp: CREATED,
  ...fields,
});

// Karmada's graceful eviction controller (assessEvictionTasks): a task is dropped, and its
// cluster's copy purged, after its grace period or once the workload is healthy elsewhere.
const CASES: { name: string; task: EvictionTask; now: number; due: boolean }[] = [
  { name: 'Directly: at once', task: task({ purgeMode: 'Directly' }), now: at(0), due: true },
  { name: 'Never: never, even long after', task: task({ purgeMode: 'Never' }), now: at(86_400), due: false },
  {
    name: 'Gracefully, the replay complete: at once (healthy on the new cluster)',
    task: task({ replayComplete: true }),
    now: at(1),
    due: true,
  },
  {
    name: 'Gracefully, the replay incomplete, within the timeout: kept',
    task: task({ replayComplete: false }),
    now: at(599),
    due: false,
  },
  { name: 'Gracefully, not yet moved, within the timeout: kept', task: task({}), now: at(600), due: false },
  { name: 'Gracefully, past the timeout: due', task: task({ replayComplete: false }), now: at(601), due: true },
  {
    name: "Gracefully, the task's own grace period wins over the timeout",
    task: task({ gracePeriodSeconds: 30 }),
    now: at(31),
    due: true,
  },
  {
    name: "Gracefully, within the task's own grace period: kept",
    task: task({ gracePeriodSeconds: 3600 }),
    now: at(1200),
    due: false,
  },
  {
    name: 'Gracefully, a grace period of 0: due at once',
    task: task({ gracePeriodSeconds: 0 }),
    now: at(1),
    due: true,
  },
];

describe("eviction: when a task's old cluster is purged, by purge mode", () => {
  for (const c of CASES) it(c.name, () => expect(purgeDue(c.task, c.now, TIMEOUT_MS)).to.equal(c.due));
});
