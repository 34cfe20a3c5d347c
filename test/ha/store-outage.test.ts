/**
 * The store goes away and comes back (docs/operations.md, "Faults"): with etcd killed, a replica
 * goes on serving from what it holds in memory — tenants authenticate from the roster and their
 * requests reach their cluster — while reads and writes of the gateway's own objects are refused
 * at once with 503 ServiceUnavailable and Retry-After; etcd restarted on its data, admin writes
 * work again, the controllers too, and what was acknowledged before is all there.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { startEtcd, type EtcdServer } from '../support/etcd-server.js';
import { eventually } from '../support/eventually.js';
import { makeTempDir } from '../support/temp-dir.js';
import { createActiveTenant } from '../support/tenants.js';

const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';

describe('ha: the store restarted under a serving replica', function () {
  this.timeout(120_000);
  let etcd: EtcdServer;
  let upstream: DevCluster;
  let gateway: Gateway;
  let admin: ApiClient;
  let tenant: ApiClient;
  let work: { dir: string; remove(): Promise<void> };

  before(async () => {
    work = await makeTempDir('store-outage');
    etcd = await startEtcd();
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: `${work.dir}/member1` });
    gateway = await startGateway({
      listen: '127.0.0.1:0',
      dataDir: `${work.dir}/gateway`,
      etcdEndpoints: [etcd.endpoint],
      upstreams: [{ name: 'member1', kubeconfig: await readFile(upstream.kubeconfigPath, 'utf8') }],
    });
    admin = await ApiClient.load(gateway.adminKubeconfigPath);
    const { kubeconfigPath } = await createActiveTenant(admin, 'outage', work.dir);
    tenant = await ApiClient.load(kubeconfigPath);
  });
  after(async () => {
    tenant?.close();
    admin?.close();
    await gateway?.stop();
    await upstream?.stop();
    await etcd?.stop();
    await work?.remove();
  });

  it('serves tenants without etcd, refuses reads and writes of its own objects with 503 and Retry-After, and recovers when etcd is back', async () => {
    const before = await admin.request('POST', TENANTS, {
      apiVersion: 'tenant.kubezoo.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name: 'acked1' },
    });
    expect(before.status, before.text).to.equal(201);

    await etcd.kill('SIGKILL');

    const made = await tenant.request('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'during' },
    });
    expect(made.status, 'a tenant write goes to its cluster').to.equal(201);
    const read = await tenant.request('GET', '/api/v1/namespaces/default/configmaps/during');
    expect(read.status).to.equal(200);
    // A read of the gateway's own objects is a quorum read, as kube-apiserver's list without a resourceVersion: refused too.
    const listed = await admin.request('GET', TENANTS);
    expect([listed.status, listed.body?.reason, listed.headers['retry-after']]).to.deep.equal([
      503,
      'ServiceUnavailable',
      '1',
    ]);

    const refused = await admin.request('POST', TENANTS, {
      apiVersion: 'tenant.kubezoo.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name: 'during' },
    });
    expect([refused.status, refused.body?.reason, refused.headers['retry-after']], refused.text).to.deep.equal([
      503,
      'ServiceUnavailable',
      '1',
    ]);
    expect(refused.body?.message).to.match(/^storage is unavailable: /);

    await etcd.start();
    await eventually(
      async () =>
        (
          await admin.request('POST', TENANTS, {
            apiVersion: 'tenant.kubezoo.io/v1alpha1',
            kind: 'Tenant',
            metadata: { name: 'after1' },
          })
        ).status,
      (status) => expect(status).to.be.oneOf([201, 409]),
      30_000,
    );
    const names = (await admin.request('GET', TENANTS)).body.items.map(
      (t: { metadata: { name: string } }) => t.metadata.name,
    );
    expect(names).to.include.members(['acked1', 'outage', 'after1']);
    expect(names, 'the refused write was not made').to.not.include('during');
    // The controllers are back too: the new tenant is made Active.
    await eventually(
      async () => (await admin.request('GET', `${TENANTS}/after1`)).body?.status?.phase,
      (phase) => expect(phase).to.equal('Active'),
      30_000,
    );
  });
});
