import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { killAndWait } from '../support/etcd-server.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

const cli = fileURLToPath(new URL('../../gateway/cli.js', import.meta.url));

function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('gateway: `paddock serve` (npm start) and `paddock tenant`', () => {
  it('runs a member devcluster and the gateway, writes both kubeconfigs, and administers tenants from the command line', async () => {
    const { dir, remove } = await makeTempDir('serve');
    const port = await freePort();
    const child = spawn(process.execPath, [cli, 'serve', '--data-dir', dir, '--listen', `127.0.0.1:${port}`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const lines: string[] = [];
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          lines.push(line);
          if (lines.length === 2) resolve();
        });
        child.once('exit', (code) => reject(new Error(`paddock serve exited with ${code}`)));
      });
      expect(lines[0]).to.match(
        new RegExp(
          `^devcluster member1 listening on https://127\\.0\\.0\\.1:\\d+; direct kubeconfig: ${dir}/clusters/member1\\.kubeconfig$`,
        ),
      );
      expect(lines[1]).to.equal(
        `paddock gateway listening on https://127.0.0.1:${port}; admin kubeconfig: ${dir}/admin.kubeconfig`,
      );

      const created = await run(['tenant', 'create', 'cli001', '--data-dir', dir]);
      expect(created).to.deep.equal({ code: 0, output: 'tenant/cli001 created (Active on member1)\n' });
      const listed = await run(['tenant', 'list', '--data-dir', dir]);
      expect(listed.output).to.match(/^NAME\s+PHASE\s+CLUSTER\s+AGE\ncli001\s+Active\s+member1\s+\d+s\n$/);
      const kubeconfig = await run(['tenant', 'kubeconfig', 'cli001', '--data-dir', dir]);
      expect(kubeconfig.output).to.contain('current-context: cli001@paddock');

      const admin = await Kubectl.create(`${dir}/admin.kubeconfig`);
      expect(await admin.ok(['get', 'tenants'])).to.match(
        /^NAME\s+PHASE\s+CLUSTER\s+AGE\ncli001\s+Active\s+member1\s+\d+s\n$/,
      );
      await admin.dispose();
      const member = await Kubectl.create(`${dir}/clusters/member1.kubeconfig`);
      await member.ok(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'held', namespace: 'cli001-default', finalizers: ['example.com/hold'] },
        }),
      );
      const deleting = spawn(process.execPath, [cli, 'tenant', 'delete', 'cli001', '--data-dir', dir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let progress = '';
      deleting.stdout.on('data', (c: Buffer) => (progress += c.toString()));
      await eventually(
        () => progress,
        (printed) =>
          expect(printed).to.match(
            /^tenant\/cli001 deleting\n {2}waiting for \d+ objects? to be removed from member1: .*namespaces\/cli001-default/m,
          ),
        10_000,
      );
      await member.ok([
        'patch',
        'configmap',
        'held',
        '-n',
        'cli001-default',
        '--type=json',
        '-p',
        '[{"op":"remove","path":"/metadata/finalizers"}]',
      ]);
      const code = await new Promise((resolve) => deleting.once('exit', resolve));
      expect(code).to.equal(0);
      expect(progress.trimEnd().split('\n').pop()).to.equal('tenant/cli001 deleted');
      await member.dispose();
    } finally {
      await killAndWait(child, 'SIGTERM');
      await remove();
    }
    expect(child.exitCode).to.equal(0);
  });

  it('refuses a malformed --tenant-* limit before it starts anything', async () => {
    expect(await run(['serve', '--tenant-qps', 'lots'])).to.deep.equal({
      code: 1,
      output: 'paddock: --tenant-qps must be a non-negative number (0: no limit), got "lots"\n',
    });
    expect(await run(['serve', '--tenant-max-watches', '2.5'])).to.deep.equal({
      code: 1,
      output: 'paddock: --tenant-max-watches must be a non-negative whole number (0: no limit), got "2.5"\n',
    });
    expect(await run(['serve', '--tenant-burst', '0'])).to.deep.equal({
      code: 1,
      output: 'paddock: --tenant-burst must be at least 1 while --tenant-qps limits the rate\n',
    });
  });
});
