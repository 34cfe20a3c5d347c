/**
 * A write acknowledged upstream is answered as the write it was, even when the gateway's sync of
 * the tenant's grants after it fails: the grants are the heal pass's then (tenant-grants.ts), as
 * kube's RBAC catches up with a binding through its informers. Here the cluster drops the
 * connection of every grant listing the gateway makes for one tenant.
 */
import { expect } from 'chai';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { TENANT_LABEL } from '../../translate/kinds/tenant-label.js';
import { eventually } from '../support/eventually.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';

const FAILING = 'gsf1aa';
const OTHER = 'gsf2bb';
const RBAC_V1 = '/apis/rbac.authorization.k8s.io/v1';
/** A ClusterRoleBinding each tenant makes, in its own terms. */
const VIEWERS = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'viewers' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'devs' }],
};

describe("gateway: a write is answered as acknowledged though its grants' sync fails", function () {
  this.timeout(120_000);
  let stage: TwoTenants;
  let tenant: RestClient;
  /** Grant listings of FAILING's the cluster cut off. */
  let cut = 0;

  before(async () => {
    stage = await startTwoTenants('grant-sync-faults', [FAILING, OTHER], {
      beforeRequest: (req) => {
        const url = decodeURIComponent(req.url ?? '');
        // The gateway's own grant listings (tenant-grants.ts): no impersonation, the grants' label.
        if (
          req.method === 'GET' &&
          !req.headers['impersonate-user'] &&
          url.includes('/rolebindings?') &&
          url.includes(`labelSelector=${TENANT_LABEL}=${FAILING}`)
        ) {
          cut++;
          req.socket.destroy();
          return new Promise<void>(() => {});
        }
      },
    });
    tenant = RestClient.fromKubeconfig(stage.tenants[0].kubeconfig);
  });
  after(async () => {
    tenant?.close();
    await stage?.stop();
  });

  /** The grant RoleBindings of FAILING upstream, as `<namespace>/<name> -> role`. */
  async function grants(): Promise<Record<string, string>> {
    const res = await stage.member.request('GET', `${RBAC_V1}/rolebindings`);
    expect(res.status).to.equal(200);
    return Object.fromEntries(
      (res.body.items as Record<string, any>[])
        .filter((b) => b.metadata.labels?.[TENANT_LABEL] === FAILING && b.metadata.name.startsWith('paddock:'))
        .map((b) => [`${b.metadata.namespace}/${b.metadata.name}`, b.roleRef.name]),
    );
  }

  it('a ClusterRoleBinding made and deleted answers 201 and 200; its grants come and go by the heal pass', async () => {
    const before = cut;
    const made = await tenant.request('POST', `${RBAC_V1}/clusterrolebindings`, VIEWERS);
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    expect(made.body.metadata.name).to.equal('viewers');
    expect(cut, 'the gateway tried to sync the grants, and the cluster cut it off').to.be.above(before);
    await eventually(grants, (now) => expect(now[`${FAILING}-default/paddock:viewers`]).to.equal(`${FAILING}-view`));

    const afterCreate = cut;
    const deleted = await tenant.request('DELETE', `${RBAC_V1}/clusterrolebindings/viewers`);
    expect(deleted.status, JSON.stringify(deleted.body)).to.equal(200);
    expect(cut).to.be.above(afterCreate);
    // Revoked as well: a grant left behind would keep the binding's access in every namespace.
    await eventually(grants, (now) =>
      expect(Object.keys(now).filter((key) => key.endsWith('/paddock:viewers'))).to.deep.equal([]),
    );
  });

  it('a namespace made answers 201, and gets its grants by the heal pass', async () => {
    const before = cut;
    const made = await tenant.request('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'fresh' },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    expect(made.body.metadata.name).to.equal('fresh');
    expect(cut).to.be.above(before);
    await eventually(grants, (now) =>
      expect(now[`${FAILING}-fresh/paddock:cluster-admin`]).to.equal(`${FAILING}-cluster-admin`),
    );
    // The tenant's own admin can use it at once through the gateway, as kube's creator can.
    const inside = await tenant.request('POST', '/api/v1/namespaces/fresh/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'first' },
    });
    expect(inside.status, JSON.stringify(inside.body)).to.equal(201);
  });

  it("the other tenant's grant syncs are untouched: its binding's grants are there when its write is answered", async () => {
    const other = RestClient.fromKubeconfig(stage.tenants[1].kubeconfig);
    const made = await other.request('POST', `${RBAC_V1}/clusterrolebindings`, VIEWERS);
    expect(made.status).to.equal(201);
    const res = await stage.member.request(
      'GET',
      `${RBAC_V1}/namespaces/${OTHER}-default/rolebindings/paddock:viewers`,
    );
    expect(res.status, 'written before the answer').to.equal(200);
    other.close();
  });
});
