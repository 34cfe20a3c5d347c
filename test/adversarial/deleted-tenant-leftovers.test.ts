/**
 * A deleted tenant leaves nothing behind on any cluster it was on. A tenant on member1 writes a
 * Secret and mints a token (TokenRequest) for a ServiceAccount it lets read Secrets; it is moved to
 * member2 with purge mode Never (its space stays on member1), then deleted. A tenant made again
 * with the same id, placed on member1, must find nothing of the old owner there (through the
 * gateway), and the old token is refused (401) upstream and through the gateway: otherwise the
 * old owner would read the new owner's Secrets.
 */
import { expect } from 'chai';
import { upstreamToken } from '../support/upstream-token.js';
import { readFile } from 'node:fs/promises';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { parseKubeconfig } from '../../certs/index.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import type { Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { startFailoverGateway } from '../support/failover-gateway.js';
import { waitUntil } from '../support/eventually.js';
import { makeTempDir } from '../support/temp-dir.js';
import { createActiveTenant } from '../support/tenants.js';

const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';
const ID = 'leftov';
const SECRETS = '/api/v1/namespaces/default/secrets';

describe('adversarial: a tenant id taken again finds nothing of its old owner on any cluster', function () {
  this.timeout(120_000);
  let work: { dir: string; remove(): Promise<void> };
  let member1: DevCluster;
  let member2: DevCluster;
  let gateway: Gateway;
  let admin: ApiClient;
  const clients: RestClient[] = [];
  let oldToken: string;

  const patchTaints = async (cluster: string, taints: object[]) => {
    const res = await admin.request(
      'PATCH',
      `${CLUSTERS}/${cluster}`,
      { spec: { taints } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    expect(res.status, res.text).to.equal(200);
  };
  const tenant = async () => (await admin.request('GET', `${TENANTS}/${ID}`)).body;
  /** A client of `server` presenting only a bearer token, trusting the CA of `kubeconfigPath`. */
  const withToken = async (kubeconfigPath: string, token: string) => {
    const parsed = parseKubeconfig(await readFile(kubeconfigPath, 'utf8'));
    const client = new RestClient(new URL(parsed.server), { ca: parsed.caPem, token });
    clients.push(client);
    return client;
  };

  before(async () => {
    work = await makeTempDir('deleted-tenant-leftovers');
    member1 = await startDevCluster({ name: 'member1', listen: '127.0.0.1:0', dataDir: `${work.dir}/member1` });
    member2 = await startDevCluster({ name: 'member2', listen: '127.0.0.1:0', dataDir: `${work.dir}/member2` });
    ({ gateway, admin } = await startFailoverGateway(`${work.dir}/gateway`, { member1, member2 }));
  });

  after(async () => {
    for (const client of clients) client.close();
    admin?.close();
    await gateway?.stop();
    await member1?.stop();
    await member2?.stop();
    await work?.remove();
  });

  it('the old owner, on member1, keeps a Secret and a token of a ServiceAccount that reads Secrets', async () => {
    await patchTaints('member2', [{ key: 'setup', effect: 'NoSchedule' }]);
    const { kubeconfigPath } = await createActiveTenant(admin, ID, work.dir, {
      clusterAffinity: { clusterNames: ['member1', 'member2'] },
      failover: { purgeMode: 'Never' },
    });
    await patchTaints('member2', []);
    expect((await tenant()).status.cluster).to.equal('member1');
    const owner = await ApiClient.load(kubeconfigPath);
    clients.push(owner);
    for (const [path, body] of [
      [SECRETS, { metadata: { name: 'old-owner' }, stringData: { password: 'hunter2' } }],
      ['/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'reader' } }],
      [
        '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
        {
          metadata: { name: 'secret-reader' },
          rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }],
        },
      ],
      [
        '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
        {
          metadata: { name: 'secret-reader' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'secret-reader' },
          subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'default' }],
        },
      ],
    ] as const) {
      const made = await owner.request('POST', path, body);
      expect(made.status, `${path}: ${made.text}`).to.equal(201);
    }
    // The account's own token on member1, as a pod of the old owner's there has it.
    const member1Admin = RestClient.fromKubeconfig(await readFile(member1.kubeconfigPath, 'utf8'));
    oldToken = await upstreamToken(member1Admin, `${ID}-default`, 'reader').finally(() => member1Admin.close());
    // The token works upstream: it reads the tenant's Secrets on member1 (once RBAC has the binding).
    const upstream = await withToken(member1.kubeconfigPath, oldToken);
    await waitUntil('the old token reads Secrets on member1', async () => {
      const read = await upstream.request('GET', `/api/v1/namespaces/${ID}-default/secrets/old-owner`);
      return read.status === 200;
    });
  });

  it('is moved to member2 with purge mode Never, then deleted; its id is free again', async () => {
    await patchTaints('member1', [{ key: 'maintenance', effect: 'NoExecute' }]);
    await waitUntil('moved to member2', async () => (await tenant()).status?.cluster === 'member2', {
      timeout: 30_000,
    });
    const moved = await tenant();
    expect(moved.status.evictionTasks.map((t: { fromCluster: string }) => t.fromCluster)).to.deep.equal(['member1']);
    const deleted = await admin.request('DELETE', `${TENANTS}/${ID}`);
    expect(deleted.status, deleted.text).to.equal(200);
    await waitUntil('the tenant gone', async () => (await admin.request('GET', `${TENANTS}/${ID}`)).status === 404, {
      timeout: 30_000,
    });
    await patchTaints('member1', []);
  });

  it('made again on member1, the id starts empty: no Secret, ServiceAccount, role or binding of the old owner', async () => {
    const { kubeconfigPath } = await createActiveTenant(admin, ID, work.dir, {
      clusterAffinity: { clusterNames: ['member1'] },
    });
    expect((await tenant()).status.cluster).to.equal('member1');
    const heir = await ApiClient.load(kubeconfigPath);
    clients.push(heir);
    const made = await heir.request('POST', SECRETS, { metadata: { name: 'new-owner' }, stringData: { k: 'v' } });
    expect(made.status, made.text).to.equal(201);
    const secrets = await heir.request('GET', SECRETS);
    expect(secrets.status, secrets.text).to.equal(200);
    expect(secrets.body.items.map((s: { metadata: { name: string } }) => s.metadata.name)).to.deep.equal(['new-owner']);
    for (const path of [
      `${SECRETS}/old-owner`,
      '/api/v1/namespaces/default/serviceaccounts/reader',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/secret-reader',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/secret-reader',
    ]) {
      const read = await heir.request('GET', path);
      expect(read.status, `${path}: ${read.text}`).to.equal(404);
    }
  });

  it("the old owner's ServiceAccount token is 401 upstream and through the gateway", async () => {
    const upstream = await withToken(member1.kubeconfigPath, oldToken);
    const direct = await upstream.request('GET', `/api/v1/namespaces/${ID}-default/secrets/new-owner`);
    expect(direct.status, direct.text).to.equal(401);
    const listed = await upstream.request('GET', `/api/v1/namespaces/${ID}-default/secrets`);
    expect(listed.status, listed.text).to.equal(401);
    const throughGateway = await withToken(gateway.adminKubeconfigPath, oldToken);
    const proxied = await throughGateway.request('GET', SECRETS);
    expect(proxied.status, proxied.text).to.equal(401);
  });
});
