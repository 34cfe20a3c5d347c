/**
 * `status.spaceClusters` records every cluster a tenant's space is or was on, and deletion waits
 * for all of them (two devclusters): a tenant placed on member1 has it recorded; moved to member2
 * with purge mode Never it has both, while one moved with purge mode Directly has member1
 * forgotten once the purge is done. Deleted while member1 is down, the tenant is purged from
 * member2 and waits, its Ready condition naming member1; meanwhile its id cannot be taken again
 * (kubectl prints kube's 409 `object is being deleted: …`) and the finalizer cannot be taken off
 * by hand (422). member1 back, its space there is purged and the Tenant goes.
 */
import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import type { Gateway } from '../../gateway/server/gateway.js';
import type { ApiClient } from '../support/api-client.js';
import { clusterReady, startFailoverGateway } from '../support/failover-gateway.js';
import { eventually, waitUntil } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';
import { createActiveTenant } from '../support/tenants.js';

const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';
const KEPT = 'spcnev';
const PURGED = 'spcdir';

describe('tenants: status.spaceClusters, and a deletion that waits for every cluster the tenant was on', function () {
  this.timeout(120_000);
  let work: { dir: string; remove(): Promise<void> };
  let member1: DevCluster | undefined;
  let member1Port: string;
  let member2: DevCluster;
  let gateway: Gateway;
  let admin: ApiClient;
  let kubectl: Kubectl;

  const startMember1 = (port: string) =>
    startDevCluster({ name: 'member1', listen: `127.0.0.1:${port}`, dataDir: `${work.dir}/member1` });
  const tenant = async (id: string) => (await admin.request('GET', `${TENANTS}/${id}`)).body;
  const readyOf = (cluster: string) => clusterReady(admin, cluster);
  const patchTaints = async (cluster: string, taints: object[]) => {
    const res = await admin.request(
      'PATCH',
      `${CLUSTERS}/${cluster}`,
      { spec: { taints } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    expect(res.status, res.text).to.equal(200);
  };
  /** The tenant's namespaces on a cluster, read there directly. */
  const namespacesOn = async (cluster: DevCluster, id: string) => {
    const { objects } = await cluster.api.registryOf('', 'namespaces')!.objects.list('', {});
    return objects.map((ns) => ns.metadata.name as string).filter((name) => name.startsWith(`${id}-`));
  };

  before(async () => {
    work = await makeTempDir('space-clusters');
    member1 = await startMember1('0');
    member1Port = new URL(member1.url).port;
    member2 = await startDevCluster({ name: 'member2', listen: '127.0.0.1:0', dataDir: `${work.dir}/member2` });
    ({ gateway, admin } = await startFailoverGateway(`${work.dir}/gateway`, { member1, member2 }));
    kubectl = await Kubectl.create(gateway.adminKubeconfigPath);
  });

  after(async () => {
    await kubectl?.dispose();
    admin?.close();
    await gateway?.stop();
    await member1?.stop();
    await member2?.stop();
    await work?.remove();
  });

  it('records the cluster a tenant is placed on', async () => {
    await patchTaints('member2', [{ key: 'setup', effect: 'NoSchedule' }]);
    for (const [id, purgeMode] of [
      [KEPT, 'Never'],
      [PURGED, 'Directly'],
    ])
      await createActiveTenant(admin, id, work.dir, {
        clusterAffinity: { clusterNames: ['member1', 'member2'] },
        failover: { purgeMode },
      });
    await patchTaints('member2', []);
    for (const id of [KEPT, PURGED]) {
      const { status } = await tenant(id);
      expect(status.cluster, id).to.equal('member1');
      expect(status.spaceClusters, id).to.deep.equal(['member1']);
    }
  });

  it('records the cluster a failover moves the tenant to, and forgets the one left once it is purged', async () => {
    await patchTaints('member1', [{ key: 'maintenance', effect: 'NoExecute' }]);
    await eventually(
      async () => [(await tenant(KEPT)).status, (await tenant(PURGED)).status],
      ([kept, purged]) => {
        expect(kept.cluster).to.equal('member2');
        expect(kept.spaceClusters, 'Never keeps the old space, recorded').to.deep.equal(['member1', 'member2']);
        expect(purged.cluster).to.equal('member2');
        expect(purged.evictionTasks ?? [], 'Directly purges at once').to.deep.equal([]);
        expect(purged.spaceClusters).to.deep.equal(['member2']);
      },
      30_000,
    );
    expect(await namespacesOn(member1!, KEPT)).to.have.length(4);
    expect(await namespacesOn(member1!, PURGED)).to.deep.equal([]);
    await patchTaints('member1', []);
  });

  it('deleted while member1 is down: purged from member2, waits for member1 and says so', async () => {
    await member1!.stop();
    member1 = undefined;
    await waitUntil('member1 not Ready', async () => (await readyOf('member1')) !== 'True', { timeout: 20_000 });
    await kubectl.ok(['delete', 'tenant', KEPT, '--wait=false']);
    await eventually(
      () => tenant(KEPT),
      (waiting) => {
        expect(waiting.status.phase).to.equal('Terminating');
        expect(waiting.status.spaceClusters).to.deep.equal(['member1']);
        const ready = waiting.status.conditions.find((c: { type: string }) => c.type === 'Ready');
        expect(ready).to.include({ status: 'False', reason: 'Terminating' });
        expect(ready.message).to.equal("waiting for member1 to be Ready, to remove the tenant's objects there");
      },
      20_000,
    );
    expect(await namespacesOn(member2, KEPT)).to.deep.equal([]);
  });

  it('a Tenant of the id being deleted is 409 AlreadyExists, "object is being deleted", as kube-apiserver answers', async () => {
    const made = await admin.request('POST', TENANTS, {
      apiVersion: 'tenant.kubezoo.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name: KEPT },
    });
    expect(made.status, made.text).to.equal(409);
    expect(made.body).to.deep.include({
      reason: 'AlreadyExists',
      message: `object is being deleted: tenants.tenant.kubezoo.io "${KEPT}" already exists`,
    });
    const created = await kubectl.run(
      ['create', '-f', '-'],
      `apiVersion: tenant.kubezoo.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: ${KEPT}\n`,
    );
    expect(created.code).to.equal(1);
    expect(created.stderr).to.equal(
      `Error from server (AlreadyExists): error when creating "STDIN": object is being deleted: tenants.tenant.kubezoo.io "${KEPT}" already exists\n`,
    );
  });

  it('taking the finalizer off by hand while a cluster is still to be purged is 422 Invalid', async () => {
    const patched = await admin.request(
      'PATCH',
      `${TENANTS}/${KEPT}`,
      { metadata: { finalizers: null } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    expect(patched.status, patched.text).to.equal(422);
    expect(patched.body.reason).to.equal('Invalid');
    expect(patched.body.details.causes).to.deep.equal([
      {
        reason: 'FieldValueForbidden',
        field: 'metadata.finalizers',
        message:
          "Forbidden: kubezoo.io/tenant is removed by the tenant controller once the tenant's objects are gone from every cluster it was on; still to be purged: member1 (status.spaceClusters)",
      },
    ]);
    const edited = await kubectl.run([
      'patch',
      'tenant',
      KEPT,
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/metadata/finalizers"}]',
    ]);
    expect(edited.code).to.equal(1);
    expect(edited.stderr).to.contain(`The Tenant "${KEPT}" is invalid: metadata.finalizers: Forbidden:`);
    expect(edited.stderr).to.contain('still to be purged: member1');
    expect((await tenant(KEPT)).metadata.finalizers).to.deep.equal(['kubezoo.io/tenant']);
  });

  it('member1 back: the space there is purged and the Tenant goes', async () => {
    member1 = await startMember1(member1Port);
    await waitUntil('the tenant gone', async () => (await admin.request('GET', `${TENANTS}/${KEPT}`)).status === 404, {
      timeout: 30_000,
    });
    expect(await namespacesOn(member1, KEPT)).to.deep.equal([]);
    // The purged tenant's space is still recorded where it lives, and nowhere else.
    expect((await tenant(PURGED)).status.spaceClusters).to.deep.equal(['member2']);
  });
});
