/**
 * A failover replays a tenant's objects through the checks of the tenant's own writes
 * (eviction/replay-admission.ts): what the tenant planted on its cluster directly, with a
 * ServiceAccount token of its own, past the gateway — a RoleBinding of the cluster's cluster-admin
 * to every authenticated user, one of another tenant's role, one granting another tenant's
 * ServiceAccount — is not copied to the new cluster by the gateway, and the eviction task names it;
 * the tenant's other objects, one planted the same way among them, are replayed.
 */
import { expect } from 'chai';
import { upstreamToken } from '../support/upstream-token.js';
import { readFile } from 'node:fs/promises';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { parseServerCredentials } from '../../certs/index.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import type { Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { startFailoverGateway } from '../support/failover-gateway.js';
import { eventually, waitUntil } from '../support/eventually.js';
import { makeTempDir } from '../support/temp-dir.js';
import { createActiveTenant } from '../support/tenants.js';

const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';
const RBAC = 'rbac.authorization.k8s.io';
const A = 'frpaaa';
const B = 'frpbbb';
/** What A plants upstream that its writes through the gateway could not make, by name. */
const PLANTED_REFUSED = {
  'open-door': { role: 'cluster-admin', subject: { apiGroup: RBAC, kind: 'Group', name: 'system:authenticated' } },
  borrowed: { role: `${B}-cluster-admin`, subject: { apiGroup: RBAC, kind: 'User', name: `${A}-admin` } },
  guest: {
    role: `${A}-cluster-admin`,
    subject: { kind: 'ServiceAccount', namespace: `${B}-default`, name: 'default' },
  },
};
/** Planted the same way, last, and within the tenant: replayed. */
const PLANTED_FINE = { role: `${A}-cluster-admin`, subject: { apiGroup: RBAC, kind: 'User', name: `${A}-bob` } };

