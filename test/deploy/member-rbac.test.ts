/**
 * deploy/member-rbac.yaml is enough for the gateway: applied to a devcluster, its ServiceAccount's
 * token is the gateway's --upstream credential, and the gateway caches what it caches, makes a
 * tenant's space, serves the tenant (in its namespaces as the tenant user, across them and at the
 * cluster scope as itself, watches from its cache), passes the admin through, and purges the
 * tenant. Without the impersonation rule the admin is refused, so the check can fail. The devcluster's RBAC does not
 * enforce `bind` and `escalate` (kube's escalation checks); that the role needs them is argued in
 * deploy/README.md, not shown here.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseKubeconfig } from '../../certs/index.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { anonymousRequest } from '../support/anonymous-request.js';
import { deployManifests, deployObject } from '../support/deploy-manifests.js';
import { eventually, waitUntil } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';
import { createActiveTenant } from '../support/tenants.js';

const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';

describe('deploy/member-rbac.yaml: the gateway runs on a member cluster with these rights alone', function () {
  this.timeout(120_000);
  let dir: string;
  let remove: () => Promise<void>;
  let member: DevCluster;
  let memberAdmin: Kubectl;
  let gateway: Gateway;
  let admin: ApiClient;
  let adminKubectl: Kubectl;
  let tenant: Kubectl;

  before(async () => {
    ({ dir, remove } = await makeTempDir('member-rbac'));
    member = await startDevCluster({ name: 'member1', listen: '127.0.0.1:0', dataDir: path.join(dir, 'member1') });
    memberAdmin = await Kubectl.create(member.kubeconfigPath);
    for (const file of ['namespace.yaml', 'member-rbac.yaml'])
      await memberAdmin.ok(['apply', '-f', deployManifests().find((m) => m.file === file)!.path]);
    const account = deployObject('ServiceAccount', 'paddock-gateway');
    // The devcluster has no token controller to fill the token Secret; a TokenRequest names the same ServiceAccount.
    const token = (
      await memberAdmin.ok([
        'create',
        'token',
        account.metadata.name,
        '-n',
        account.metadata.namespace,
        '--duration=1h',
      ])
    ).trim();
    const { caPem } = parseKubeconfig(await readFile(member.kubeconfigPath, 'utf8'));
    const kubeconfig = [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: member1, cluster: {server: "${member.url}", certificate-authority-data: ${Buffer.from(caPem).toString('base64')}}}]`,
      `users: [{name: paddock-gateway, user: {token: "${token}"}}]`,
      'contexts: [{name: member1, context: {cluster: member1, user: paddock-gateway}}]',
      'current-context: member1',
      '',
    ].join('\n');
    gateway = await startGateway({
      listen: '127.0.0.1:0',
      dataDir: path.join(dir, 'gateway'),
      upstreams: [{ name: 'member1', kubeconfig }],
      // The failover cache lists CRDs, namespaces, roles, bindings, … of every cluster: all of it under the role.
      enableNoExecuteTaintEviction: true,
      cacheSyncTimeoutMs: 600_000,
    });
    admin = await ApiClient.load(gateway.adminKubeconfigPath);
    adminKubectl = await Kubectl.create(gateway.adminKubeconfigPath);
    const { kubeconfigPath } = await createActiveTenant(admin, 'rbacte', dir);
    tenant = await Kubectl.create(kubeconfigPath);
  });

  after(async () => {
    admin?.close();
    for (const kubectl of [tenant, adminKubectl, memberAdmin]) await kubectl?.dispose();
    await gateway?.stop();
    await member?.stop();
    await remove?.();
  });

  it('connects with the ServiceAccount token and lists everything it caches (its /readyz waits for every store)', async () => {
    await waitUntil('the cache has listed every store', async () => {
      const res = await anonymousRequest(gateway.url, '/readyz');
      return res.status === 200;
    });
    const cluster = (await admin.request('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member1')).body;
    expect(cluster.status.conditions.find((c: any) => c.type === 'Ready')).to.include({ status: 'True' });
  });

  it("made the tenant's space: its namespaces, its admin role and binding, and the grants", async () => {
    expect(await memberAdmin.ok(['get', 'namespaces', '-l', 'kubezoo.io/tenant=rbacte', '-o', 'name'])).to.equal(
      [
        'namespace/rbacte-default',
        'namespace/rbacte-kube-node-lease',
        'namespace/rbacte-kube-public',
        'namespace/rbacte-kube-system',
        '',
      ].join('\n'),
    );
    expect(await memberAdmin.ok(['get', 'clusterrole', 'rbacte-cluster-admin', '-o', 'name'])).to.equal(
      'clusterrole.rbac.authorization.k8s.io/rbacte-cluster-admin\n',
    );
    // The admin binding, as the tenant's ClusterRoleBindings are, stored as a RoleBinding in its kube-system.
    expect(
      await memberAdmin.ok([
        'get',
        'rolebinding',
        'paddock.clusterrolebinding:cluster-admin',
        '-n',
        'rbacte-kube-system',
        '-o',
        'name',
      ]),
    ).to.equal('rolebinding.rbac.authorization.k8s.io/paddock.clusterrolebinding:cluster-admin\n');
    expect(await memberAdmin.ok(['get', 'rolebindings', '-n', 'rbacte-default', '-o', 'name'])).to.include(
      'rolebinding.rbac.authorization.k8s.io/paddock:',
    );
  });

  it('serves the tenant: in its namespaces as the tenant user, across them and at the cluster scope as the gateway', async () => {
    await tenant.ok(['create', 'namespace', 'shop']);
    await tenant.ok(['create', 'configmap', 'settings', '-n', 'shop', '--from-literal=color=blue']);
    expect(await tenant.ok(['get', 'configmap', 'settings', '-n', 'shop', '-o', 'jsonpath={.data.color}'])).to.equal(
      'blue',
    );
    expect(await tenant.ok(['get', 'configmaps', '-A', '-o', 'name'])).to.include('configmap/settings');
    await tenant.ok(['create', 'clusterrole', 'reader', '--verb=get,list', '--resource=pods']);
    await tenant.ok(['create', 'clusterrolebinding', 'readers', '--clusterrole=reader', '--user=rbacte-bob']);
    expect(await tenant.ok(['get', 'clusterrolebinding', 'readers', '-o', 'jsonpath={.roleRef.name}'])).to.equal(
      'reader',
    );
    expect(await tenant.ok(['auth', 'can-i', 'create', 'configmaps', '-n', 'shop'])).to.equal('yes\n');
    expect(await memberAdmin.ok(['get', 'configmap', 'settings', '-n', 'rbacte-shop', '-o', 'name'])).to.equal(
      'configmap/settings\n',
    );
    // A watch from the cache (configmaps are in the default --tenant-cache) sees what is written later.
    const watch = tenant.start(['get', 'configmaps', '-n', 'shop', '--watch', '-o', 'name']);
    try {
      await watch.waitFor(/configmap\/settings/);
      await tenant.ok(['create', 'configmap', 'later', '-n', 'shop']);
      await watch.waitFor(/configmap\/later/);
    } finally {
      await watch.stop();
    }
  });

  it("passes the admin's requests through, impersonating the admin, or whoever the admin impersonates", async () => {
    expect(await adminKubectl.ok(['get', 'namespace', 'paddock-system', '-o', 'name'])).to.equal(
      'namespace/paddock-system\n',
    );
    expect(await adminKubectl.ok(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).to.equal('admin');
    // The admin's own impersonation is passed on as it came: the cluster runs the request as that
    // service account (which may not list Secrets) once the gateway may impersonate it, its group and its extra.
    const asRobot = await admin.request('GET', '/api/v1/namespaces/default/secrets', undefined, {
      'Impersonate-User': 'system:serviceaccount:default:robot',
      'Impersonate-Group': 'auditors',
      'Impersonate-Extra-Reason': 'deploy-test',
    });
    expect(asRobot.status).to.equal(403);
    expect(asRobot.body.message).to.equal(
      'secrets is forbidden: User "system:serviceaccount:default:robot" cannot list resource "secrets" in API group "" in the namespace "default"',
    );
  });

  it("purges the tenant's objects when it is deleted", async () => {
    expect((await admin.request('DELETE', `${TENANTS}/rbacte`)).status).to.equal(200);
    await eventually(
      async () => (await admin.request('GET', `${TENANTS}/rbacte`)).status,
      (status) => expect(status, 'the Tenant, gone once its objects are').to.equal(404),
      60_000,
    );
    expect(await memberAdmin.ok(['get', 'namespaces,clusterroles,clusterrolebindings', '-o', 'name'])).to.not.include(
      'rbacte-',
    );
  });

  it("refuses the admin's passthrough once the role loses its impersonation rule (the check can fail)", async () => {
    expect(await adminKubectl.ok(['get', 'namespace', 'paddock-system', '-o', 'name'])).to.equal(
      'namespace/paddock-system\n',
    );
    const role = structuredClone(deployObject('ClusterRole', 'paddock-gateway'));
    role.rules = role.rules.filter(
      (rule: any) => !(rule.verbs.includes('impersonate') && rule.resources?.includes('users')),
    );
    try {
      await memberAdmin.ok(['apply', '-f', '-'], JSON.stringify(role));
      // The gateway never sends the admin's requests as itself instead (a tenant's, in its namespaces, it may).
      await eventually(
        () => adminKubectl.run(['get', 'namespace', 'paddock-system']),
        (result) => {
          expect(result.code).to.equal(1);
          expect(result.stderr).to.match(
            /User "system:serviceaccount:paddock-system:paddock-gateway" cannot impersonate resource "users" in API group ""/,
          );
        },
      );
    } finally {
      await memberAdmin.ok(['apply', '-f', deployManifests().find((m) => m.file === 'member-rbac.yaml')!.path]);
    }
  });
});
