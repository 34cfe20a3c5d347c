/**
 * Key material readable by any local user: the store's files hold the CA key and every tenant's
 * Secrets, kubeconfigs hold client keys. Every file the gateway and the devcluster keep must be
 * 0600 in a 0700 directory — those they create, and those an earlier version left looser.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { chmod, lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startDevCluster } from '../../devcluster/devcluster.js';
import { startGateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { killAndWait } from '../support/etcd-server.js';
import { freePort } from '../support/free-port.js';
import { createActiveTenant } from '../support/tenants.js';
import { makeTempDir } from '../support/temp-dir.js';

const cli = fileURLToPath(new URL('../../cmd/cli.js', import.meta.url));

/** Every file and directory under `root` (itself included) whose mode is not 0600 / 0700, and how many were checked. */
async function looseEntries(root: string): Promise<{ loose: string[]; files: string[] }> {
  const loose: string[] = [];
  const files: string[] = [];
  const visit = async (at: string) => {
    const stat = await lstat(at);
    const mode = stat.mode & 0o777;
    const relative = path.relative(root, at) || '.';
    if (stat.isDirectory()) {
      if (mode !== 0o700) loose.push(`${relative}/ ${mode.toString(8)}`);
      for (const name of await readdir(at)) await visit(path.join(at, name));
    } else {
      files.push(relative);
      if (mode !== 0o600) loose.push(`${relative} ${mode.toString(8)}`);
    }
  };
  await visit(root);
  return { loose, files };
}

/** What an earlier version left: directories 0755, files 0644. */
async function loosen(at: string): Promise<void> {
  const stat = await lstat(at);
  if (stat.isDirectory()) {
    await chmod(at, 0o755);
    for (const name of await readdir(at)) await loosen(path.join(at, name));
  } else {
    await chmod(at, 0o644);
  }
}

describe('adversarial: key material and store files readable by other local users', function () {
  this.timeout(60_000);
  let root: string;
  let remove: () => Promise<void>;

  before(async () => {
    ({ dir: root, remove } = await makeTempDir('adv-files'));
  });
  after(() => remove());

  /**
   * A devcluster and a gateway in `root`, a tenant created through them (its key stored), then
   * `check` while both still run (the store's lock is there), then both stopped.
   */
  async function whileRunning(tenantId: string, check: () => Promise<void>): Promise<void> {
    const upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: path.join(root, 'devcluster') });
    const gateway = await startGateway({
      listen: '127.0.0.1:0',
      dataDir: path.join(root, 'gateway'),
      upstreams: [{ name: 'member1', kubeconfig: await readFile(upstream.kubeconfigPath, 'utf8') }],
    });
    try {
      const admin = await ApiClient.load(gateway.adminKubeconfigPath);
      await createActiveTenant(admin, tenantId, root);
      admin.close();
      await check();
    } finally {
      await gateway.stop();
      await upstream.stop();
    }
  }

  it('a gateway and a devcluster create their store, keys and kubeconfigs 0600 in 0700 directories', async () => {
    await whileRunning('file01', async () => {
      for (const dir of ['gateway', 'devcluster']) {
        const { loose, files } = await looseEntries(path.join(root, dir));
        expect(files, `${dir}: files checked`).to.include.members([
          'admin.kubeconfig',
          'store/LOCK',
          'store/wal-000000000001.log',
        ]);
        expect(loose, `${dir}: entries readable by others`).to.deep.equal([]);
      }
      expect((await looseEntries(path.join(root, 'devcluster'))).files).to.include.members([
        'pki/ca.key',
        'pki/ca.crt',
      ]);
    });
  });

  it('data directories an earlier version left 0755 with 0644 files are tightened on start, the snapshot written then included', async () => {
    await loosen(path.join(root, 'gateway'));
    await loosen(path.join(root, 'devcluster'));
    expect((await looseEntries(path.join(root, 'gateway'))).loose, 'loosened').to.not.deep.equal([]);
    await whileRunning('file02', async () => {
      for (const dir of ['gateway', 'devcluster']) {
        const { loose, files } = await looseEntries(path.join(root, dir));
        expect(files, `${dir}: a snapshot was taken on the restart`).to.include('store/snapshot.jsonl');
        expect(loose, `${dir}: entries readable by others`).to.deep.equal([]);
      }
    });
  });

  it('`paddock serve` keeps its member devclusters and their kubeconfigs private as well', async () => {
    const { dir, remove: removeServeDir } = await makeTempDir('adv-files-serve');
    const port = await freePort();
    const child = spawn(process.execPath, [cli, 'serve', '--data-dir', dir, '--listen', `127.0.0.1:${port}`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let lines = 0;
        createInterface({ input: child.stdout }).on('line', () => {
          if (++lines === 2) resolve();
        });
        child.once('exit', (code) => reject(new Error(`paddock serve exited with ${code}`)));
      });
      const { loose, files } = await looseEntries(dir);
      expect(files).to.include.members([
        'admin.kubeconfig',
        'clusters/member1.kubeconfig',
        'clusters/member1/admin.kubeconfig',
        'clusters/member1/pki/ca.key',
      ]);
      expect(loose, 'entries readable by others').to.deep.equal([]);
    } finally {
      await killAndWait(child);
      await removeServeDir();
    }
  });
});
