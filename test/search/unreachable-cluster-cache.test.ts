/**
 * A cluster that cannot be reached keeps its cache. The cache is planned from the clusters'
 * discovery; once a down cluster's discovery is stale (30 s, or a CRD changed) it cannot be read
 * again, and the plan must go on from what the cluster last served. Otherwise every resource
 * only it knows stops resolving at the next plan, and its stores are dropped while it is still
 * Ready: the search cache loses its objects, and the failover replay, which keeps the stores of
 * a cluster once it turns not Ready, has nothing left to keep.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { waitUntil } from '../support/eventually.js';
import { makeTempDir } from '../support/temp-dir.js';
import { TcpRelay } from '../support/tcp-relay.js';

const REGISTRIES = '/apis/search.karmada.io/v1alpha1/resourceregistries';
const SEARCH_CONFIGMAPS = '/apis/search.karmada.io/v1alpha1/search/cache/api/v1/configmaps';
const SEARCH_SECRETS = '/apis/search.karmada.io/v1alpha1/search/cache/api/v1/secrets';

const registry = (name: string, kind: string) => ({
  apiVersion: 'search.karmada.io/v1alpha1',
  kind: 'ResourceRegistry',
  metadata: { name },
  spec: { targetCluster: {}, resourceSelectors: [{ apiVersion: 'v1', kind }] },
});

describe('cache: a cluster that cannot be reached keeps its stores while it is Ready', function () {
  this.timeout(90_000);
  let work: { dir: string; remove(): Promise<void> };
  let member: DevCluster;
  let relay: TcpRelay;
  let gateway: Gateway;
  let admin: ApiClient;

  before(async () => {
    work = await makeTempDir('unreachable-cache');
    member = await startDevCluster({ name: 'member1', listen: '127.0.0.1:0', dataDir: `${work.dir}/member1` });
    relay = new TcpRelay(Number(new URL(member.url).port));
    await relay.start();
    const kubeconfig = (await readFile(member.kubeconfigPath, 'utf8')).replace(
      /server: .*/,
      `server: https://127.0.0.1:${relay.port}`,
    );
    gateway = await startGateway({
      listen: '127.0.0.1:0',
      dataDir: `${work.dir}/gateway`,
      upstreams: [{ name: 'member1', kubeconfig }],
      // Ready stays True through the test: the failure threshold (30 s) is not reached.
      clusterStatusUpdateFrequencyMs: 300,
      tenantCache: '',
    });
    admin = await ApiClient.load(gateway.adminKubeconfigPath);
    await waitUntil('member1 is Ready', async () => {
      const res = await admin.request('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member1');
      return res.body?.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');
    });
  });

  after(async () => {
    admin?.close();
    await gateway?.stop();
    await relay?.stop();
    await member?.stop();
    await work?.remove();
  });

  it('plans from its last discovery: the cached objects stay searchable and a new registry resolves', async () => {
    const made = await admin.request('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'kept' },
      data: { a: '1' },
    });
    expect(made.status, made.text).to.equal(201);
    expect((await admin.request('POST', REGISTRIES, registry('configmaps', 'ConfigMap'))).status).to.equal(201);
    const searched = async () => {
      const res = await admin.request('GET', `${SEARCH_CONFIGMAPS}?resourceVersion=0`);
      return { status: res.status, names: (res.body?.items ?? []).map((cm: any) => cm.metadata.name) as string[] };
    };
    await waitUntil('the ConfigMap is cached', async () => (await searched()).names.includes('kept'));

    await relay.stop();
    // The discovery is stale, as 30 s or a CRD change would leave it, and cannot be read again.
    gateway.clusters.get('member1')!.connection.invalidate();
    // A change of the registries plans the cache again.
    expect((await admin.request('POST', REGISTRIES, registry('secrets', 'Secret'))).status).to.equal(201);
    // Searching a resource no registry resolves to is refused (400) until the plan has it.
    await waitUntil('the Secret registry is planned', async () => {
      const res = await admin.request('GET', `${SEARCH_SECRETS}?resourceVersion=0`);
      return res.status !== 400;
    });
    const after = await searched();
    expect(after.status).to.equal(200);
    expect(after.names).to.include('kept');
    const cluster = await admin.request('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member1');
    expect(
      cluster.body.status.conditions.find((c: any) => c.type === 'Ready').status,
      'still within its failure threshold',
    ).to.equal('True');
  });
});
