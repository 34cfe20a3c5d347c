/**
 * One cluster goes down (docs/operations.md, "Faults"): its tenants get 503 ServiceUnavailable
 * with Retry-After (the cluster cannot be reached) for as long as it is down, while the tenants of
 * the other cluster read and write as before, through the same replica.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { makeTempDir } from '../support/temp-dir.js';
import { createActiveTenant } from '../support/tenants.js';

const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';

describe('ha: one cluster down, the others unaffected', function () {
  this.timeout(120_000);
  const members = new Map<string, DevCluster>();
  let gateway: Gateway;
  let admin: ApiClient;
  const tenants = new Map<string, ApiClient>();
  let work: { dir: string; remove(): Promise<void> };

  before(async () => {
    work = await makeTempDir('cluster-outage');
    for (const name of ['member1', 'member2'])
      members.set(name, await startDevCluster({ name, listen: '127.0.0.1:0', dataDir: `${work.dir}/${name}` }));
    gateway = await startGateway({
      listen: '127.0.0.1:0',
      dataDir: `${work.dir}/gateway`,
      upstreams: await Promise.all(
        [...members].map(async ([name, m]) => ({ name, kubeconfig: await readFile(m.kubeconfigPath, 'utf8') })),
      ),
    });
    admin = await ApiClient.load(gateway.adminKubeconfigPath);
    // Fewest tenants first, by name on a tie: one on each cluster.
    for (const id of ['down01', 'up0001']) {
      const { kubeconfigPath } = await createActiveTenant(admin, id, work.dir);
      tenants.set(id, await ApiClient.load(kubeconfigPath));
    }
  });
  after(async () => {
    for (const client of tenants.values()) client.close();
    admin?.close();
    await gateway?.stop();
    for (const member of members.values()) await member.stop();
    await work?.remove();
  });

  it("answers its tenants 503 with Retry-After while the other cluster's tenants read and write as before", async () => {
    const clusterOf = async (id: string) => (await admin.request('GET', `${TENANTS}/${id}`)).body?.status?.cluster;
    expect([await clusterOf('down01'), await clusterOf('up0001')]).to.deep.equal(['member1', 'member2']);
    const down = tenants.get('down01')!;
    const up = tenants.get('up0001')!;

    await members.get('member1')!.stop();

    for (const [method, path, body] of [
      ['GET', '/api/v1/namespaces/default/configmaps', undefined],
      ['POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'x' } }],
    ] as const) {
      const res = await down.request(method, path, body);
      expect([res.status, res.body?.reason, res.headers['retry-after']], `${method} ${res.text}`).to.deep.equal([
        503,
        'ServiceUnavailable',
        '1',
      ]);
      expect(res.text, 'no cluster name in what a tenant reads').to.not.include('member1');
    }
    const made = await up.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'fine' } });
    expect(made.status, made.text).to.equal(201);
    const listed = await up.request('GET', '/api/v1/namespaces/default/configmaps');
    expect(listed.status).to.equal(200);
    expect(listed.body.items.map((cm: { metadata: { name: string } }) => cm.metadata.name)).to.include('fine');
  });
});
