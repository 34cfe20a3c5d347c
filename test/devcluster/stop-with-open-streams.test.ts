/**
 * A server's stop ends what is still open on it. Sockets handed to an 'upgrade' listener (exec,
 * attach, port-forward) leave Node's HTTP bookkeeping, so `closeAllConnections()` does not see
 * them while `close()` waits for them: without tracking them, one open exec session held the
 * devcluster's (and the gateway's) stop forever.
 */
import { expect } from 'chai';
import { once } from 'node:events';
import WebSocket from 'ws';
import { parseKubeconfig } from '../../certs/index.js';
import { startDevCluster } from '../../devcluster/devcluster.js';
import { ApiClient } from '../support/api-client.js';
import { makeTempDir } from '../support/temp-dir.js';
import { readFile } from 'node:fs/promises';

describe('devcluster: stop with an exec session open', () => {
  it('ends the session and returns', async () => {
    const dir = await makeTempDir('stop-open-exec');
    const cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: dir.dir });
    try {
      const admin = await ApiClient.load(cluster.kubeconfigPath);
      const created = await admin.request('POST', '/api/v1/namespaces/default/pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      });
      admin.close();
      expect(created.status, created.text).to.equal(201);
      const config = parseKubeconfig(await readFile(cluster.kubeconfigPath, 'utf8'));
      // `cat` with stdin open runs until stdin closes: the session stays open.
      const ws = new WebSocket(
        `${cluster.url.replace('https', 'wss')}/api/v1/namespaces/default/pods/p/exec?command=cat&stdin=true&stdout=true`,
        ['v5.channel.k8s.io'],
        { ca: config.caPem, cert: config.certPem, key: config.keyPem },
      );
      ws.on('error', () => undefined);
      await once(ws, 'open');
      const closed = once(ws, 'close');
      await cluster.stop();
      await closed;
      expect(ws.readyState).to.equal(WebSocket.CLOSED);
    } finally {
      await dir.remove();
    }
  });
});
