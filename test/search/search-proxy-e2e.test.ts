/**
 * karmada-search's proxy and search API served by the gateway over three devclusters, with the
 * real kubectl pointed at the proxy path as Karmada's users do: lists across clusters in
 * cluster order, paging, selectors, watches, an ambiguous get, a write that reaches the cluster
 * holding the object, a create refused as Karmada refuses it, and a cluster leaving and coming
 * back while a watch is open.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { MultiClusterResourceVersion } from '../../search/multi-cluster-resource-version.js';
import { ApiClient } from '../support/api-client.js';
import { waitUntil } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';
import { createActiveTenant } from '../support/tenants.js';

const MEMBERS = ['member1', 'member2', 'member3'] as const;
const ANNOTATION = 'resource.karmada.io/cached-from-cluster';
/** The pods each cluster holds: `shared` is in two clusters, which makes a get of it ambiguous. */
const PODS: Record<(typeof MEMBERS)[number], [string, string][]> = {
  member1: [
    ['p1-a', 'web'],
    ['p1-b', 'db'],
    ['shared', 'web'],
  ],
  member2: [['p2-a', 'web']],
  member3: [
    ['p3-a', 'db'],
    ['shared', 'db'],
  ],
};
const REGISTRY = `apiVersion: search.karmada.io/v1alpha1
kind: ResourceRegistry
metadata:
  name: pods
spec:
  targetCluster:
    clusterNames: [member1, member2, member3]
  resourceSelectors:
  - apiVersion: v1
    kind: Pod
`;

const pod = (name: string, app: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app } },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

interface Listed {
  metadata: { resourceVersion: string };
  items: { metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> } }[];
}
const placed = (list: Listed) =>
  list.items.map((item) => `${item.metadata.annotations?.[ANNOTATION]}/${item.metadata.name}`);

