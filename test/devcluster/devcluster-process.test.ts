import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startDevCluster } from '../../devcluster/devcluster.js';
import { killAndWait, startEtcd } from '../support/etcd-server.js';
import { freePort } from '../support/free-port.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

const cli = fileURLToPath(new URL('../../cmd/cli.js', import.meta.url));

describe('devcluster: the command, restarts and several clusters in one process', () => {
  it('`paddock devcluster` writes an admin kubeconfig that kubectl uses, keeps data across a restart, and stops on SIGTERM', async () => {
    const { dir, remove } = await makeTempDir('devcluster-cli');
    try {
      const port = await freePort();
      const run = async () => {
        const child = spawn(process.execPath, [cli, 'devcluster', '--listen', `127.0.0.1:${port}`, '--data-dir', dir], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        const line = await new Promise<string>((resolve, reject) => {
          createInterface({ input: child.stdout }).once('line', resolve);
          child.once('exit', (code) => reject(new Error(`paddock devcluster exited with ${code}`)));
        });
        return { child, line };
      };
      const first = await run();
      expect(first.line).to.equal(`devcluster devcluster is up: https://127.0.0.1:${port}`);
      const kubectl = await Kubectl.create(`${dir}/admin.kubeconfig`);
      try {
        await kubectl.ok(
          ['apply', '-f', '-'],
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'survivor', namespace: 'default' },
            data: { a: 'b' },
          }),
        );
        await killAndWait(first.child, 'SIGTERM');
        expect(first.child.exitCode).to.equal(0);
        const second = await run();
        try {
          expect(await kubectl.ok(['get', 'configmap', 'survivor', '-o', 'jsonpath={.data.a}'])).to.equal('b');
        } finally {
          await killAndWait(second.child, 'SIGTERM');
        }
      } finally {
        await kubectl.dispose();
      }
    } finally {
      await remove();
    }
  });

  it("runs three member clusters in one process on one etcd without seeing each other's objects", async () => {
    const etcd = await startEtcd();
    const dirs = await Promise.all([1, 2, 3].map(() => makeTempDir('member')));
    const clusters = await Promise.all(
      dirs.map(({ dir }, i) =>
        startDevCluster({
          name: `member${i + 1}`,
          listen: '127.0.0.1:0',
          dataDir: dir,
          etcdEndpoints: [etcd.endpoint],
        }),
      ),
    );
    try {
      const kubectls = await Promise.all(clusters.map((c) => Kubectl.create(c.kubeconfigPath)));
      for (const [i, kubectl] of kubectls.entries()) {
        await kubectl.ok(
          ['apply', '-f', '-'],
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: `only-in-${i + 1}`, namespace: 'default' },
          }),
        );
      }
      for (const [i, kubectl] of kubectls.entries()) {
        const names = (await kubectl.ok(['get', 'configmaps', '-o', 'name'])).trim().split('\n');
        // Each has its own root CA ConfigMap too, written at its start.
        expect(names).to.deep.equal(['configmap/kube-root-ca.crt', `configmap/only-in-${i + 1}`]);
      }
      expect(new Set(clusters.map((c) => c.url)).size).to.equal(3);
      await Promise.all(kubectls.map((k) => k.dispose()));
    } finally {
      await Promise.all(clusters.map((c) => c.stop()));
      await Promise.all(dirs.map((d) => d.remove()));
      await etcd.stop();
    }
  });
});
