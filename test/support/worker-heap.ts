/**
 * A worker's heap snapshot, counted: a worker's heap is small enough to read whole, and its
 * snapshot names every string (and every cons string) in it, where a heap's growth moves with
 * the collector's timing. The worker must still be running (listening on its port keeps it up:
 * a snapshot of a worker that is ending crashes node).
 */
import type { Worker } from 'node:worker_threads';

export interface HeapCounts {
  /** How many nodes of a snapshot node type (`string`, `concatenated string`, …) there are, of a name `name` matches. */
  count(type: string, name?: RegExp): number;
}

export async function workerHeap(worker: Worker): Promise<HeapCounts> {
  let text = '';
  for await (const chunk of await worker.getHeapSnapshot()) text += String(chunk);
  const { snapshot, nodes, strings } = JSON.parse(text) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.meta.node_fields.length;
  return {
    count(type, name) {
      const wanted = snapshot.meta.node_types[0].indexOf(type);
      let found = 0;
      for (let i = 0; i < nodes.length; i += fields)
        if (nodes[i] === wanted && (name === undefined || name.test(strings[nodes[i + 1]]))) found++;
      return found;
    },
  };
}
