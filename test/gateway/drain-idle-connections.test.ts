/**
 * How long the gateway and the devcluster keep an idle connection (kube-apiserver's 90 s,
 * apiserver/listening.ts), and a replica's drain and the keep-alive connections idle when it
 * starts (server-drain.ts): a
 * client sending its next request just after the listener closed is answered, with
 * `Connection: close`, rather than finding its connection cut under the request (a writer behind
 * HAProxy between two creates got a hang-up for a POST the replica never read).
 */
import { expect } from 'chai';
import type { Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { sleep } from '../support/eventually.js';
import { startStage, type Stage } from '../support/stage.js';

describe('gateway: a drain and the connections idle when it starts', function () {
  this.timeout(60_000);
  let stage: Stage;
  let gateway: Gateway;
  let admin: ApiClient;

  before(async () => {
    stage = await startStage('drain-idle', { gateway: { shutdownTimeoutMs: 10_000 } });
    ({ gateway, admin } = stage);
  });
  after(async () => {
    await stage?.stop();
  });

  it('keeps an idle connection 90 s, as kube-apiserver does, and says so to the clients that read Keep-Alive', async () => {
    const upstream = RestClient.fromKubeconfig(stage.upstreamKubeconfig);
    try {
      for (const [server, client] of [
        ['gateway', admin],
        ['devcluster', upstream],
      ] as const) {
        const answer = await client.request('GET', '/version');
        expect(answer.status, server).to.equal(200);
        expect(answer.headers['keep-alive'], server).to.equal('timeout=90');
      }
    } finally {
      upstream.close();
    }
  });

  it('answers a request sent on an idle keep-alive connection after the listener closed, and closes the connection after it', async () => {
    const first = await admin.request('GET', '/version');
    expect(first.status).to.equal(200);
    expect(first.headers.connection).to.equal('keep-alive');
    const drained = gateway.drain();
    // Past the listener's close: a new connection would be refused now.
    await sleep(200);
    const next = await admin.request('GET', '/version');
    expect(next.status, next.text).to.equal(200);
    expect(next.headers.connection).to.equal('close');
    await drained;
  });
});
