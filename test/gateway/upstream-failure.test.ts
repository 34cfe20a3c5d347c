import { expect } from 'chai';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { Pool } from 'undici';
import { createCertificateAuthority } from '../../certs/index.js';
import { tenantContext } from '../../translate/context.js';
import { refuseUpgrade } from '../../gateway/proxy/upgrade-proxy.js';
import { failureStatus, upstreamErrorStatus, upstreamFailureReason } from '../../gateway/upstream/upstream-failure.js';
import { kindScope } from '../support/kind-scope.js';

const ctx = tenantContext('aaaaaa', kindScope());

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** The error a request to the cluster fails with, as the gateway's pools meet it. */
async function requestError(origin: string, options: Pool.Options = {}): Promise<unknown> {
  const pool = new Pool(origin, options);
  try {
    await pool.request({ method: 'GET', path: '/api' });
  } catch (err) {
    return err;
  } finally {
    await pool.destroy();
  }
  throw new Error('the request did not fail');
}

describe('gateway: what a tenant is told when its cluster fails (upstream-failure.ts)', () => {
  it('a refused connection is 503 ServiceUnavailable, with Retry-After, and no address of the cluster', async () => {
    const server = createHttpServer();
    const port = await listening(server);
    await new Promise((resolve) => server.close(resolve));
    const err = await requestError(`http://127.0.0.1:${port}`);
    const status = failureStatus(err, 'test');
    expect(status).to.deep.include({ code: 503, reason: 'ServiceUnavailable', details: { retryAfterSeconds: 1 } });
    expect(status.message).to.equal("the tenant's cluster is unreachable");
    expect(upstreamFailureReason(err), 'the reason the metrics count').to.equal('refused');
  });

  it('a connection the cluster cuts before answering is 503, counted as a reset', async () => {
    const server = createHttpServer((req) => req.socket.destroy());
    const port = await listening(server);
    try {
      const err = await requestError(`http://127.0.0.1:${port}`);
      expect(failureStatus(err, 'test')).to.deep.include({ code: 503, reason: 'ServiceUnavailable' });
      expect(upstreamFailureReason(err)).to.equal('reset');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a cluster that does not answer in time is 504 Timeout, as kube says of a request out of time', async () => {
    const server = createHttpServer(() => {});
    const port = await listening(server);
    try {
      const err = await requestError(`http://127.0.0.1:${port}`, { headersTimeout: 100 });
      expect(failureStatus(err, 'test')).to.deep.include({
        code: 504,
        reason: 'Timeout',
        details: { retryAfterSeconds: 1 },
      });
      expect(upstreamFailureReason(err)).to.equal('timeout');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a TLS handshake that fails (a certificate the gateway does not trust) is 503, as in upgrades, not 500', async () => {
    const [cluster, other] = await Promise.all([
      createCertificateAuthority({ commonName: 'cluster-ca' }),
      createCertificateAuthority({ commonName: 'other-ca' }),
    ]);
    const serving = await cluster.issueServingCertificate({ hosts: ['127.0.0.1'] });
    const server = createHttpsServer({ key: serving.keyPem, cert: serving.certPem }, (_req, res) => res.end());
    const port = await listening(server);
    try {
      const err = await requestError(`https://127.0.0.1:${port}`, { connect: { ca: other.certPem } });
      expect(failureStatus(err, 'test')).to.deep.include({ code: 503, reason: 'ServiceUnavailable' });
      expect(upstreamFailureReason(err)).to.equal('tls');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("any other error is the gateway's own: 500, its text only in the log", () => {
    const write = process.stderr.write.bind(process.stderr);
    const logged: string[] = [];
    process.stderr.write = (chunk: string | Uint8Array) => logged.push(String(chunk)) > 0;
    try {
      const err = new TypeError('x is undefined at 10.0.0.1');
      const status = failureStatus(err, 'where');
      expect(status).to.deep.include({ code: 500, reason: 'InternalError' });
      expect(upstreamFailureReason(err), "not the cluster's failure: not counted").to.equal(undefined);
      expect(status.message).to.not.include('10.0.0.1');
    } finally {
      process.stderr.write = write;
    }
    expect(logged.join('')).to.match(/^where: TypeError: x is undefined at 10\.0\.0\.1/);
  });

  it("an error answer: the cluster's Status in the tenant's terms, or one saying what failed", () => {
    const upstream = {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: 'pods "web" not found',
      reason: 'NotFound',
      details: { name: 'web', kind: 'pods' },
      code: 404,
    };
    expect(upstreamErrorStatus(ctx, 404, JSON.stringify(upstream), 'listing failed')).to.deep.equal(upstream);
    const ns = { ...upstream, message: 'namespaces "aaaaaa-dev" not found', details: { name: 'aaaaaa-dev' } };
    expect(upstreamErrorStatus(ctx, 404, JSON.stringify(ns), 'listing failed')).to.deep.include({
      message: 'namespaces "dev" not found',
      details: { name: 'dev' },
    });
    for (const body of ['<html>Bad Gateway</html>', '{"items":[{"metadata":{"name":"bbbbbb-x"}}]}', ''])
      expect(upstreamErrorStatus(ctx, 502, body, 'listing failed'), body).to.deep.include({
        code: 502,
        reason: 'InternalError',
        message: 'listing failed',
      });
  });

  it('an upgrade refused on the raw socket carries Retry-After, as any other answer does', () => {
    const socket = new PassThrough();
    let written = '';
    socket.on('data', (chunk: Buffer) => (written += chunk.toString()));
    refuseUpgrade(socket, failureStatus(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }), 'test'));
    expect(written).to.match(/^HTTP\/1\.1 503 ServiceUnavailable\r\n/);
    expect(written).to.include('\r\nRetry-After: 1\r\n');
  });
});