describe('cache: the search proxy and search API over three devclusters, with kubectl', function () {
  this.timeout(120_000);
  let remove: () => Promise<void>;
  let tempDir: string;
  const members = new Map<string, DevCluster>();
  const direct = new Map<string, ApiClient>();
  let gateway: Gateway;
  let admin: Kubectl;
  let api: ApiClient;
  let proxy: string;
  /** kubectl through the proxy path, with the admin's credentials. */
  const viaProxy = (args: string[], input?: string) => admin.run(['--server', proxy, ...args], input);
  const listAll = async (...args: string[]): Promise<Listed> =>
    JSON.parse(await admin.ok(['--server', proxy, 'get', 'pods', '-A', '-o', 'json', ...args]));

  before(async () => {
    const temp = await makeTempDir('search-proxy');
    remove = temp.remove;
    tempDir = temp.dir;
    const upstreams = [];
    for (const name of MEMBERS) {
      const member = await startDevCluster({ name, listen: '127.0.0.1:0', dataDir: `${temp.dir}/${name}` });
      members.set(name, member);
      direct.set(name, await ApiClient.load(member.kubeconfigPath));
      upstreams.push({ name, kubeconfig: await readFile(member.kubeconfigPath, 'utf8') });
      for (const [podName, app] of PODS[name]) {
        const res = await direct.get(name)!.request('POST', '/api/v1/namespaces/default/pods', pod(podName, app));
        expect(res.status, res.text).to.equal(201);
      }
    }
    gateway = await startGateway({
      listen: '127.0.0.1:0',
      dataDir: `${temp.dir}/gateway`,
      upstreams,
      clusterStatusUpdateFrequencyMs: 300,
    });
    proxy = `${gateway.url}/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy`;
    admin = await Kubectl.create(gateway.adminKubeconfigPath);
    api = await ApiClient.load(gateway.adminKubeconfigPath);
    await waitUntil('the three clusters are Ready', async () => {
      const clusters = JSON.parse(await admin.ok(['get', 'clusters', '-o', 'json']));
      return (
        clusters.items.filter((c: any) =>
          c.status?.conditions?.some((k: any) => k.type === 'Ready' && k.status === 'True'),
        ).length === 3
      );
    });
    await admin.ok(['apply', '-f', '-'], REGISTRY);
    await waitUntil('the cache holds every pod', async () => (await listAll()).items.length === 6, {
      timeout: 30_000,
    });
  });

  after(async () => {
    api?.close();
    await admin?.dispose();
    await gateway?.stop();
    for (const client of direct.values()) client.close();
    for (const member of members.values()) await member.stop();
    await remove?.();
  });

  it('lists pods across clusters, clusters in name order, each item naming its cluster, with the multi-cluster resourceVersion', async () => {
    const list = await listAll();
    expect(placed(list)).to.deep.equal([
      'member1/p1-a',
      'member1/p1-b',
      'member1/shared',
      'member2/p2-a',
      'member3/p3-a',
      'member3/shared',
    ]);
    // kubectl prints lists without their resourceVersion: the list as the proxy answers it has the multi-cluster one.
    const answered = await api.request('GET', `${proxy.slice(gateway.url.length)}/api/v1/pods`);
    const version = MultiClusterResourceVersion.parse(answered.body.metadata.resourceVersion);
    expect(version.entries().map(([cluster]) => cluster)).to.deep.equal([...MEMBERS]);
  });

  it('pages with --chunk-size: the same list, fetched in several requests with continue tokens', async () => {
    const paged = await viaProxy(['get', 'pods', '-A', '-o', 'json', '--chunk-size=2', '-v=6']);
    expect(paged.code, paged.stderr).to.equal(0);
    expect(placed(JSON.parse(paged.stdout))).to.deep.equal(placed(await listAll()));
    const requests = paged.stderr.split('\n').filter((line) => /GET https:\S+\/pods\?\S*limit=2/.test(line));
    expect(requests.length, paged.stderr).to.equal(3);
    expect(requests.filter((line) => line.includes('continue='))).to.have.length(2);
  });

  it('selects by label from memory', async () => {
    expect(placed(await listAll('-l', 'app=web'))).to.deep.equal(['member1/p1-a', 'member1/shared', 'member2/p2-a']);
    expect(placed(await listAll('-l', 'app in (db),app!=web'))).to.deep.equal([
      'member1/p1-b',
      'member3/p3-a',
      'member3/shared',
    ]);
  });

  it('gets one pod with its cluster, and refuses an ambiguous name with 409 naming the clusters in order', async () => {
    const one = JSON.parse(await admin.ok(['--server', proxy, 'get', 'pod', 'p2-a', '-n', 'default', '-o', 'json']));
    expect(one.metadata.annotations[ANNOTATION]).to.equal('member2');
    expect(
      MultiClusterResourceVersion.parse(one.metadata.resourceVersion)
        .entries()
        .map(([c]) => c),
    ).to.deep.equal(['member2']);
    const ambiguous = await viaProxy(['get', 'pod', 'shared', '-n', 'default']);
    expect(ambiguous.code).to.not.equal(0);
    expect(ambiguous.stderr).to.include(
      'Error from server (Conflict): Operation cannot be fulfilled on pods "shared": ambiguous objects in clusters [member1, member3]',
    );
  });

  it('sends a write to the cluster that holds the object, and refuses a create as Karmada does (405)', async () => {
    await admin.ok(['--server', proxy, 'label', 'pod', 'p2-a', '-n', 'default', 'tier=front']);
    const res = await direct.get('member2')!.request('GET', '/api/v1/namespaces/default/pods/p2-a');
    expect(res.body.metadata.labels).to.deep.include({ app: 'web', tier: 'front' });
    expect(res.body.metadata.annotations?.[ANNOTATION], 'the cache annotation never reaches the cluster').to.equal(
      undefined,
    );
    // An update of what a read through the proxy returned: the cluster gets its own resourceVersion back.
    const got = JSON.parse(await admin.ok(['--server', proxy, 'get', 'pod', 'p1-b', '-n', 'default', '-o', 'json']));
    got.metadata.labels.edited = 'yes';
    await admin.ok(['--server', proxy, 'replace', '-f', '-'], JSON.stringify(got));
    const replaced = await direct.get('member1')!.request('GET', '/api/v1/namespaces/default/pods/p1-b');
    expect(replaced.body.metadata.labels.edited).to.equal('yes');
    expect(replaced.body.metadata.annotations?.[ANNOTATION]).to.equal(undefined);

    const created = await viaProxy(
      ['create', '-f', '-'],
      JSON.stringify({ ...pod('new', 'web'), metadata: { name: 'new', namespace: 'default' } }),
    );
    expect(created.code).to.not.equal(0);
    expect(created.stderr, created.stderr).to.include(
      'Error from server (MethodNotAllowed): error when creating "STDIN": create is not supported on resources of kind "pods"',
    );
  });

  it('runs exec and logs through the proxy on the cluster that holds the pod', async () => {
    const said = await admin.ok(['--server', proxy, 'exec', 'p3-a', '-n', 'default', '--', 'echo', 'from-member3']);
    expect(said.trim()).to.equal('from-member3');
    const logs = await viaProxy(['logs', 'p2-a', '-n', 'default']);
    expect(logs.code, logs.stderr).to.equal(0);
    const direct2 = await direct.get('member2')!.request('GET', '/api/v1/namespaces/default/pods/p2-a/log');
    expect(logs.stdout).to.equal(direct2.text);
    const ambiguous = await viaProxy(['exec', 'shared', '-n', 'default', '--', 'true']);
    expect(ambiguous.stderr).to.include('ambiguous objects in clusters [member1, member3]');
  });

  it("refuses tenants: the proxy, the search API and ResourceRegistries are the admin's", async () => {
    const tenant = await createActiveTenant(api, 'srchtn', tempDir);
    const kubectl = await Kubectl.create(tenant.kubeconfigPath);
    try {
      const viaTenant = await kubectl.run(['--server', proxy, 'get', 'pods', '-A']);
      expect(viaTenant.code).to.not.equal(0);
      expect(viaTenant.stderr, viaTenant.stderr).to.include('Error from server (Forbidden)');
      expect(viaTenant.stdout).to.not.match(/p1-a|p2-a|p3-a|shared/);
      const search = await kubectl.run(['get', '--raw', '/apis/search.karmada.io/v1alpha1/search/cache/api/v1/pods']);
      expect(search.stderr).to.include('Error from server (Forbidden)');
      expect(search.stdout).to.equal('');
      const registries = await kubectl.run(['get', 'resourceregistries']);
      expect(registries.code).to.not.equal(0);
      const exec = await kubectl.run(['--server', proxy, 'exec', 'p3-a', '-n', 'default', '--', 'echo', 'leak']);
      expect(exec.code).to.not.equal(0);
      expect(exec.stdout).to.not.include('leak');
    } finally {
      await kubectl.dispose();
    }
  });

  it('passes what the cache does not hold to the default cluster (discovery, other resources)', async () => {
    const namespaces = await admin.ok(['--server', proxy, 'get', 'namespaces', '-o', 'name']);
    expect(namespaces).to.include('namespace/kube-system');
    const resources = await admin.ok(['--server', proxy, 'api-resources', '--api-group=', '-o', 'name']);
    expect(resources.split('\n')).to.include('pods');
  });

  it("answers the search API: the cached objects of a resource by label, in Karmada's shape", async () => {
    const res = await api.request(
      'GET',
      '/apis/search.karmada.io/v1alpha1/search/cache/api/v1/pods?labelSelector=app%3Ddb',
    );
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ kind: 'PodList', apiVersion: 'v1' });
    expect(res.body.metadata).to.deep.equal({});
    expect(placed(res.body)).to.deep.equal(['member1/p1-b', 'member3/p3-a', 'member3/shared']);
    const byName = await api.request(
      'GET',
      '/apis/search.karmada.io/v1alpha1/search/cache/api/v1/namespaces/default/pods/shared',
    );
    expect(placed(byName.body), 'a name in two clusters is two items, no conflict').to.deep.equal([
      'member1/shared',
      'member3/shared',
    ]);
    const other = await api.request('GET', '/apis/search.karmada.io/v1alpha1/search/elastic/api/v1/pods');
    expect([other.status, other.body]).to.deep.equal([400, { error: 'unrecognized search category' }]);
  });

  it('reports per cluster and resource what it holds, and /readyz is ok once synced', async () => {
    const metrics = await api.request('GET', '/metrics');
    expect(metrics.text).to.match(/paddock_cache_objects\{cluster="member1",resource="pods"\} 3/);
    expect(metrics.text).to.match(/paddock_cache_objects\{cluster="member3",resource="pods"\} 2/);
    expect(metrics.text).to.match(/paddock_cache_object_bytes\{cluster="member2",resource="pods"\} [1-9]\d*/);
    const ready = await api.request('GET', '/readyz');
    expect([ready.status, ready.text]).to.deep.equal([200, 'ok']);
  });

  it('watches across clusters; a cluster removed ends the watch and its pods leave, added back they return', async () => {
    const watch = admin.start(['--server', proxy, 'get', 'pods', '-A', '-w', '-o', 'name', '--output-watch-events']);
    try {
      await watch.waitFor(/pod\/p3-a/);
      const res = await direct
        .get('member2')!
        .request('POST', '/api/v1/namespaces/default/pods', pod('p2-late', 'web'));
      expect(res.status, res.text).to.equal(201);
      await watch.waitFor(/pod\/p2-late/);
      const cluster = await admin.ok(['get', 'cluster', 'member3', '-o', 'json']);
      await admin.ok(['delete', 'cluster', 'member3']);
      await waitUntil('the watch ends with the cluster', () => watch.child.exitCode !== null, { timeout: 20_000 });
      await waitUntil('member3 has left the list', async () =>
        (await listAll()).items.every((item) => item.metadata.annotations?.[ANNOTATION] !== 'member3'),
      );
      const back = JSON.parse(cluster);
      delete back.metadata.resourceVersion;
      delete back.metadata.uid;
      delete back.metadata.creationTimestamp;
      delete back.status;
      await admin.ok(['apply', '-f', '-'], JSON.stringify(back));
      await waitUntil(
        "member3's pods are back",
        async () => placed(await listAll()).filter((p) => p.startsWith('member3/')).length === 2,
        { timeout: 30_000 },
      );
    } finally {
      await watch.stop();
    }
  });
});
