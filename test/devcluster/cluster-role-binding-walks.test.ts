/**
 * The devcluster's `paddock_devcluster_rbac_clusterrolebindings_walked`: a request granted by a
 * RoleBinding reads every ClusterRoleBinding of the cluster first, as kube's rule resolver does,
 * so each ClusterRoleBinding added is one more read on every such request, whoever it binds.
 */
import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { ApiClient } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { samples } from '../support/metric-samples.js';
import { makeTempDir } from '../support/temp-dir.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const WALKED = 'paddock_devcluster_rbac_clusterrolebindings_walked';
const AS_ALICE = { 'Impersonate-User': 'alice' };

describe('devcluster: ClusterRoleBindings walked per request on /metrics', function () {
  this.timeout(60_000);
  let work: Awaited<ReturnType<typeof makeTempDir>>;
  let cluster: DevCluster;
  let admin: ApiClient;

  before(async () => {
    work = await makeTempDir('rbac-walks');
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: work.dir });
    admin = await ApiClient.load(cluster.kubeconfigPath);
    await made(`${RBAC}/clusterroles`, {
      metadata: { name: 'configmap-reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
    });
    await made(`${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: 'alice-reads-configmaps' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'configmap-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    });
    await eventually(aliceLists, (status) => expect(status).to.equal(200));
  });

  after(async () => {
    admin?.close();
    await cluster?.stop();
    await work?.remove();
  });

  async function made(path: string, object: object): Promise<void> {
    const res = await admin.request('POST', path, object);
    expect(res.status, res.text).to.equal(201);
  }

  async function aliceLists(): Promise<number> {
    return (await admin.request('GET', '/api/v1/namespaces/default/configmaps', undefined, AS_ALICE)).status;
  }

  /** The histogram's sum and count now (the admin's own requests, system:masters, never reach RBAC). */
  async function walks(): Promise<{ sum: number; count: number }> {
    const res = await admin.request('GET', '/metrics');
    expect(res.status, res.text).to.equal(200);
    const all = samples(res.text);
    const value = (name: string) => all.find((sample) => sample.name === name)?.value ?? 0;
    return { sum: value(`${WALKED}_sum`), count: value(`${WALKED}_count`) };
  }

  /** What one request of alice's, granted by her RoleBinding, walked. */
  async function walkedByOneRequest(): Promise<number> {
    const before = await walks();
    expect(await aliceLists()).to.equal(200);
    const after = await walks();
    // One authorization of alice's list; the admin's impersonation is masters' and walks nothing.
    expect(after.count - before.count).to.equal(1);
    return after.sum - before.sum;
  }

  async function clusterRoleBindings(): Promise<number> {
    return (await admin.request('GET', `${RBAC}/clusterrolebindings`)).body.items.length;
  }

  it('a request granted in its namespace walks every ClusterRoleBinding, one more for each added', async () => {
    expect(await walkedByOneRequest()).to.equal(await clusterRoleBindings());
    const added = 25;
    for (let i = 0; i < added; i++) {
      await made(`${RBAC}/clusterrolebindings`, {
        metadata: { name: `someone-else-${i}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'configmap-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `someone-else-${i}` }],
      });
    }
    const total = await clusterRoleBindings();
    await eventually(walkedByOneRequest, (walked) => expect(walked).to.equal(total));
  });

  it('a request granted by a ClusterRoleBinding stops walking at it', async () => {
    await made(`${RBAC}/clusterrolebindings`, {
      metadata: { name: 'alice-reads-configmaps-everywhere' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'configmap-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    });
    await made(`${RBAC}/clusterrolebindings`, {
      metadata: { name: 'made-after-alice' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'configmap-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
    });
    const total = await clusterRoleBindings();
    // Alice's binding is the one before last: the last one is never read for her.
    await eventually(walkedByOneRequest, (walked) => expect(walked).to.equal(total - 1));
  });
});
