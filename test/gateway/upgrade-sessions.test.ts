import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import WebSocket from 'ws';
import { parseKubeconfig } from '../../certs/index.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { eventually, sleep } from '../support/eventually.js';
import { createActiveTenant } from '../support/tenants.js';
import { makeTempDir } from '../support/temp-dir.js';

const SESSIONS = 1000;

/** Open sockets in this process (the gateway, the devcluster and the test clients all run here). */
function openSockets(): number {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter((h) => h?.constructor?.name === 'TLSSocket' || h?.constructor?.name === 'Socket').length;
}

describe('gateway: a thousand exec sessions leave no sockets behind', function () {
  this.timeout(180_000);
  let upstream: DevCluster;
  let gateway: Gateway;
  let remove: (() => Promise<void>)[] = [];
  let tls: { ca: string; cert: string; key: string };

  before(async () => {
    const upstreamDir = await makeTempDir('sessions-upstream');
    const gatewayDir = await makeTempDir('sessions-gateway');
    remove = [upstreamDir.remove, gatewayDir.remove];
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: upstreamDir.dir });
    gateway = await startGateway({
      listen: '127.0.0.1:0',
      dataDir: gatewayDir.dir,
      upstreams: [{ name: 'member1', kubeconfig: await readFile(upstream.kubeconfigPath, 'utf8') }],
    });
    const admin = await ApiClient.load(gateway.adminKubeconfigPath);
    const { kubeconfig, kubeconfigPath } = await createActiveTenant(admin, 'sess01', gatewayDir.dir);
    admin.close();
    const parsed = parseKubeconfig(kubeconfig);
    tls = { ca: parsed.caPem, cert: parsed.certPem, key: parsed.keyPem };
    const tenant = await ApiClient.load(kubeconfigPath);
    await tenant.request('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'box' },
      spec: { containers: [{ name: 'main', image: 'busybox' }] },
    });
    tenant.close();
  });
  after(async () => {
    await gateway?.stop();
    await upstream?.stop();
    for (const r of remove) await r();
  });

  /** One exec over WebSocket v5: returns what came on stdout; `hangUp` closes it mid-command. */
  function exec(command: string[], hangUp = false): Promise<string> {
    const query = command.map((c) => `command=${encodeURIComponent(c)}`).join('&');
    const ws = new WebSocket(
      `${gateway.url.replace('https', 'wss')}/api/v1/namespaces/default/pods/box/exec?${query}&stdout=true&stdin=${hangUp}`,
      ['v5.channel.k8s.io'],
      tls,
    );
    return new Promise((resolve, reject) => {
      let stdout = '';
      ws.on('message', (data: Buffer) => {
        if (data[0] === 1) stdout += data.subarray(1).toString();
        if (hangUp) ws.terminate();
      });
      ws.on('open', () => {
        if (hangUp) setTimeout(() => ws.terminate(), 5);
      });
      ws.on('close', () => resolve(stdout));
      ws.on('error', reject);
    });
  }

  it(`runs ${SESSIONS} sessions, half of them cut off by the client, and ends with as many sockets as it started`, async () => {
    expect(await exec(['echo', 'warm', 'up'])).to.equal('warm up\n');
    await sleep(200);
    const baseline = openSockets();
    let echoed = 0;
    for (let i = 0; i < SESSIONS; i++) {
      if (i % 2 === 0) {
        if ((await exec(['echo', `session-${i}`])) === `session-${i}\n`) echoed++;
      } else {
        await exec(['cat'], true);
      }
    }
    expect(echoed).to.equal(SESSIONS / 2);
    await eventually(
      () => openSockets(),
      (open) => expect(open, `sockets before: ${baseline}`).to.be.at.most(baseline),
      15_000,
    );
  });
});
