import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/gateway.js';
import { createActiveTenant } from '../support/tenants.js';
import { ApiClient } from '../support/api-client.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

const OTHER_TENANTS = 100;
const NAMESPACES_EACH = 4;
const OBJECTS_EACH = 3;

/** A metric's value for a label set, from the Prometheus text. */
function metric(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('gateway: a tenant\'s cross-namespace list among many tenants', function () {
  this.timeout(120_000);
  let upstream: DevCluster;
  let gateway: Gateway;
  let remove: (() => Promise<void>)[] = [];
  let tenant: Kubectl;
  let admin: ApiClient;

  before(async () => {
    const upstreamDir = await makeTempDir('fanout-upstream');
    const gatewayDir = await makeTempDir('fanout-gateway');
    remove = [upstreamDir.remove, gatewayDir.remove];
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: upstreamDir.dir });
    gateway = await startGateway({ listen: '127.0.0.1:0', dataDir: gatewayDir.dir, upstreams: [{ name: 'member1', kubeconfig: await readFile(upstream.kubeconfigPath, 'utf8') }] });
    // Other tenants' objects, laid out upstream as the gateway lays them out.
    const member = await ApiClient.load(upstream.kubeconfigPath);
    const work: Promise<unknown>[] = [];
    for (let t = 0; t < OTHER_TENANTS; t++) {
      const id = `o${String(t).padStart(5, '0')}`;
      work.push((async () => {
        for (let n = 0; n < NAMESPACES_EACH; n++) {
          const ns = `${id}-ns${n}`;
          await member.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { 'kubezoo.io/tenant': id } } });
          for (let o = 0; o < OBJECTS_EACH; o++) await member.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm${o}` } });
        }
      })());
      if (work.length >= 16) await Promise.all(work.splice(0));
    }
    await Promise.all(work);
    member.close();
    admin = await ApiClient.load(gateway.adminKubeconfigPath);
    const created = await createActiveTenant(admin, 'fanout', gatewayDir.dir);
    tenant = await Kubectl.create(created.kubeconfigPath);
    for (const ns of ['a', 'b', 'c']) {
      await tenant.ok(['apply', '-f', '-'], `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n`);
      for (const name of ['one', 'two']) await tenant.ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns } }));
    }
  });
  after(async () => {
    admin?.close();
    await tenant?.dispose();
    await gateway?.stop();
    await upstream?.stop();
    for (const r of remove) await r();
  });

  it('get configmaps -A reads only the tenant\'s namespaces upstream, not the whole cluster', async () => {
    const before = (await admin.request('GET', '/metrics')).text;
    const out = await tenant.ok(['get', 'configmaps', '-A', '-o', 'name']);
    const after = (await admin.request('GET', '/metrics')).text;
    expect(out.trim().split('\n').sort()).to.deep.equal(['configmap/one', 'configmap/one', 'configmap/one', 'configmap/two', 'configmap/two', 'configmap/two']);
    const read = metric(after, 'paddock_upstream_objects_read_total', 'cluster="member1"') - metric(before, 'paddock_upstream_objects_read_total', 'cluster="member1"');
    const lists = metric(after, 'paddock_upstream_request_duration_seconds_count', 'cluster="member1",verb="list"') - metric(before, 'paddock_upstream_request_duration_seconds_count', 'cluster="member1",verb="list"');
    const clusterObjects = OTHER_TENANTS * NAMESPACES_EACH * OBJECTS_EACH;
    // Seven namespaces (four defaults and a, b, c) and six ConfigMaps, against 1,200 of others'.
    expect(read, `objects read upstream (the cluster holds ${clusterObjects} of other tenants')`).to.equal(7 + 6);
    expect(lists, 'one list of the tenant\'s namespaces, then one per namespace').to.equal(1 + 7);
  });

  it('pages across namespaces with --chunk-size, every object once', async () => {
    const table = await tenant.ok(['get', 'configmaps', '-A', '--chunk-size', '1']);
    const rows = table.trim().split('\n').slice(1).map((line) => line.split(/\s+/).slice(0, 2).join('/'));
    expect(rows).to.deep.equal(['a/one', 'a/two', 'b/one', 'b/two', 'c/one', 'c/two']);
  });
});
