/**
 * Each crash-test worker's writes in a round, a pure function of (round, worker, n): key k is created, every third
 * key is then updated, every fifth is then deleted. The test replays the plan to know what the
 * store must hold after n acknowledged writes.
 */
export interface PlannedWrite {
  op: 'create' | 'update' | 'delete';
  key: string;
  value?: string;
}

/** The worker's writes in a round, in order, without end. */
export function* plan(round: number, worker: number): Generator<PlannedWrite> {
  for (let k = 0; ; k++) yield* stepsForKey(round, worker, k);
}

export function workerPrefix(round: number, worker: number): string {
  return `/crash/r${round}/w${worker}/`;
}

function stepsForKey(round: number, worker: number, k: number): PlannedWrite[] {
  const key = `${workerPrefix(round, worker)}k${String(k).padStart(6, '0')}`;
  const payload = `${'x'.repeat(k % 200)}`;
  const steps: PlannedWrite[] = [{ op: 'create', key, value: `created ${k} ${payload}` }];
  if (k % 3 === 0) steps.push({ op: 'update', key, value: `updated ${k}` });
  if (k % 5 === 0) steps.push({ op: 'delete', key });
  return steps;
}

/** The worker's keys and values after its first `count` writes. */
export function stateAfter(round: number, worker: number, count: number): Map<string, string> {
  const state = new Map<string, string>();
  const writes = plan(round, worker);
  for (let n = 0; n < count; n++) {
    const write = writes.next().value as PlannedWrite;
    if (write.op === 'delete') state.delete(write.key);
    else state.set(write.key, write.value!);
  }
  return state;
}
