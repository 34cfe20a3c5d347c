/**
 * Health without a client certificate: kubelet probes and load balancers' checks (deploy/,
 * deploy/haproxy.cfg) present none, and kube-apiserver answers them as anonymous requests. A
 * certificate presented and refused is still 401, and so is any other path.
 */
import { expect } from 'chai';
import { connect } from 'node:tls';
import { createCertificateAuthority } from '../../certs/index.js';
import type { Gateway } from '../../gateway/server/gateway.js';
import { anonymousRequest } from '../support/anonymous-request.js';
import { waitUntil } from '../support/eventually.js';
import { startStage, type Stage } from '../support/stage.js';

describe('gateway: health checks without a client certificate', function () {
  this.timeout(60_000);
  let stage: Stage;
  let gateway: Gateway;

  before(async () => {
    stage = await startStage('anonymous-health', { devcluster: { name: 'member1' }, gateway: { tenantCache: '' } });
    ({ gateway } = stage);
    // Ready once its cluster's first probe is in (search-cache-readiness.test.ts): what is answered before is not this test's.
    await waitUntil(
      'the replica is ready',
      async () => (await anonymousRequest(gateway.url, '/readyz')).status === 200,
    );
  });

  after(async () => {
    await stage?.stop();
  });

  it('answers /livez, /readyz and /healthz with 200 ok, GET and HEAD', async () => {
    for (const path of ['/livez', '/readyz', '/healthz', '/readyz/']) {
      expect(await anonymousRequest(gateway.url, path), path).to.deep.equal({ status: 200, text: 'ok' });
      expect(await anonymousRequest(gateway.url, path, 'HEAD'), `HEAD ${path}`).to.deep.equal({
        status: 200,
        text: '',
      });
    }
  });

  it('answers a health check over a resumed TLS 1.3 session without a certificate, as HAProxy makes its checks', async () => {
    // Node calls such a session authorized (a TLS 1.3 resumption looks like PSK), with no certificate in it.
    const first = await rawHealthCheck(gateway.url);
    expect(first.resumed, 'the first session is new').to.equal(false);
    for (let i = 0; i < 3; i++) {
      const again = await rawHealthCheck(gateway.url, first.session);
      expect(again, `resumed check ${i}`).to.deep.include({ resumed: true, statusLine: 'HTTP/1.1 200 OK' });
    }
  });

  it('answers every other request without a certificate 401: the version, discovery, metrics, a health subpath, a POST', async () => {
    for (const [method, path] of [
      ['GET', '/version'],
      ['GET', '/api'],
      ['GET', '/metrics'],
      ['GET', '/livez/ping'],
      ['POST', '/healthz'],
    ]) {
      const res = await anonymousRequest(gateway.url, path, method);
      expect(res.status, `${method} ${path}`).to.equal(401);
      expect(JSON.parse(res.text)).to.include({ kind: 'Status', reason: 'Unauthorized' });
    }
  });

  it('answers 401 to a health check that presents a certificate the gateway does not trust', async () => {
    const stranger = await createCertificateAuthority({ commonName: 'stranger' });
    const client = await stranger.issueClientCertificate({ commonName: 'prober', organizations: ['system:masters'] });
    const res = await anonymousRequest(gateway.url, '/livez', 'GET', { cert: client.certPem, key: client.keyPem });
    expect(res.status).to.equal(401);
  });
});

/** GET /readyz over a TLS connection of its own, resuming `session` when given. */
function rawHealthCheck(
  url: string,
  session?: Buffer,
): Promise<{ resumed: boolean; statusLine: string; session: Buffer | undefined }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let ticket: Buffer | undefined;
    let text = '';
    let resumed = false;
    const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false, session }, () => {
      resumed = socket.isSessionReused();
      socket.write(`GET /readyz HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
    });
    socket.on('session', (value: Buffer) => (ticket = value));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve({ resumed, statusLine: text.split('\r\n')[0], session: ticket }));
  });
}
