/**
 * The writer for the crash test: opens an embedded store and runs several workers, each applying
 * its own fixed sequence of writes (see crash-plan.ts) one after another, and prints one line per
 * acknowledged write. The test SIGKILLs it at a random moment, then starts the next round.
 */
import { EmbeddedStore } from '../../store/index.js';
import { plan } from './crash-plan.js';

const [dataDir, round, workers, snapshotEveryBytes] = process.argv.slice(2);
const store = await EmbeddedStore.open({ dataDir: dataDir, snapshotEveryBytes: Number(snapshotEveryBytes) });
process.stdout.write('ready\n');

await Promise.all(
  Array.from({ length: Number(workers) }, async (_, worker) => {
    let n = 0;
    for (const op of plan(Number(round), worker)) {
      let revision: number;
      if (op.op === 'create') revision = await store.create(op.key, op.value!);
      else if (op.op === 'update') revision = await store.update(op.key, op.value!);
      else revision = (await store.delete(op.key)).revision;
      process.stdout.write(`ack ${worker} ${n++} ${revision}\n`);
    }
  }),
);
