/**
 * A replica's graceful stop on SIGTERM (gateway/server/server-drain.ts), with `paddock serve` as a
 * process of its own in front of a devcluster whose answers a relay can hold: `/readyz` (asked
 * without a certificate, as a load balancer asks) fails at once while requests are still served
 * for `--shutdown-delay`; then new connections are refused, open watches — one forwarded to the
 * cluster, one of the gateway's own Tenants — end cleanly, a request in flight is answered whole
 * (with `Connection: close`), and the process exits 0 well before `--shutdown-timeout`.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { ApiClient } from '../support/api-client.js';
import { anonymousRequest } from '../support/anonymous-request.js';
import { waitUntil } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { CLI } from '../support/run-cli.js';
import { TcpRelay } from '../support/tcp-relay.js';
import { makeTempDir } from '../support/temp-dir.js';

/** A request with no client certificate, as HAProxy's health check and the kubelet's probes send it. */
async function anonymous(port: number, path: string): Promise<{ status: number; body: string }> {
  const { status, text } = await anonymousRequest(`https://127.0.0.1:${port}`, path);
  return { status, body: text };
}

/** How a streamed answer ended: whole (its chunked body's end) or cut. */
function streamEnd(res: IncomingMessage): Promise<'whole' | 'cut'> {
  return new Promise((resolve) => {
    res.on('data', () => undefined);
    res.on('end', () => resolve(res.complete ? 'whole' : 'cut'));
    res.on('aborted', () => resolve('cut'));
    res.on('error', () => resolve('cut'));
  });
}

describe('gateway: a graceful stop on SIGTERM', function () {
  this.timeout(90_000);
  let upstream: DevCluster;
  let relay: TcpRelay;
  let work: { dir: string; remove(): Promise<void> };
  let child: ChildProcess | undefined;

  before(async () => {
    work = await makeTempDir('graceful-stop');
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: `${work.dir}/member1` });
    relay = new TcpRelay(Number(new URL(upstream.url).port));
    await relay.start();
  });
  after(async () => {
    child?.kill('SIGKILL');
    await relay?.stop();
    await upstream?.stop();
    await work?.remove();
  });

  it('fails /readyz first, refuses new connections, ends watches cleanly, finishes what is in flight, and exits', async () => {
    const kubeconfig = (await readFile(upstream.kubeconfigPath, 'utf8')).replace(
      new URL(upstream.url).port,
      String(relay.port),
    );
    await writeFile(`${work.dir}/member1.kubeconfig`, kubeconfig);
    const port = await freePort();
    const dataDir = `${work.dir}/gateway`;
    child = spawn(
      process.execPath,
      [
        CLI,
        'serve',
        '--data-dir',
        dataDir,
        '--listen',
        `127.0.0.1:${port}`,
        '--upstream',
        `member1=${work.dir}/member1.kubeconfig`,
        '--shutdown-delay',
        // Long enough that the checks made during the delay are made in it, on a busy machine too.
        '8s',
        '--shutdown-timeout',
        '60s',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    await waitUntil('the gateway is up', () => /^Stop: Ctrl-C$/m.test(output), {
      timeout: 30_000,
      message: () => output,
    });
    const admin = await ApiClient.load(`${dataDir}/admin.kubeconfig`);
    try {
      // Ready once the cache has listed (a store restarted as the cluster's status comes in lists again).
      await waitUntil(
        'the gateway is ready',
        async () =>
          (await anonymous(port, '/readyz?verbose')).body ===
          '[+]ping ok\n[+]search-cache-synced ok\n[+]shutdown ok\nreadyz check passed\n',
      );
      expect(await anonymous(port, '/livez')).to.deep.equal({ status: 200, body: 'ok' });
      expect((await anonymous(port, '/api/v1/namespaces')).status, 'anything else needs a certificate').to.equal(401);

      const forwarded = admin.open('GET', '/api/v1/namespaces/default/configmaps?watch=1', {});
      const own = admin.open('GET', '/apis/tenant.kubezoo.io/v1alpha1/tenants?watch=1', {});
      const watches = [forwarded, own].map(
        (req) =>
          new Promise<'whole' | 'cut'>((resolve, reject) => {
            req.on('response', (res) => resolve(streamEnd(res)));
            req.on('error', reject);
            req.end();
          }),
      );
      // Both watches are open before the signal: an event on the forwarded one says so.
      const made = await admin.request('POST', '/api/v1/namespaces/default/configmaps', {
        metadata: { name: 'before' },
      });
      expect(made.status).to.equal(201);

      // Read once first: the gateway's connection to the cluster is open then, and the request held
      // below waits for its answer, not for a TLS handshake (which undici gives up on after 10 s).
      expect((await admin.request('GET', '/api/v1/namespaces/default/configmaps/before')).status).to.equal(200);
      relay.hold();
      const inFlight = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = admin.open('GET', '/api/v1/namespaces/default/configmaps/before', { accept: 'application/json' });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
        });
        req.on('error', reject);
        req.end();
      });
      // The request is at the relay, which holds its answer.
      await new Promise((resolve) => setTimeout(resolve, 300));
      child.kill('SIGTERM');

      await waitUntil('/readyz fails', async () => (await anonymous(port, '/readyz')).status === 500);
      // The other checks as they are (the cache may be relisting what the held cluster has not answered yet).
      const failing = await anonymous(port, '/readyz');
      expect(failing.status).to.equal(500);
      expect(failing.body).to.match(
        /^\[\+\]ping ok\n.*\n\[-\]shutdown failed: reason withheld\nreadyz check failed\n$/s,
      );
      expect((await anonymous(port, '/livez')).status, 'the process is still alive').to.equal(200);

      // After the delay the listener closes: a new connection is refused.
      await waitUntil(
        'new connections are refused',
        () =>
          anonymous(port, '/livez').then(
            () => false,
            (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED',
          ),
        { timeout: 20_000 },
      );
      expect(await Promise.all(watches), 'the forwarded and the own watch ended, whole').to.deep.equal([
        'whole',
        'whole',
      ]);
      expect(child.exitCode, 'still running while a request is in flight').to.equal(null);

      relay.release();
      expect(await inFlight).to.deep.equal({ status: 200, connection: 'close' });
      expect(await exited).to.equal(0);
      expect(output).to.include('SIGTERM: stopping Paddock … stopped');
    } finally {
      admin.close();
    }
  });
});
