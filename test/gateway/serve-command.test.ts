import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { killAndWait } from '../support/etcd-server.js';
import { eventually, waitUntil } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { ApiClient } from '../support/api-client.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';
import { CLI as cli, runCli } from '../support/run-cli.js';

const run = runCli;

/** A long-running `paddock` command whose output accumulates. */
function start(args: string[]): { child: ChildProcess; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return { child, stdout: () => stdout, stderr: () => stderr };
}

async function untilPrinted(server: ReturnType<typeof start>, pattern: RegExp): Promise<void> {
  await waitUntil(
    `paddock prints ${pattern}`,
    () => {
      if (pattern.test(server.stdout())) return true;
      if (server.child.exitCode !== null)
        throw new Error(`paddock exited ${server.child.exitCode}:\n${server.stdout()}${server.stderr()}`);
      return false;
    },
    { timeout: 30_000, message: () => `paddock did not print ${pattern}:\n${server.stdout()}${server.stderr()}` },
  );
}

/** The lines of a server's stderr in json mode, each parsed: each must be an object with ts, level and msg. */
function jsonLines(stderr: string): any[] {
  return stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const entry = JSON.parse(line);
      expect(entry.ts, line).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(entry.level, line).to.be.oneOf(['error', 'warn', 'info', 'debug']);
      expect(entry.msg, line).to.be.a('string');
      return entry;
    });
}