describe('adversarial: a failover replays what a tenant planted upstream only if its own writes could make it', function () {
  this.timeout(180_000);
  let work: { dir: string; remove(): Promise<void> };
  const members = new Map<string, DevCluster>();
  /** Each member's admin, to look behind the gateway. */
  const direct = new Map<string, RestClient>();
  let gateway: Gateway;
  let admin: ApiClient;
  let alice: ApiClient;

  const setTaints = async (cluster: string, change: (taints: any[]) => any[]) => {
    for (;;) {
      const current = (await admin.request('GET', `${CLUSTERS}/${cluster}`)).body;
      current.spec.taints = change(current.spec.taints ?? []);
      const res = await admin.request('PUT', `${CLUSTERS}/${cluster}`, current);
      if (res.status === 200) return;
      if (res.status !== 409) throw new Error(`tainting ${cluster}: ${res.status} ${res.text}`);
    }
  };
  const tenant = async (id: string) => (await admin.request('GET', `${TENANTS}/${id}`)).body;
  const cacheCount = async (resource: string) => {
    const line = (await admin.request('GET', '/metrics')).text
      .split('\n')
      .find((l) => l.startsWith(`paddock_cache_objects{cluster="member1",resource="${resource}"} `));
    return line ? Number(line.split(' ').at(-1)) : undefined;
  };
  const binding = (name: string, { role, subject }: { role: string; subject: Record<string, string> }) => ({
    apiVersion: `${RBAC}/v1`,
    kind: 'RoleBinding',
    metadata: { name, namespace: `${A}-default` },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
    subjects: [subject],
  });
  const bindingOn = async (cluster: string, name: string) =>
    (await direct.get(cluster)!.request('GET', `/apis/${RBAC}/v1/namespaces/${A}-default/rolebindings/${name}`)).status;

  before(async () => {
    work = await makeTempDir('failover-replay');
    for (const name of ['member1', 'member2']) {
      const member = await startDevCluster({ name, listen: '127.0.0.1:0', dataDir: `${work.dir}/${name}` });
      members.set(name, member);
      direct.set(name, RestClient.fromKubeconfig(await readFile(member.kubeconfigPath, 'utf8')));
    }
    ({ gateway, admin } = await startFailoverGateway(`${work.dir}/gateway`, Object.fromEntries(members)));
    // Both tenants on member1: member2 keeps new tenants off for now.
    await setTaints('member2', (taints) => [...taints, { key: 'setup', effect: 'NoSchedule' }]);
    alice = await ApiClient.load((await createActiveTenant(admin, A, work.dir)).kubeconfigPath);
    await createActiveTenant(admin, B, work.dir);
    await setTaints('member2', (taints) => taints.filter((t: { key: string }) => t.key !== 'setup'));
    expect([(await tenant(A)).status.cluster, (await tenant(B)).status.cluster]).to.deep.equal(['member1', 'member1']);

    // Through the gateway: an object of the tenant's own, and a ServiceAccount bound to its cluster-admin.
    for (const [path, body] of [
      ['/api/v1/namespaces/default/configmaps', { metadata: { name: 'settings' }, data: { owner: A } }],
      ['/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'robot' } }],
      [
        `/apis/${RBAC}/v1/clusterrolebindings`,
        {
          metadata: { name: 'robot-is-admin' },
          roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [{ kind: 'ServiceAccount', namespace: 'default', name: 'robot' }],
        },
      ],
    ] as const) {
      const res = await alice.request('POST', path, body);
      expect(res.status, `${path}: ${res.text}`).to.equal(201);
    }
    // The robot's own token on member1, as a pod of the tenant's there has it, against member1 itself, past the gateway.
    const member1Kubeconfig = await readFile(members.get('member1')!.kubeconfigPath, 'utf8');
    const member1Admin = RestClient.fromKubeconfig(member1Kubeconfig);
    const token = await upstreamToken(member1Admin, `${A}-default`, 'robot').finally(() => member1Admin.close());
    const member1 = parseServerCredentials(member1Kubeconfig);
    const robot = new RestClient(new URL(member1.server), { ca: member1.caPem, token });
    try {
      for (const [name, planted] of [...Object.entries(PLANTED_REFUSED), ['planted-fine', PLANTED_FINE] as const]) {
        // The robot's grants reach member1's authorizer by watch: a moment after the binding.
        await eventually(
          () => robot.request('POST', `/apis/${RBAC}/v1/namespaces/${A}-default/rolebindings`, binding(name, planted)),
          (res) => expect(res.status, `planting ${name}: ${res.text}`).to.equal(201),
        );
      }
    } finally {
      robot.close();
    }
    // Planted past the gateway: upstream has them, with nothing to say the gateway never saw them.
    for (const name of [...Object.keys(PLANTED_REFUSED), 'planted-fine'])
      expect(await bindingOn('member1', name), name).to.equal(200);
    // The cache the replay reads from holds every RoleBinding of member1, those planted among them.
    await waitUntil('member1 rolebindings cached', async () => {
      const listed = (await direct.get('member1')!.request('GET', `/apis/${RBAC}/v1/rolebindings`)).body.items.length;
      return (await cacheCount(`rolebindings.${RBAC}`)) === listed;
    });
  });

  after(async () => {
    alice?.close();
    admin?.close();
    await gateway?.stop();
    for (const client of direct.values()) client.close();
    for (const member of members.values()) await member.stop();
    await work?.remove();
  });

  it('moves the tenant off member1, tainted NoExecute, to member2', async () => {
    await setTaints('member1', (taints) => [...taints, { key: 'drain', effect: 'NoExecute' }]);
    await waitUntil(
      'both tenants moved',
      async () => {
        const [a, b] = await Promise.all([tenant(A), tenant(B)]);
        return (
          a.status.cluster === 'member2' && b.status.cluster === 'member2' && a.status.evictionTasks?.[0]?.toCluster
        );
      },
      { timeout: 30_000 },
    );
  });

  it('leaves behind what the tenant planted that its own writes could not make', async () => {
    for (const name of Object.keys(PLANTED_REFUSED)) expect(await bindingOn('member2', name), name).to.equal(404);
  });

  it("names what it left behind in the tenant's eviction task, which is not complete", async () => {
    const [task] = (await tenant(A)).status.evictionTasks;
    expect(task).to.include({ fromCluster: 'member1', toCluster: 'member2', replayComplete: false });
    for (const name of Object.keys(PLANTED_REFUSED))
      expect(task.message).to.include(`rolebindings ${A}-default/${name}`);
    expect(task.message).to.match(/not replayed, as the tenant's own writes would be refused/);
  });

  it("replays the tenant's own objects, one planted the same way among them, and remakes its grants", async () => {
    expect(await bindingOn('member2', 'planted-fine')).to.equal(200);
    const settings = await alice.request('GET', '/api/v1/namespaces/default/configmaps/settings');
    expect([settings.status, settings.body?.data]).to.deep.equal([200, { owner: A }]);
    const robot = await alice.request('GET', '/api/v1/namespaces/default/serviceaccounts/robot');
    expect(robot.status, robot.text).to.equal(200);
    // The grant of the tenant's cluster-admin to its administrator, made on member2 by the gateway.
    expect(await bindingOn('member2', 'paddock:cluster-admin')).to.equal(200);
    // Its ClusterRoleBinding, stored as a RoleBinding in its kube-system, moved with it, and its grant made.
    const binding = await alice.request('GET', `/apis/${RBAC}/v1/clusterrolebindings/robot-is-admin`);
    expect([binding.status, binding.body?.roleRef?.name]).to.deep.equal([200, 'cluster-admin']);
    expect(await bindingOn('member2', 'paddock:robot-is-admin')).to.equal(200);
    // And the other tenant, with nothing planted, moved whole.
    expect((await tenant(B)).status.evictionTasks[0]).to.include({ toCluster: 'member2', replayComplete: true });
  });
});
