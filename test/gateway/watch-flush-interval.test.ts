/**
 * `--watch-flush-interval`: a shared tenant watch writes a quiet set's event at once and holds a
 * busy set's events until the interval after its last write has passed, then writes them
 * together. Seen from a raw TLS client: every socket write arrives as its own TLS record, so
 * events written together arrive in one read.
 */
import { expect } from 'chai';
import type { Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { sleep, waitUntil } from '../support/eventually.js';
import { rawTlsRequest } from '../support/raw-tls-request.js';
import { startStage, type Stage } from '../support/stage.js';

const FLUSH_MS = 3000;

describe('gateway: a shared watch with --watch-flush-interval (a devcluster, one gateway)', function () {
  this.timeout(60_000);
  let gateway: Gateway;
  let admin: ApiClient;
  let tenant: ApiClient;
  let kubeconfigPath: string;
  let stage: Stage;

  before(async () => {
    stage = await startStage('watch-flush', { gateway: { tenantCache: 'configmaps', watchFlushIntervalMs: FLUSH_MS } });
    ({ gateway, admin } = stage);
    ({ kubeconfigPath } = await stage.tenant('flush1'));
    tenant = await ApiClient.load(kubeconfigPath);
    await waitUntil(
      'the gateway caches configmaps',
      async () =>
        /paddock_cache_objects\{cluster="member1",resource="configmaps"\}/.test(
          (await admin.request('GET', '/metrics')).text,
        ),
      { timeout: 30_000, interval: 100 },
    );
  });

  after(async () => {
    tenant?.close();
    await stage?.stop();
  });

  it("writes a quiet set's event at once, and the events within the interval after it together", async () => {
    const list = await tenant.request('GET', '/api/v1/namespaces/default/configmaps');
    expect(list.status, list.text).to.equal(200);
    const from = (JSON.parse(list.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const socket = await rawTlsRequest(
      kubeconfigPath,
      gateway.url,
      `GET /api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${from} HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    );
    const reads: string[] = [];
    socket.setEncoding('utf8').on('data', (text: string) => reads.push(text));
    const readWith = (name: string) => reads.findIndex((text) => text.includes(`"name":"${name}"`));
    const create = async (name: string) => {
      const created = await tenant.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name } });
      expect(created.status, created.text).to.equal(201);
    };
    try {
      await waitUntil('the answer head', async () => reads.join('').includes('\r\n\r\n'), {
        timeout: 10_000,
        interval: 20,
      });
      await create('first');
      await waitUntil('the first event', async () => readWith('first') >= 0, { timeout: 10_000, interval: 20 });
      // Each written well apart, all within the interval after the first event's write.
      for (const name of ['second', 'third', 'fourth']) {
        await sleep(300);
        await create(name);
      }
      expect(readWith('second'), 'held until the interval has passed').to.equal(-1);
      await waitUntil('the held events', async () => readWith('fourth') >= 0, { timeout: 10_000, interval: 20 });
      const first = readWith('first');
      expect(reads[first]).not.to.include('"name":"second"');
      expect([readWith('second'), readWith('third')], 'one write, one TLS record, one read').to.deep.equal([
        readWith('fourth'),
        readWith('fourth'),
      ]);
      const held = reads[readWith('fourth')]
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map(
          (line) => (JSON.parse(line) as { type: string; object: { metadata: { name: string } } }).object.metadata.name,
        );
      expect(held).to.deep.equal(['second', 'third', 'fourth']);
    } finally {
      socket.destroy();
    }
  });
});