describe('gateway: `paddock serve` (npm start) and `paddock tenant`', () => {
  it('runs a member devcluster and the gateway, says where they are, administers tenants, logs requests, and stops on Ctrl-C', async () => {
    const { dir, remove } = await makeTempDir('serve');
    const port = await freePort();
    const server = start(['serve', '--data-dir', dir, '--listen', `127.0.0.1:${port}`, '--request-log', 'line']);
    try {
      await untilPrinted(server, /^Stop: Ctrl-C$/m);
      expect(server.stderr()).to.equal(`starting Paddock: 1 devcluster, then the gateway on 127.0.0.1:${port} …\n`);
      const banner = server.stdout();
      expect(banner).to.match(
        new RegExp(
          [
            `^Paddock is up: the gateway listens on https://127\\.0\\.0\\.1:${port}`,
            `  admin kubeconfig   ${dir}/admin\\.kubeconfig`,
            `  cluster member1    https://127\\.0\\.0\\.1:\\d+, kubeconfig ${dir}/clusters/member1\\.kubeconfig`,
            '  request log        one line per request',
            'Next: create a tenant .*',
            `  npm run paddock -- tenant create foofoo --data-dir ${dir}`,
            `  npm run --silent paddock -- tenant kubeconfig foofoo --data-dir ${dir} > ${dir}/foofoo\\.kubeconfig`,
            `  KUBECONFIG=${dir}/foofoo\\.kubeconfig KUBECACHEDIR=${dir}/kubectl-cache/foofoo kubectl get namespaces`,
            'Stop: Ctrl-C\\n$',
          ].join('\\n'),
        ),
      );
      const pid = Number(await readFile(`${dir}/paddock.pid`, 'utf8'));
      expect(pid).to.equal(server.child.pid);

      const created = await run(['tenant', 'create', 'cli001', '--data-dir', dir]);
      expect(created).to.deep.equal({ code: 0, stdout: 'tenant/cli001 created (Active on member1)\n', stderr: '' });
      const listed = await run(['tenant', 'list', '--data-dir', dir]);
      expect(listed.stdout).to.match(/^NAME\s+PHASE\s+CLUSTER\s+AGE\ncli001\s+Active\s+member1\s+\d+s\n$/);
      const kubeconfig = await run(['tenant', 'kubeconfig', 'cli001', '--data-dir', dir]);
      expect(kubeconfig.stderr).to.equal('');
      const annotation = JSON.parse((await run(['tenant', 'get', 'cli001', '-o', 'json', '--data-dir', dir])).stdout)
        .metadata.annotations['kubezoo.io/tenant.kubeconfig.base64'];
      expect(kubeconfig.stdout, 'stdout is the kubeconfig and nothing else').to.equal(
        `${Buffer.from(annotation, 'base64').toString('utf8').trimEnd()}\n`,
      );
      expect(parse(kubeconfig.stdout)['current-context']).to.equal('cli001@paddock');

      const admin = await Kubectl.create(`${dir}/admin.kubeconfig`);
      expect(await admin.ok(['get', 'tenants'])).to.match(
        /^NAME\s+PHASE\s+CLUSTER\s+AGE\ncli001\s+Active\s+member1\s+\d+s\n$/,
      );
      await admin.dispose();

      const tenantKubeconfig = `${dir}/cli001.kubeconfig`;
      await writeFile(tenantKubeconfig, kubeconfig.stdout, { mode: 0o600 });
      const tenant = await Kubectl.create(tenantKubeconfig);
      await tenant.ok(['get', 'configmaps', '-l', 'team=secretteam']);
      await tenant.dispose();
      await eventually(
        () => server.stdout(),
        (log) =>
          expect(log).to.match(
            /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z cli001-admin cli001 list \/api\/v1\/namespaces\/default\/configmaps 200 \d+ms$/m,
          ),
      );
      expect(server.stdout()).to.match(
        /^\S+Z admin - create \/apis\/tenant\.kubezoo\.io\/v1alpha1\/tenants 201 \d+ms$/m,
      );
      expect(server.stdout(), 'no query string in the log').not.to.contain('secretteam');

      const member = await Kubectl.create(`${dir}/clusters/member1.kubeconfig`);
      await member.ok(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'held', namespace: 'cli001-default', finalizers: ['example.com/hold'] },
        }),
      );
      const deleting = start(['tenant', 'delete', 'cli001', '--data-dir', dir]);
      await eventually(
        () => deleting.stderr(),
        (progress) =>
          expect(progress).to.match(
            /^ {2}waiting for \d+ objects? to be removed from member1: .*namespaces\/cli001-default/m,
          ),
        10_000,
      );
      expect(deleting.stdout()).to.equal('tenant/cli001 deleting\n');
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
      const code = await new Promise((resolve) => deleting.child.once('exit', resolve));
      expect(code).to.equal(0);
      expect(deleting.stdout()).to.equal('tenant/cli001 deleting\ntenant/cli001 deleted\n');
      await member.dispose();

      await killAndWait(server.child, 'SIGINT');
      expect(server.child.exitCode).to.equal(0);
      expect(server.stderr()).to.match(/\nSIGINT: stopping Paddock … stopped\n$/);
      expect(existsSync(`${dir}/paddock.pid`), 'the pid file is removed').to.equal(false);
    } finally {
      await killAndWait(server.child, 'SIGTERM');
      await remove();
    }
  });

  it('logs no request with the default --request-log off', async () => {
    const { dir, remove } = await makeTempDir('serve-quiet');
    const server = start(['serve', '--data-dir', dir, '--listen', '127.0.0.1:0']);
    try {
      await untilPrinted(server, /^Stop: Ctrl-C$/m);
      expect(server.stdout()).to.match(/^ {2}request log {8}off \(--request-log line: one line per request\)$/m);
      const before = server.stdout();
      expect((await run(['tenant', 'list', '--data-dir', dir])).code).to.equal(0);
      await killAndWait(server.child, 'SIGTERM');
      expect(server.stdout()).to.equal(before);
      expect(server.stderr()).to.match(/\nSIGTERM: stopping Paddock … stopped\n$/);
    } finally {
      await killAndWait(server.child, 'SIGTERM');
      await remove();
    }
  });

  it('--log-format json: every line of stderr is a JSON entry, the info ones included by default', async () => {
    const { dir, remove } = await makeTempDir('serve-json');
    const server = start(['serve', '--data-dir', dir, '--listen', '127.0.0.1:0', '--log-format', 'json']);
    try {
      await untilPrinted(server, /^Stop: Ctrl-C$/m);
      expect(server.stdout(), 'the banner stays text').to.match(/^Paddock is up: /);
      await killAndWait(server.child, 'SIGTERM');
      expect(server.child.exitCode).to.equal(0);
      const entries = jsonLines(server.stderr());
      expect(entries.map(({ level, component, msg }) => ({ level, component, msg }))).to.deep.equal([
        { level: 'info', component: 'paddock', msg: 'starting Paddock: 1 devcluster, then the gateway on 127.0.0.1:0' },
        { level: 'info', component: 'paddock', msg: 'stopping Paddock' },
        { level: 'info', component: 'paddock', msg: 'stopped Paddock' },
      ]);
      expect(entries[1].signal).to.equal('SIGTERM');
    } finally {
      await killAndWait(server.child, 'SIGTERM');
      await remove();
    }
  });

  it('--log-level warn keeps only warnings and errors; --audit-log-* rotate the audit log and keep --audit-log-maxbackup files', async () => {
    const { dir, remove } = await makeTempDir('serve-audit');
    const auditFile = `${dir}/audit/audit.log`;
    const server = start([
      'serve',
      '--data-dir',
      dir,
      '--listen',
      '127.0.0.1:0',
      '--log-format',
      'json',
      '--log-level',
      'warn',
      // A budget of one byte: the tenant cache sheds its stores, and says so as warnings.
      '--tenant-cache-max-bytes',
      '1',
      '--audit-log-path',
      auditFile,
      '--audit-log-maxsize',
      '0.002',
      '--audit-log-maxbackup',
      '2',
    ]);
    try {
      await untilPrinted(server, /^Stop: Ctrl-C$/m);
      expect(server.stdout()).to.contain(`\n  audit log          ${auditFile}\n`);
      expect((await run(['tenant', 'create', 'cli002', '--data-dir', dir])).code).to.equal(0);
      const kubeconfig = await run(['tenant', 'kubeconfig', 'cli002', '--data-dir', dir]);
      await writeFile(`${dir}/cli002.kubeconfig`, kubeconfig.stdout, { mode: 0o600 });
      const tenant = await ApiClient.load(`${dir}/cli002.kubeconfig`);
      const names = Array.from({ length: 8 }, (_, i) => `cm-${i}`);
      // Each made and deleted: a create's objectRef names the object from its body, a delete's from its path.
      const writes = names.flatMap((name) => [`create ${name}`, `delete ${name}`]);
      for (const name of names) {
        const path = '/api/v1/namespaces/default/configmaps';
        expect((await tenant.request('POST', path, { metadata: { name } })).status).to.equal(201);
        expect((await tenant.request('DELETE', `${path}/${name}`)).status).to.equal(200);
      }
      tenant.close();
      await eventually(
        () => jsonLines(server.stderr()),
        (entries) => expect(entries.map((e) => e.component)).to.include('tenant cache'),
        30_000,
      );
      await killAndWait(server.child, 'SIGTERM');
      expect(server.child.exitCode).to.equal(0);

      const entries = jsonLines(server.stderr());
      expect(entries.map((e) => e.level).filter((level) => level !== 'warn' && level !== 'error')).to.deep.equal([]);
      const shed = entries.find((e) => e.component === 'tenant cache')!;
      expect(shed).to.deep.include({ level: 'warn', cluster: 'member1' });
      expect(shed.msg).to.match(/^tenant cache over its budget \(\d+ of 1 bytes\): /);

      const backups = readdirSync(`${dir}/audit`).filter((name) => name !== 'audit.log');
      expect(backups).to.have.length(2);
      for (const name of backups) expect(name).to.match(/^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/);
      const events = [...backups.sort(), 'audit.log'].flatMap((name) =>
        readFileSync(`${dir}/audit/${name}`, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line)),
      );
      for (const event of events)
        expect(event).to.deep.include({ apiVersion: 'audit.k8s.io/v1', kind: 'Event', level: 'Metadata' });
      // The oldest files went: what is left is the end of the tenant's writes, without a gap.
      const kept = events
        .filter((e) => e.annotations['paddock.io/tenant'] === 'cli002')
        .map((e) => `${e.verb} ${e.objectRef.name ?? ''}`);
      expect(kept.length).to.be.within(2, writes.length - 1);
      expect(kept).to.deep.equal(writes.slice(writes.length - kept.length));
    } finally {
      await killAndWait(server.child, 'SIGTERM');
      await remove();
    }
  });

  it('--background returns once Paddock is up, and `paddock stop` stops it', async () => {
    const { dir, remove } = await makeTempDir('serve-background');
    let pid: number | undefined;
    try {
      const started = await run(['serve', '--background', '--data-dir', dir, '--listen', '127.0.0.1:0']);
      expect(started.code, started.stderr).to.equal(0);
      pid = Number(await readFile(`${dir}/paddock.pid`, 'utf8'));
      expect(started.stderr).to.equal(`starting Paddock in the background (log: ${dir}/serve.log) … up (pid ${pid})\n`);
      expect(started.stdout).to.match(/^Paddock is up: the gateway listens on https:\/\/127\.0\.0\.1:\d+\n/);
      expect(started.stdout).to.match(new RegExp(`\\nStop: npm run paddock -- stop --data-dir ${dir}\\n$`));
      expect(await readFile(`${dir}/serve.log`, 'utf8')).to.contain(started.stdout);
      const listed = await run(['tenant', 'list', '--data-dir', dir]);
      expect(listed).to.deep.include({ code: 0, stdout: 'NAME   PHASE   CLUSTER   AGE\n' });

      const again = await run(['serve', '--background', '--data-dir', dir, '--listen', '127.0.0.1:0']);
      expect(again.code).to.equal(1);
      expect(again.stderr).to.match(/ … failed:\n(.|\n)*is in use by process/);

      const stopped = await run(['stop', '--data-dir', dir]);
      expect(stopped).to.deep.equal({ code: 0, stdout: '', stderr: `stopping Paddock (pid ${pid}) … stopped\n` });
      expect(isAlive(pid)).to.equal(false);
      expect(await readFile(`${dir}/serve.log`, 'utf8')).to.match(/SIGTERM: stopping Paddock … stopped\n$/);
      expect(await run(['stop', '--data-dir', dir])).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: `paddock: no Paddock runs on ${dir} (no paddock.pid)\n`,
      });
    } finally {
      if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
      await remove();
    }
  });

  it('`paddock devcluster` says where it is and stops on Ctrl-C', async () => {
    const { dir, remove } = await makeTempDir('devcluster-command');
    const server = start(['devcluster', '--data-dir', dir, '--listen', '127.0.0.1:0', '--name', 'dc1']);
    try {
      await untilPrinted(server, /^Stop: Ctrl-C$/m);
      expect(server.stderr()).to.equal('starting devcluster dc1 on 127.0.0.1:0 …\n');
      expect(server.stdout()).to.match(
        new RegExp(
          `^devcluster dc1 is up: https://127\\.0\\.0\\.1:\\d+\\n  admin kubeconfig   ${dir}/admin\\.kubeconfig\\n`,
        ),
      );
      const kubectl = await Kubectl.create(`${dir}/admin.kubeconfig`);
      expect(await kubectl.ok(['get', 'namespace', 'default', '-o', 'name'])).to.equal('namespace/default\n');
      await kubectl.dispose();
      await killAndWait(server.child, 'SIGINT');
      expect(server.child.exitCode).to.equal(0);
      expect(server.stderr()).to.match(/\nSIGINT: stopping devcluster dc1 … stopped\n$/);
    } finally {
      await killAndWait(server.child, 'SIGTERM');
      await remove();
    }
  });

  it('refuses a malformed --tenant-* limit before it starts anything', async () => {
    expect(await run(['serve', '--tenant-qps', 'lots'])).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'paddock: --tenant-qps must be a non-negative number (0: no limit), got "lots"\n',
    });
    expect(await run(['serve', '--tenant-max-watches', '2.5'])).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'paddock: --tenant-max-watches must be a non-negative whole number (0: no limit), got "2.5"\n',
    });
    expect(await run(['serve', '--tenant-burst', '0'])).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'paddock: --tenant-burst must be at least 1 while --tenant-qps limits the rate\n',
    });
  });

  it("refuses a cluster's seats or queue it cannot use, before it starts anything", async () => {
    const refused = async (args: string[]) => (await run(['serve', ...args])).stderr;
    expect(await refused(['--upstream-tenant-seats', '0'])).to.equal(
      'paddock: --upstream-tenant-seats must be a whole number of at least 1, got "0"\n',
    );
    expect(await refused(['--tenant-upstream-seats', '2.5'])).to.equal(
      'paddock: --tenant-upstream-seats must be a whole number of at least 1, got "2.5"\n',
    );
    expect(await refused(['--tenant-queue-length=-1'])).to.equal(
      'paddock: --tenant-queue-length must be a whole number of at least 0, got "-1"\n',
    );
    expect(await refused(['--tenant-queue-wait', 'soon'])).to.equal(
      'paddock: --tenant-queue-wait must be a duration from 0 such as 100ms, 30s or 5m, got "soon"\n',
    );
    expect(await refused(['--upstream-gateway-seats', ''])).to.equal(
      'paddock: --upstream-gateway-seats must be a whole number of at least 1, got ""\n',
    );
  });

  it('refuses a log format, log level or audit log rotation it does not know, before it starts anything', async () => {
    const refused = async (args: string[]) => (await run(['serve', ...args])).stderr;
    expect(await refused(['--log-format', 'xml'])).to.equal('paddock: --log-format must be text or json, got "xml"\n');
    expect(await refused(['--log-level', 'verbose'])).to.equal(
      'paddock: --log-level must be one of error, warn, info, debug, got "verbose"\n',
    );
    expect(await refused(['--audit-log-maxsize', '0'])).to.equal(
      'paddock: --audit-log-maxsize must be a positive number of megabytes, got "0"\n',
    );
    expect(await refused(['--audit-log-maxbackup=-1'])).to.equal(
      'paddock: --audit-log-maxbackup must be a whole number (0 keeps every file), got "-1"\n',
    );
  });

  it("refuses eviction flags Karmada's validation refuses, before it starts anything", async () => {
    const refused = async (args: string[]) => (await run(['serve', ...args])).stderr;
    expect(await refused(['--resource-eviction-rate=-1'])).to.equal(
      'paddock: --resource-eviction-rate must be non-negative (0 pauses eviction), got "-1"\n',
    );
    expect(await refused(['--no-execute-taint-eviction-purge-mode', 'Never'])).to.equal(
      'paddock: --no-execute-taint-eviction-purge-mode must be Gracefully or Directly, got "Never"\n',
    );
    expect(await refused(['--unhealthy-cluster-threshold', '1.5'])).to.equal(
      'paddock: --unhealthy-cluster-threshold must be a share from 0 to 1, got "1.5"\n',
    );
    expect(await refused(['--rate-limiter-qps', '0'])).to.equal(
      'paddock: --rate-limiter-qps must be a positive number, got "0"\n',
    );
    expect(await refused(['--graceful-eviction-timeout', 'soon'])).to.match(
      /^paddock: --graceful-eviction-timeout must be a duration from 0 such as 100ms, 30s or 5m, got "soon"\n$/,
    );
  });

  it('refuses a --watch-flush-interval that is not a duration from 0 to 10s', async () => {
    for (const value of ['soon', '11s', '1.5', '5m'])
      expect(await run(['serve', '--watch-flush-interval', value])).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: `paddock: --watch-flush-interval must be a duration from 0 to 10s such as 100ms, 30s or 5m, got "${value}"\n`,
      });
  });

  it('refuses shutdown and upstream timeouts that are not durations, and a shutdown delay past the timeout', async () => {
    const refused = async (args: string[]) => (await run(['serve', ...args])).stderr;
    expect(await refused(['--upstream-timeout', '0'])).to.equal(
      'paddock: --upstream-timeout must be a duration of at least 1ms such as 100ms, 30s or 5m, got "0"\n',
    );
    expect(await refused(['--shutdown-timeout', 'later'])).to.equal(
      'paddock: --shutdown-timeout must be a duration from 0 such as 100ms, 30s or 5m, got "later"\n',
    );
    expect(await refused(['--shutdown-delay', '40s'])).to.equal(
      'paddock: --shutdown-delay must not be longer than --shutdown-timeout\n',
    );
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
