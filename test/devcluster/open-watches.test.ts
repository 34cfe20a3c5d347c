/**
 * The devcluster's `/metrics`: kube-apiserver's `apiserver_longrunning_requests`, up by exactly one
 * while a watch is open and down again however it ends (the client hangs up, the server's timeout),
 * readable only by whom RBAC lets `get` the nonResourceURL `/metrics`, and linted by promtool.
 */
import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { ApiClient, type WatchStream } from '../support/api-client.js';
import { eventually, waitUntil } from '../support/eventually.js';
import { samples } from '../support/metric-samples.js';
import { runPromtool } from '../support/promtool.js';
import { makeTempDir } from '../support/temp-dir.js';

const CONFIGMAP_WATCH = {
  verb: 'WATCH',
  group: '',
  version: 'v1',
  resource: 'configmaps',
  subresource: '',
  scope: 'namespace',
  component: 'apiserver',
};

describe('devcluster: open watches on /metrics', function () {
  this.timeout(60_000);
  let work: Awaited<ReturnType<typeof makeTempDir>>;
  let cluster: DevCluster;
  let admin: ApiClient;

  before(async () => {
    work = await makeTempDir('open-watches');
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: work.dir });
    admin = await ApiClient.load(cluster.kubeconfigPath);
  });

  after(async () => {
    admin?.close();
    await cluster?.stop();
    await work?.remove();
  });

  /** The configmap watches in namespace scope the devcluster counts now. */
  async function configMapWatches(): Promise<number> {
    const res = await admin.request('GET', '/metrics');
    expect(res.status, res.text).to.equal(200);
    const labels = Object.entries(CONFIGMAP_WATCH);
    const sample = samples(res.text).find(
      (s) => s.name === 'apiserver_longrunning_requests' && labels.every(([k, v]) => s.labels[k] === v),
    );
    return sample?.value ?? 0;
  }

  function watch(query = ''): WatchStream {
    return admin.watch(`/api/v1/namespaces/default/configmaps?watch=1${query}`);
  }

  it('counts a watch while it is open, and not once its client hangs up', async () => {
    const before = await configMapWatches();
    const stream = watch();
    await waitUntil('the watch answered', () => stream.status === 200);
    expect(await configMapWatches()).to.equal(before + 1);
    stream.close();
    await eventually(configMapWatches, (n) => expect(n).to.equal(before));
  });

  it("counts a watch until the server's timeout ends it", async () => {
    const before = await configMapWatches();
    const stream = watch('&timeoutSeconds=1');
    await waitUntil('the watch answered', () => stream.status === 200);
    await waitUntil('the watch ended', () => stream.ended);
    await eventually(configMapWatches, (n) => expect(n).to.equal(before));
  });

  it('serves /metrics only to whom RBAC grants get on the nonResourceURL', async () => {
    const asAlice = { 'Impersonate-User': 'alice' };
    const denied = await admin.request('GET', '/metrics', undefined, asAlice);
    expect(denied.status, denied.text).to.equal(403);
    expect(denied.body?.reason).to.equal('Forbidden');
    const role = await admin.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'metrics-reader' },
      rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    });
    expect(role.status, role.text).to.equal(201);
    const binding = await admin.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'alice-reads-metrics' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metrics-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    });
    expect(binding.status, binding.text).to.equal(201);
    await eventually(
      () => admin.request('GET', '/metrics', undefined, asAlice),
      (res) => expect(res.status, res.text).to.equal(200),
    );
  });

  it('passes promtool check metrics, with a watch open', async () => {
    const stream = watch();
    try {
      await waitUntil('the watch answered', () => stream.status === 200);
      const res = await admin.request('GET', '/metrics');
      expect(res.text).to.contain('apiserver_longrunning_requests{');
      const lint = await runPromtool(['check', 'metrics'], res.text);
      expect(lint.code, lint.output).to.equal(0);
    } finally {
      stream.close();
    }
  });
});
