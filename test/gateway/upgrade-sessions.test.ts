import { expect } from 'chai';
import WebSocket from 'ws';
import { parseKubeconfig } from '../../certs/index.js';
import type { Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { eventually, sleep } from '../support/eventually.js';
import { startStage, type Stage } from '../support/stage.js';

const SESSIONS = 1000;
/** Sessions open at once. */
const CLIENTS = 8;

/** Open sockets in this process (the gateway, the devcluster and the test clients all run here). */
function openSockets(): number {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter((h) => h?.constructor?.name === 'TLSSocket' || h?.constructor?.name === 'Socket').length;
}

describe('gateway: a thousand exec sessions leave no sockets behind', function () {
  this.timeout(180_000);
  let stage: Stage;
  let gateway: Gateway;
  let tls: { ca: string; cert: string; key: string };

  before(async () => {
    stage = await startStage('sessions');
    ({ gateway } = stage);
    const { kubeconfig, kubeconfigPath } = await stage.tenant('sess01');
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
    await stage?.stop();
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

  it(`runs ${SESSIONS} sessions, ${CLIENTS} at a time, half of them cut off by the client, and ends with as many sockets as it started`, async () => {
    expect(await exec(['echo', 'warm', 'up'])).to.equal('warm up\n');
    await sleep(200);
    const baseline = openSockets();
    let echoed = 0;
    // A few at a time, as kubectl users share a gateway: each session waits on the process's start.
    let next = 0;
    const client = async () => {
      for (let i = next++; i < SESSIONS; i = next++) {
        if (i % 2 === 0) {
          if ((await exec(['echo', `session-${i}`])) === `session-${i}\n`) echoed++;
        } else {
          await exec(['cat'], true);
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    expect(echoed).to.equal(SESSIONS / 2);
    await eventually(
      () => openSockets(),
      (open) => expect(open, `sockets before: ${baseline}`).to.be.at.most(baseline),
      15_000,
    );
  });
});
