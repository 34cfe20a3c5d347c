/**
 * deploy/haproxy.cfg: Debian's haproxy accepts it (`haproxy -c`) as shipped and with the tests'
 * addresses (test/support/haproxy-config.ts), it says what an operator needs (TCP passthrough,
 * least connections, health from /readyz over TLS, hour-long timeouts, sessions cut on a replica
 * marked down), and run in front of a gateway it marks the gateway up by its /readyz, a closed
 * port down, and passes the admin's client certificate through to the gateway.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { waitUntil } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { HAPROXY, HAPROXY_CONFIG, haproxyConfig, substituteHaproxyConfig } from '../support/haproxy-config.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

/** `haproxy -c` on a config: its exit code and what it printed. */
function checkConfig(file: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(HAPROXY, ['-c', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

/** The config's sections by their header line (`defaults`, `backend paddock-gateways`), each a list of its directives. */
function sections(config: string): Map<string, string[]> {
  const result = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const raw of config.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) continue;
    if (/^\S/.test(raw)) result.set(line, (current = []));
    else current?.push(line.replace(/\s+/g, ' '));
  }
  return result;
}

/** HAProxy's time format (default unit ms) in seconds. */
function seconds(time: string): number {
  const match = /^(\d+)(us|ms|s|m|h|d)?$/.exec(time);
  if (!match) throw new Error(`not a HAProxy time: ${time}`);
  const unit = { us: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600, d: 86400 }[match[2] ?? 'ms']!;
  return Number(match[1]) * unit;
}

/** `show stat` on HAProxy's stats socket: each server's status (UP, DOWN, …) by name. */
async function serverStatus(socket: string, backend: string): Promise<Record<string, string>> {
  const conn = connect(socket);
  let csv = '';
  conn.on('data', (chunk: Buffer) => (csv += chunk.toString()));
  conn.end('show stat\n');
  await once(conn, 'close');
  const [header, ...rows] = csv.trim().split('\n');
  const columns = header.replace(/^# /, '').split(',');
  const statuses: Record<string, string> = {};
  for (const row of rows) {
    const cells = Object.fromEntries(row.split(',').map((cell, i) => [columns[i], cell]));
    if (cells.pxname === backend && !['FRONTEND', 'BACKEND'].includes(cells.svname))
      statuses[cells.svname] = cells.status;
  }
  return statuses;
}

describe('deploy/haproxy.cfg', function () {
  this.timeout(120_000);
  let remove: () => Promise<void>;
  let dir: string;

  before(async function () {
    if (!existsSync(HAPROXY)) throw new Error(`${HAPROXY} is missing: apt-get install -y haproxy`);
    ({ dir, remove } = await makeTempDir('haproxy'));
  });
  after(async () => remove?.());

  it("is valid to Debian's haproxy as shipped (haproxy -c)", async () => {
    const result = await checkConfig(HAPROXY_CONFIG);
    expect(result.code, result.output).to.equal(0);
    expect(result.output).to.include('Configuration file is valid');
  });

  it('passes TCP through, least connections first, checks /readyz over TLS, waits an hour on quiet connections and cuts those of a replica marked down', async () => {
    const config = sections(await readFile(HAPROXY_CONFIG, 'utf8'));
    const defaults = config.get('defaults')!;
    expect(defaults).to.include('mode tcp');
    const timeout = (name: string) => defaults.find((line) => line.startsWith(`timeout ${name} `))?.split(' ')[2];
    for (const name of ['client', 'server', 'tunnel'])
      expect(seconds(timeout(name) ?? '0'), `timeout ${name}`).to.be.at.least(3600);
    const frontend = config.get('frontend paddock')!;
    expect(frontend.filter((line) => line.startsWith('bind '))).to.have.length(1);
    // No TLS in HAProxy: the client's certificate must reach the gateway.
    expect(frontend.join('\n')).to.not.match(/\b(ssl|crt)\b/);
    const backend = config.get('backend paddock-gateways')!;
    expect(backend).to.include.members(['balance leastconn', 'option httpchk GET /readyz']);
    const defaultServer = backend.find((line) => line.startsWith('default-server '))!.split(' ');
    expect(defaultServer).to.include.members([
      'check',
      'check-ssl',
      'verify',
      'none',
      'on-marked-down',
      'shutdown-sessions',
    ]);
    expect(defaultServer[defaultServer.indexOf('on-marked-down') + 1]).to.equal('shutdown-sessions');
    const servers = backend.filter((line) => line.startsWith('server '));
    expect(servers).to.have.length.greaterThan(1);
    for (const server of servers) expect(server.split(' '), server).to.not.include('ssl');
  });

  it("gets the tests' bind address and servers in its marked blocks, and stays valid", async () => {
    const config = await haproxyConfig({
      bind: '127.0.0.1:16443',
      servers: [
        { name: 'gateway-a', address: '127.0.0.1:7001' },
        { name: 'gateway-b', address: '127.0.0.1:7002' },
      ],
    });
    const backend = sections(config).get('backend paddock-gateways')!;
    expect(backend.filter((line) => line.startsWith('server '))).to.deep.equal([
      'server gateway-a 127.0.0.1:7001',
      'server gateway-b 127.0.0.1:7002',
    ]);
    expect(
      sections(config)
        .get('frontend paddock')!
        .filter((line) => line.startsWith('bind ')),
    ).to.deep.equal(['bind 127.0.0.1:16443']);
    const file = path.join(dir, 'substituted.cfg');
    await writeFile(file, config);
    const result = await checkConfig(file);
    expect(result.code, result.output).to.equal(0);
    expect(() => substituteHaproxyConfig('global\n', { bind: ':1', servers: [] })).to.throw(
      'haproxy.cfg has no "# BEGIN paddock-bind" … "# END paddock-bind" block',
    );
  });

  it('is refused by haproxy -c when a directive is wrong (the check can fail)', async () => {
    const broken = (await readFile(HAPROXY_CONFIG, 'utf8')).replace('balance leastconn', 'balance fewestconn');
    const file = path.join(dir, 'broken.cfg');
    await writeFile(file, broken);
    const result = await checkConfig(file);
    expect(result.code).to.not.equal(0);
    expect(result.output).to.match(
      /\[ALERT\].*broken\.cfg:\d+\] : balance only supports 'roundrobin', 'static-rr', 'leastconn'/,
    );
  });

  describe('in front of a gateway', () => {
    let member: DevCluster;
    let gateway: Gateway;
    let haproxy: ChildProcess | undefined;
    let haproxyOutput = '';
    let admin: Kubectl;
    const stats = () => path.join(dir, 'stats.sock');

    before(async () => {
      member = await startDevCluster({ name: 'member1', listen: '127.0.0.1:0', dataDir: path.join(dir, 'member1') });
      gateway = await startGateway({
        listen: '127.0.0.1:0',
        dataDir: path.join(dir, 'gateway'),
        upstreams: [{ name: 'member1', kubeconfig: await readFile(member.kubeconfigPath, 'utf8') }],
        tenantCache: '',
      });
      const [port, closed] = [await freePort(), await freePort()];
      const file = path.join(dir, 'haproxy.cfg');
      await writeFile(
        file,
        await haproxyConfig({
          bind: `127.0.0.1:${port}`,
          servers: [
            { name: 'gateway-0', address: new URL(gateway.url).host },
            { name: 'gateway-1', address: `127.0.0.1:${closed}` },
          ],
          global: [`stats socket ${stats()} mode 600 level admin`],
        }),
      );
      haproxy = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
      haproxy.stdout!.on('data', (chunk: Buffer) => (haproxyOutput += chunk.toString()));
      haproxy.stderr!.on('data', (chunk: Buffer) => (haproxyOutput += chunk.toString()));
      await waitUntil('haproxy opens its stats socket', () => {
        if (haproxy?.exitCode !== null) throw new Error(`haproxy exited ${haproxy?.exitCode}:\n${haproxyOutput}`);
        return existsSync(stats());
      });
      const kubeconfig = path.join(dir, 'through-haproxy.kubeconfig');
      await writeFile(
        kubeconfig,
        (await readFile(gateway.adminKubeconfigPath, 'utf8')).replace(
          /server: .*/,
          `server: https://127.0.0.1:${port}`,
        ),
      );
      admin = await Kubectl.create(kubeconfig);
    });

    after(async () => {
      if (haproxy && haproxy.exitCode === null) {
        haproxy.kill();
        await once(haproxy, 'exit');
      }
      await admin?.dispose();
      await gateway?.stop();
      await member?.stop();
    });

    it('marks the gateway UP by its /readyz over TLS and a closed port DOWN', async () => {
      await waitUntil(
        'haproxy has checked both servers',
        async () => {
          const status = await serverStatus(stats(), 'paddock-gateways');
          return status['gateway-0'] === 'UP' && status['gateway-1'] === 'DOWN';
        },
        { timeout: 30_000, message: () => `servers never became gateway-0 UP, gateway-1 DOWN:\n${haproxyOutput}` },
      );
    });

    it("passes the admin's client certificate through to the gateway, which authenticates it", async () => {
      expect(await admin.ok(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).to.equal('admin');
      expect(await admin.ok(['get', 'clusters', '-o', 'name'])).to.equal('cluster.cluster.karmada.io/member1\n');
    });
  });
});
