import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { EtcdStore } from '../../store/etcd/etcd-store.js';
import { killAndWait, startEtcd, type EtcdServer } from '../support/etcd-server.js';
import { storeConformance, type CandidateProcess, type StoreFixture } from './conformance.js';

const candidateScript = fileURLToPath(new URL('./election-candidate.js', import.meta.url));

describe('store conformance: etcd', function () {
  let etcd: EtcdServer;
  let testNumber = 0;
  let prefix = '';

  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd?.stop();
  });

  const fixture: StoreFixture = {
    open: async (options) => {
      prefix = `/conformance-${++testNumber}`;
      return new EtcdStore({ endpoints: [etcd.endpoint], prefix, ...options });
    },
    spawnCandidate: async (_store, name, ttlSeconds) => spawnCandidate(etcd.endpoint, prefix, name, ttlSeconds),
  };
  storeConformance(() => fixture, { multiProcess: true });
});

/** A candidate in its own process, campaigning on the same etcd prefix as the test's store. */
function spawnCandidate(endpoint: string, prefix: string, name: string, ttlSeconds: number): CandidateProcess {
  const child = spawn(process.execPath, [candidateScript, endpoint, prefix, name, String(ttlSeconds)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const elected = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('leader')) resolve();
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`candidate exited (${code ?? signal}) before it was elected`)),
    );
  });
  elected.catch(() => undefined);
  return { elected, kill: () => killAndWait(child, 'SIGKILL') };
}
