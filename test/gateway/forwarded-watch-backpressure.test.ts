/**
 * A forwarded watch (one the cache does not answer) whose client stops reading: the gateway stops
 * reading the cluster's stream for it (it awaits the tenant's socket draining), so what it holds
 * for that watcher stays within the sockets' buffers instead of growing with every event, while
 * another watcher of the same resource gets every event. The cached path's bound, where the
 * gateway ends such a watcher, is tested in tenant-cache-reads.test.ts. And a large event of
 * non-ASCII text comes through whole, whatever chunks the cluster's stream arrives in.
 */
import { expect } from 'chai';
import type { TLSSocket } from 'node:tls';
import type { Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { rawTlsRequest } from '../support/raw-tls-request.js';
import { startStage, type Stage } from '../support/stage.js';

const EVENTS = 64;
const WATCHES = [
  { what: 'in one namespace', path: '/api/v1/namespaces/default/configmaps?watch=1&labelSelector=bulk%3Done' },
  // Across namespaces: one upstream watch per tenant namespace (cross-namespace-watch.ts), sharing one drain.
  { what: 'across namespaces', path: '/api/v1/configmaps?watch=1&labelSelector=bulk%3Dall' },
];

/** A counter's value on the gateway's /metrics; 0 before its first sample. */
async function counter(admin: ApiClient, sample: string): Promise<number> {
  const text = (await admin.request('GET', '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('gateway: a forwarded watch whose client stops reading', function () {
  this.timeout(120_000);
  let stage: Stage;
  let gateway: Gateway;
  let admin: ApiClient;
  let tenant: ApiClient;
  let kubeconfigPath: string;

  before(async () => {
    // Nothing cached for tenants: every watch is forwarded.
    stage = await startStage('forwarded-watch', { gateway: { tenantCache: '' } });
    ({ gateway, admin } = stage);
    ({ kubeconfigPath } = await stage.tenant('slowrd'));
    tenant = await ApiClient.load(kubeconfigPath);
  });

  after(async () => {
    tenant?.close();
    await stage?.stop();
  });

  for (const [n, { what, path }] of WATCHES.entries())
    it(`${what}: is read from the cluster only as fast as its client reads; the other watcher gets every event`, async () => {
      const label = new URLSearchParams(path.split('?')[1]).get('labelSelector')!.split('=')[1];
      const read = () => counter(admin, 'paddock_upstream_watch_events_total{cluster="member1"}');
      const reading = tenant.watch(path);
      let stalled: TLSSocket | undefined;
      try {
        stalled = await rawTlsRequest(
          kubeconfigPath,
          gateway.url,
          `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n\r\n`,
        );
        stalled.pause();
        await eventually(
          () => counter(admin, 'paddock_open_watches{identity="tenant"}'),
          (open) => expect(open).to.equal(2),
        );
        const before = await read();
        // 32 MiB of events, each 512 KiB.
        const data = 'x'.repeat(512 * 1024);
        for (let i = 0; i < EVENTS; i++) {
          const body = { metadata: { name: `bulk-${n}-${i}`, labels: { bulk: label } }, data: { data } };
          const created = await tenant.request('POST', '/api/v1/namespaces/default/configmaps', body);
          expect(created.status, created.text).to.equal(201);
        }
        await reading.waitFor((events) => events.filter((e) => e.type === 'ADDED').length === EVENTS);
        expect(reading.events.map((e) => e.object.metadata.name)).to.deep.equal(
          Array.from({ length: EVENTS }, (_, i) => `bulk-${n}-${i}`),
        );
        const readForStalled = (await read()) - before - EVENTS;
        expect(readForStalled, 'events read from the cluster for the watcher that reads nothing').to.be.below(EVENTS);
      } finally {
        stalled?.destroy();
        reading.close();
      }
      // Its hang-up ends its upstream watch too.
      await eventually(
        () => counter(admin, 'paddock_open_watches{identity="tenant"}'),
        (open) => expect(open).to.equal(0),
      );
    });

  it('a large event of non-ASCII text arrives as written: no character cut by a chunk of the upstream stream is lost', async () => {
    // 2-, 3- and 4-byte characters over 600 KB: dozens of chunk ends, most of them inside one.
    const data = 'é€😀'.repeat(60_000);
    const reading = tenant.watch('/api/v1/namespaces/default/configmaps?watch=1&labelSelector=text%3Dwide');
    try {
      await eventually(
        () => counter(admin, 'paddock_open_watches{identity="tenant"}'),
        (open) => expect(open).to.equal(1),
      );
      const body = { metadata: { name: 'wide', labels: { text: 'wide' } }, data: { data } };
      const created = await tenant.request('POST', '/api/v1/namespaces/default/configmaps', body);
      expect(created.status, created.text).to.equal(201);
      await reading.waitFor((events) => events.some((e) => e.type === 'ADDED'));
      const event = reading.events.find((e) => e.type === 'ADDED')!;
      expect(event.object.data.data === data, 'the event carries the text as written').to.equal(true);
    } finally {
      reading.close();
    }
  });
});
