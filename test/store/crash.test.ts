import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { EmbeddedStore } from '../../store/index.js';
import { killAndWait } from '../support/etcd-server.js';
import { sleep } from '../support/eventually.js';
import { testSeed } from '../support/seed.js';
import { makeTempDir } from '../support/temp-dir.js';
import { stateAfter, workerPrefix } from './crash-plan.js';

const writerScript = fileURLToPath(new URL('./crash-writer.js', import.meta.url));
const WORKERS = 6;

interface Acks {
  counts: number[];
  maxRevision: number;
  outOfOrder: number;
}

/** Runs the writer until a random moment, SIGKILLs it, and returns what it acknowledged. */
async function runAndKill(dataDir: string, round: number, killAfterMs: number): Promise<Acks> {
  const child = spawn(process.execPath, [writerScript, dataDir, String(round), String(WORKERS), String(256 * 1024)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const acks: Acks = { counts: new Array(WORKERS).fill(0), maxRevision: 0, outOfOrder: 0 };
  const ready = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`writer exited with ${code} before it was ready`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'ready') return resolve();
      const [word, worker, n, revision] = line.split(' ');
      if (word !== 'ack') return;
      if (Number(n) !== acks.counts[Number(worker)]) acks.outOfOrder++;
      acks.counts[Number(worker)] = Number(n) + 1;
      acks.maxRevision = Math.max(acks.maxRevision, Number(revision));
    });
  });
  await ready;
  await sleep(killAfterMs);
  const stdoutClosed = new Promise((resolve) => child.stdout.once('close', resolve));
  await killAndWait(child, 'SIGKILL');
  await stdoutClosed;
  return acks;
}

describe('embedded store: crash', () => {
  it('keeps every acknowledged write when the writer is SIGKILLed at random moments', async () => {
    const seed = testSeed(import.meta.url);
    const random = seed.random();
    const { dir, remove } = await makeTempDir('crash');
    try {
      let lastRevision = 0;
      const survivors = new Map<string, Map<string, string>>();
      for (let round = 0; round < 3; round++) {
        const killAfterMs = 150 + Math.floor(random() * 1200);
        const acks = await runAndKill(dir, round, killAfterMs);
        const context = `${seed.note}: round ${round}, killed after ${killAfterMs}ms, acks ${acks.counts.join(',')}`;
        expect(
          acks.counts.reduce((a, b) => a + b),
          context,
        ).to.be.greaterThan(0);
        expect(acks.outOfOrder, `${context}: acknowledgements out of order`).to.equal(0);

        const store = await EmbeddedStore.open({ dataDir: dir });
        try {
          const current = await store.currentRevision();
          expect(current, context).to.be.at.least(acks.maxRevision);
          expect(current, context).to.be.greaterThan(lastRevision);
          for (let worker = 0; worker < WORKERS; worker++) {
            const prefix = workerPrefix(round, worker);
            const actual = await readPrefix(store, prefix);
            // The one write in flight when the process died may or may not have reached the log.
            const acknowledged = stateAfter(round, worker, acks.counts[worker]);
            const withInFlight = stateAfter(round, worker, acks.counts[worker] + 1);
            const matches = [acknowledged, withInFlight].some((expected) => sameMap(actual, expected));
            expect(matches, `${context}: worker ${worker} holds ${actual.size} keys`).to.equal(true);
            survivors.set(prefix, actual);
          }
          for (const [prefix, expected] of survivors) {
            expect(
              sameMap(await readPrefix(store, prefix), expected),
              `${context}: ${prefix} of an earlier round`,
            ).to.equal(true);
          }
          const revision = await store.create(`/crash/after-round-${round}`, 'written after restart');
          expect(revision, context).to.equal(current + 1);
          lastRevision = revision;
        } finally {
          await store.close();
        }
      }
    } finally {
      await remove();
    }
  });
});

async function readPrefix(store: EmbeddedStore, prefix: string): Promise<Map<string, string>> {
  const { items } = await store.list(prefix);
  return new Map(items.map((kv) => [kv.key, kv.value]));
}

function sameMap(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) if (b.get(key) !== value) return false;
  return true;
}
