/**
 * What each tenant adds to every request upstream (docs/isolation.md, "A tenant's footprint
 * upstream"), read from the devcluster's `paddock_devcluster_rbac_clusterrolebindings_walked`: a
 * tenant's request, granted in its own namespace, reads every ClusterRoleBinding of the cluster.
 * A tenant's ClusterRoleBindings (its admin's, and each it makes) are stored as RoleBindings in its
 * own kube-system (translate/kinds/stored-cluster-role-binding.ts), so a tenant adds none, however
 * many it makes: the count stays the cluster's own. Pinned here so that nothing per tenant joins
 * them unnoticed.
 */
import { expect } from 'chai';
import { ApiClient } from '../support/api-client.js';
import { waitUntil } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { samples } from '../support/metric-samples.js';
import { createActiveTenant } from '../support/tenants.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';

const A = 'fpaaaa';
const B = 'fpbbbb';
const C = 'fpcccc';
const WALKED = 'paddock_devcluster_rbac_clusterrolebindings_walked';
const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';

describe('tenant footprint upstream: ClusterRoleBindings every request reads', function () {
  this.timeout(120_000);
  let stage: TwoTenants;
  let alice: Kubectl;
  let admin: ApiClient;
  let work: Awaited<ReturnType<typeof makeTempDir>>;

  before(async () => {
    stage = await startTwoTenants('fp', [A, B]);
    alice = stage.tenants[0].kubectl;
    admin = await ApiClient.load(stage.gateway.adminKubeconfigPath);
    work = await makeTempDir('fp-tenants');
  });
  after(async () => {
    admin?.close();
    await stage?.stop();
    await work?.remove();
  });

  async function walks(): Promise<{ sum: number; count: number }> {
    const res = await stage.member.request('GET', '/metrics');
    expect(res.status, res.text).to.equal(200);
    const all = samples(res.text);
    const value = (name: string) => all.find((sample) => sample.name === name)?.value ?? 0;
    return { sum: value(`${WALKED}_sum`), count: value(`${WALKED}_count`) };
  }

  /**
   * What one read of alice's through the gateway walked upstream: a kind the gateway neither
   * caches nor decides, so it goes up as `<A>-admin` in `<A>-default`, granted there by a grant
   * RoleBinding. The gateway's own requests are system:masters' and reach no RBAC.
   */
  async function walkedByATenantRequest(): Promise<number> {
    const before = await walks();
    await alice.ok(['get', '--raw', '/api/v1/namespaces/default/limitranges']);
    const after = await walks();
    expect(after.count - before.count, 'one decision upstream').to.equal(1);
    return after.sum - before.sum;
  }

  async function clusterRoleBindingsUpstream(): Promise<string[]> {
    const res = await stage.member.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings');
    expect(res.status, res.text).to.equal(200);
    return res.body.items.map((binding: { metadata: { name: string } }) => binding.metadata.name);
  }

  async function storedBindingsUpstream(id: string): Promise<string[]> {
    const res = await stage.member.request(
      'GET',
      `/apis/rbac.authorization.k8s.io/v1/namespaces/${id}-kube-system/rolebindings?labelSelector=kubezoo.io/cluster-role-binding-of=${id}`,
    );
    expect(res.status, res.text).to.equal(200);
    return res.body.items.map((binding: { metadata: { name: string } }) => binding.metadata.name).sort();
  }

  it('a tenant request reads every ClusterRoleBinding upstream, none of them a tenant\u2019s', async () => {
    const all = await clusterRoleBindingsUpstream();
    expect(await walkedByATenantRequest()).to.equal(all.length);
    for (const id of [A, B]) {
      expect(all.filter((name) => name.startsWith(`${id}-`))).to.deep.equal([]);
      expect(await storedBindingsUpstream(id)).to.deep.equal(['paddock.clusterrolebinding:cluster-admin']);
    }
  });

  it('a new tenant adds none to every request, nor do the ClusterRoleBindings it makes, nor its deletion', async () => {
    const upstream = await clusterRoleBindingsUpstream();
    const before = await walkedByATenantRequest();
    const created = await createActiveTenant(admin, C, work.dir);
    const carol = await Kubectl.create(created.kubeconfigPath);
    try {
      for (const name of ['readers', 'writers', 'auditors'])
        await carol.ok(['create', 'clusterrolebinding', name, '--clusterrole=view', '--user=dave']);
      expect(await storedBindingsUpstream(C)).to.deep.equal(
        ['auditors', 'cluster-admin', 'readers', 'writers'].map((name) => `paddock.clusterrolebinding:${name}`),
      );
      expect((await carol.ok(['get', 'clusterrolebindings', '-o', 'name'])).trim().split('\n').sort()).to.deep.equal(
        ['auditors', 'cluster-admin', 'readers', 'writers'].map(
          (name) => `clusterrolebinding.rbac.authorization.k8s.io/${name}`,
        ),
      );
      expect(await walkedByATenantRequest()).to.equal(before);
      expect(await clusterRoleBindingsUpstream()).to.deep.equal(upstream);
    } finally {
      await carol.dispose();
    }
    const deleted = await admin.request('DELETE', `${TENANTS}/${C}`);
    expect(deleted.status, deleted.text).to.be.oneOf([200, 202]);
    await waitUntil(`tenant ${C} gone`, async () => (await admin.request('GET', `${TENANTS}/${C}`)).status === 404, {
      timeout: 60_000,
    });
    expect(await walkedByATenantRequest()).to.equal(before);
    expect(await clusterRoleBindingsUpstream()).to.deep.equal(upstream);
  });
});
