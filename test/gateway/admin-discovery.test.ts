/**
 * The admin's discovery when the default cluster cannot answer: hung (its answers stalled), down
 * (connections refused), or never reached since the gateway started. The gateway's own groups are
 * always served; the cluster's come from the last good copy, or are left out; kubectl keeps
 * working on the gateway's kinds, and `kubectl describe` of them does not wait on the cluster.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { aggregatedDiscoveryContentType } from '../../apiserver/discovery/aggregated.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { freePort } from '../support/free-port.js';
import { Kubectl } from '../support/kubectl.js';
import { TcpRelay } from '../support/tcp-relay.js';
import { makeTempDir } from '../support/temp-dir.js';

const AGGREGATED = { Accept: aggregatedDiscoveryContentType('v2') };

describe("gateway: the admin's discovery without its default cluster", function () {
  this.timeout(120_000);
  let work: { dir: string; remove(): Promise<void> };
  let upstream: DevCluster;
  let relay: TcpRelay;
  let gateway: Gateway;
  let admin: ApiClient;
  const kubectls: Kubectl[] = [];
  /** kubectl with nothing cached, so it reads discovery from the gateway. */
  const freshKubectl = async (kubeconfig: string) => {
    const kubectl = await Kubectl.create(kubeconfig);
    kubectls.push(kubectl);
    return kubectl;
  };
  /** The groups of aggregated discovery, the core group as '' (kube leaves its name out). */
  const groupsOf = async (client: ApiClient, path: '/api' | '/apis') =>
    ((await client.request('GET', path, undefined, AGGREGATED)).body.items as { metadata: { name?: string } }[]).map(
      (g) => g.metadata.name ?? '',
    );

  /** The upstream's kubeconfig with its server at another loopback port (the relay's, or one nothing listens on). */
  const upstreamAt = async (port: number) =>
    (await readFile(upstream.kubeconfigPath, 'utf8')).replace(/server: .*/, `server: https://127.0.0.1:${port}`);

  before(async () => {
    work = await makeTempDir('admin-discovery');
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: `${work.dir}/upstream` });
    relay = new TcpRelay(Number(new URL(upstream.url).port));
    await relay.start();
    gateway = await startGateway({
      listen: '127.0.0.1:0',
      dataDir: `${work.dir}/gateway`,
      upstreams: [{ name: 'member1', kubeconfig: await upstreamAt(relay.port) }],
      upstreamTimeoutMs: 1000,
    });
    admin = await ApiClient.load(gateway.adminKubeconfigPath);
  });

  after(async () => {
    admin?.close();
    for (const kubectl of kubectls) await kubectl.dispose();
    await gateway?.stop();
    await relay?.stop();
    await upstream?.stop();
    await work?.remove();
  });

  it("merges the cluster's groups with the gateway's while the cluster answers", async () => {
    expect(await groupsOf(admin, '/api')).to.deep.equal(['']);
    expect(await groupsOf(admin, '/apis')).to.include.members(['apps', 'tenant.kubezoo.io', 'cluster.karmada.io']);
    expect((await admin.request('GET', '/apis/apps/v1')).body.resources.map((r: any) => r.name)).to.include(
      'deployments',
    );
  });

  it('serves the last good copy while the cluster hangs, and a request to it fails with Retry-After', async () => {
    relay.stall();
    relay.dropConnections();
    try {
      const kubectl = await freshKubectl(gateway.adminKubeconfigPath);
      expect(await kubectl.ok(['get', 'clusters', '-o', 'name'])).to.equal('cluster.cluster.karmada.io/member1\n');
      const names = (await kubectl.ok(['api-resources', '-o', 'name'])).split('\n');
      expect(names).to.include.members(['pods', 'deployments.apps', 'tenants.tenant.kubezoo.io']);
      const pods = await admin.request('GET', '/api/v1/namespaces/default/pods');
      // Its connections were cut, and a new one never gets through the TLS handshake.
      expect(pods.status).to.equal(503);
      expect(pods.headers['retry-after']).to.equal('1');
      expect(pods.body.message).to.equal('the default cluster member1 is unreachable');
    } finally {
      relay.resume();
    }
  });

  it('serves the last good copy of a group version while the cluster is down, and 503 for one never read', async () => {
    await relay.stop();
    const apps = await admin.request('GET', '/apis/apps/v1');
    expect(apps.status).to.equal(200);
    expect(apps.body.resources.map((r: any) => r.name)).to.include('deployments');
    const batch = await admin.request('GET', '/apis/batch/v1');
    expect(batch.status).to.equal(503);
    expect(batch.headers['retry-after']).to.equal('1');
    expect(batch.body).to.include({
      reason: 'ServiceUnavailable',
      message: 'the default cluster member1 is unavailable',
    });
    expect(await groupsOf(admin, '/apis')).to.include.members(['apps', 'tenant.kubezoo.io']);
  });

  describe('a gateway whose default cluster was never reached', () => {
    let lonely: Gateway;
    let lonelyAdmin: ApiClient;

    before(async () => {
      lonely = await startGateway({
        listen: '127.0.0.1:0',
        dataDir: `${work.dir}/lonely`,
        upstreams: [{ name: 'member1', kubeconfig: await upstreamAt(await freePort()) }],
        upstreamTimeoutMs: 1000,
      });
      lonelyAdmin = await ApiClient.load(lonely.adminKubeconfigPath);
    });

    after(async () => {
      lonelyAdmin?.close();
      await lonely?.stop();
    });

    it("leaves the cluster's groups out and serves the gateway's", async () => {
      expect(await groupsOf(lonelyAdmin, '/api')).to.deep.equal([]);
      expect((await lonelyAdmin.request('GET', '/api')).body).to.deep.include({ kind: 'APIVersions', versions: [] });
      expect(await groupsOf(lonelyAdmin, '/apis')).to.have.members([
        'tenant.kubezoo.io',
        'cluster.karmada.io',
        'search.karmada.io',
        'authentication.k8s.io',
      ]);
      const kubectl = await freshKubectl(lonely.adminKubeconfigPath);
      const names = (await kubectl.ok(['api-resources', '-o', 'name'])).split('\n').filter(Boolean);
      expect(names).to.include('clusters.cluster.karmada.io').and.not.to.include('pods');
      expect(await kubectl.ok(['get', 'tenants'])).to.equal('');
    });

    it("answers describe's Events of the gateway's own objects itself, and passes any other list on", async () => {
      const kubectl = await freshKubectl(lonely.adminKubeconfigPath);
      const described = await kubectl.ok(['describe', 'cluster', 'member1']);
      expect(described)
        .to.match(/^Name:\s+member1$/m)
        .and.to.match(/^Events:\s+<none>$/m);
      const uid = (await lonelyAdmin.request('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member1')).body.metadata
        .uid;
      const events = (selectedUid: string) =>
        lonelyAdmin.request(
          'GET',
          `/api/v1/events?fieldSelector=${encodeURIComponent(
            `involvedObject.name=member1,involvedObject.namespace=,involvedObject.kind=Cluster,involvedObject.uid=${selectedUid}`,
          )}`,
        );
      const own = await events(uid);
      expect(own.status).to.equal(200);
      expect(own.body).to.deep.include({ kind: 'EventList', apiVersion: 'v1', items: [] });
      expect((await events('another-uid')).status, 'not the gateway’s object: the cluster’s to answer').to.equal(503);
    });
  });
});
