import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { parseKubeconfig } from '../../certs/index.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { startEtcd, type EtcdServer } from '../support/etcd-server.js';
import { waitUntil } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { createActiveTenant } from '../support/tenants.js';
import { makeTempDir } from '../support/temp-dir.js';

const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';

function clusterYaml(name: string, apiEndpoint: string): string {
  return `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata:
  name: ${name}
  labels:
    tier: second
spec:
  syncMode: Push
  apiEndpoint: ${apiEndpoint}
  secretRef:
    namespace: karmada-cluster
    name: ${name}
  provider: devcluster
  region: local
  zones: [a]
`;
}

describe('clusters: Cluster objects registered with kubectl, followed by every replica, probed for health', function () {
  let etcd: EtcdServer;
  let dir: string;
  let remove: () => Promise<void>;
  let member1: DevCluster;
  let member2: DevCluster | undefined;
  let replicaA: Gateway;
  let replicaB: Gateway;
  let admin: Kubectl;
  let adminB: Kubectl;
  let api: ApiClient;
  /** Every kubectl the file makes, whose home directory goes when the file is done. */
  const kubectls: Kubectl[] = [];
  const newKubectl = async (kubeconfigPath: string) => {
    const kubectl = await Kubectl.create(kubeconfigPath);
    kubectls.push(kubectl);
    return kubectl;
  };

  before(async function () {
    ({ dir, remove } = await makeTempDir('clusters-as-objects'));
    etcd = await startEtcd();
    member1 = await startDevCluster({ name: 'member1', listen: '127.0.0.1:0', dataDir: `${dir}/member1` });
    const upstreams = [{ name: 'member1', kubeconfig: await readFile(member1.kubeconfigPath, 'utf8') }];
    const replica = (name: string) =>
      startGateway({
        listen: '127.0.0.1:0',
        dataDir: `${dir}/${name}`,
        etcdEndpoints: [etcd.endpoint],
        etcdPrefix: '/clusters-test',
        upstreams,
        identity: name,
        clusterStatusUpdateFrequencyMs: 300,
        clusterFailureThresholdMs: 1000,
      });
    replicaA = await replica('replica-a');
    replicaB = await replica('replica-b');
    admin = await newKubectl(replicaA.adminKubeconfigPath);
    adminB = await newKubectl(replicaB.adminKubeconfigPath);
    api = await ApiClient.load(replicaA.adminKubeconfigPath);
  });

  after(async () => {
    api?.close();
    await Promise.all(kubectls.map((kubectl) => kubectl.dispose()));
    await replicaA?.stop();
    await replicaB?.stop();
    await member2?.stop();
    await member1?.stop();
    await etcd?.stop();
    await remove?.();
  });

  const readyOf = async (name: string) => {
    const cluster = (await api.request('GET', `${CLUSTERS}/${name}`)).body;
    return (cluster?.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Ready');
  };

  it('kubectl get clusters lists the cluster given at start, Ready, with its Kubernetes version', async () => {
    await waitUntil('member1 Ready', async () => (await readyOf('member1'))?.status === 'True', { timeout: 10_000 });
    const table = await admin.ok(['get', 'clusters']);
    const [header, row] = table.trim().split('\n');
    expect(header.split(/\s+/)).to.deep.equal(['NAME', 'VERSION', 'MODE', 'READY', 'AGE']);
    expect(row.split(/\s+/).slice(0, 4)).to.deep.equal(['member1', 'v1.32.0-paddock-devcluster', 'Push', 'True']);
    const ready = await readyOf('member1');
    expect(ready).to.include({ reason: 'ClusterReady', message: 'cluster is healthy and ready to accept workloads' });
    // Its credentials are a Secret of karmada-cluster, in the gateway's store and nowhere upstream.
    const secret = JSON.parse(await admin.ok(['get', 'secret', 'member1', '-n', 'karmada-cluster', '-o', 'json']));
    expect(Object.keys(secret.data).sort()).to.deep.equal(['caBundle', 'tls.crt', 'tls.key']);
    expect(secret.type).to.equal('Opaque');
  });

  it("stamps a NoExecute taint an admin adds without timeAdded, as Karmada's webhook does; NoSchedule ones stay as given", async () => {
    const patch = {
      spec: {
        taints: [
          { key: 'outage', effect: 'NoExecute' },
          { key: 'spare', effect: 'NoSchedule' },
        ],
      },
    };
    await admin.ok(['patch', 'cluster', 'member1', '--type', 'merge', '-p', JSON.stringify(patch)]);
    try {
      const taints = (await api.request('GET', `${CLUSTERS}/member1`)).body.spec.taints as Record<string, string>[];
      expect(taints.map((t) => [t.key, t.effect, t.timeAdded === undefined])).to.deep.equal([
        ['outage', 'NoExecute', false],
        ['spare', 'NoSchedule', true],
      ]);
      expect(Date.parse(taints[0].timeAdded)).to.be.closeTo(Date.now(), 60_000);
    } finally {
      await admin.ok([
        'patch',
        'cluster',
        'member1',
        '--type',
        'json',
        '-p',
        '[{"op":"remove","path":"/spec/taints"}]',
      ]);
    }
  });

  it('registers a second cluster from a Secret and a Cluster made with kubectl: Ready with its APIs, tenants placed there, known to every replica', async () => {
    member2 = await startDevCluster({ name: 'member2', listen: '127.0.0.1:0', dataDir: `${dir}/member2` });
    const credentials = parseKubeconfig(await readFile(member2.kubeconfigPath, 'utf8'));
    await writeFile(`${dir}/ca.crt`, credentials.caPem);
    await writeFile(`${dir}/tls.crt`, credentials.certPem);
    await writeFile(`${dir}/tls.key`, credentials.keyPem);
    await admin.ok([
      'create',
      'secret',
      'generic',
      'member2',
      '-n',
      'karmada-cluster',
      `--from-file=caBundle=${dir}/ca.crt`,
      `--from-file=tls.crt=${dir}/tls.crt`,
      `--from-file=tls.key=${dir}/tls.key`,
    ]);
    await admin.ok(['apply', '-f', '-'], clusterYaml('member2', credentials.server));
    await waitUntil('member2 Ready', async () => (await readyOf('member2'))?.status === 'True', { timeout: 10_000 });
    const cluster = (await api.request('GET', `${CLUSTERS}/member2`)).body;
    const core = cluster.status.apiEnablements.find((e: { groupVersion: string }) => e.groupVersion === 'v1');
    expect(core.resources).to.deep.include({ name: 'pods', kind: 'Pod' });
    expect(core.resources.map((r: { name: string }) => r.name)).to.not.include('pods/status');
    expect(cluster.status.apiEnablements.map((e: { groupVersion: string }) => e.groupVersion)).to.include('apps/v1');
    expect(cluster.status.conditions.map((c: { type: string }) => c.type)).to.include('CompleteAPIEnablements');

    await waitUntil('replica B knows member2', () => replicaB.clusters.get('member2') !== undefined, {
      timeout: 10_000,
    });
    expect(replicaB.clusters.get('member2')).to.include({ region: 'local', provider: 'devcluster' });
    expect(replicaB.clusters.get('member2')!.labels).to.deep.equal({ tier: 'second' });
    expect((await adminB.ok(['get', 'clusters', '-o', 'name'])).trim().split('\n')).to.deep.equal([
      'cluster.cluster.karmada.io/member1',
      'cluster.cluster.karmada.io/member2',
    ]);

    const { kubeconfigPath } = await createActiveTenant(api, 'clust2', dir, {
      clusterAffinity: { clusterNames: ['member2'] },
    });
    const tenant = (await api.request('GET', '/apis/tenant.kubezoo.io/v1alpha1/tenants/clust2')).body;
    expect(tenant.status.cluster).to.equal('member2');
    const kubectl = await newKubectl(kubeconfigPath);
    await kubectl.ok(['create', 'configmap', 'placed', '--from-literal=where=member2']);
    const upstream = await ApiClient.load(member2.kubeconfigPath);
    try {
      const placed = await upstream.request('GET', '/api/v1/namespaces/clust2-default/configmaps/placed');
      expect(placed.status).to.equal(200);
      expect(placed.body.data).to.deep.equal({ where: 'member2' });
    } finally {
      upstream.close();
    }
  });

  const taintsOf = async (name: string) =>
    ((await api.request('GET', `${CLUSTERS}/${name}`)).body?.spec?.taints ?? []) as {
      key: string;
      effect: string;
      timeAdded: string;
    }[];

  it('turns Ready False with ClusterNotReachable once the cluster has failed for the failure threshold, and taints it NoSchedule', async () => {
    await member2!.stop();
    member2 = undefined;
    await waitUntil('member2 not Ready', async () => (await readyOf('member2'))?.status === 'False', {
      timeout: 10_000,
    });
    expect(await readyOf('member2')).to.include({ reason: 'ClusterNotReachable', message: 'cluster is not reachable' });
    const row = (await admin.ok(['get', 'cluster', 'member2', '--no-headers'])).trim().split(/\s+/);
    expect(row.slice(0, 4)).to.deep.equal(['member2', 'v1.32.0-paddock-devcluster', 'Push', 'False']);
    // Karmada's cluster controller keeps new work off a cluster that is not Ready.
    await waitUntil('member2 tainted', async () => (await taintsOf('member2')).length > 0, { timeout: 10_000 });
    const [taint] = await taintsOf('member2');
    expect(taint).to.include({ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' });
    expect(Date.parse(taint.timeAdded)).to.be.closeTo(Date.now(), 60_000);
    expect(await taintsOf('member1'), 'a Ready cluster has none').to.deep.equal([]);
  });

  it('kubectl delete cluster removes it from every replica', async () => {
    expect(replicaA.clusters.get('member2')).to.not.equal(undefined);
    await admin.ok(['delete', 'cluster', 'member2']);
    await waitUntil(
      'member2 gone on both replicas',
      () => replicaA.clusters.get('member2') === undefined && replicaB.clusters.get('member2') === undefined,
      { timeout: 10_000 },
    );
    expect((await adminB.ok(['get', 'clusters', '-o', 'name'])).trim()).to.equal('cluster.cluster.karmada.io/member1');
  });

  it("connects to a cluster with Karmada's bearer token (a ServiceAccount's) instead of a client certificate", async () => {
    const upstream = await ApiClient.load(member1.kubeconfigPath);
    let token: string;
    try {
      for (const [path, body] of [
        ['/api/v1/namespaces/kube-system/serviceaccounts', { metadata: { name: 'karmada' } }],
        [
          '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
          {
            metadata: { name: 'karmada' },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
            subjects: [{ kind: 'ServiceAccount', name: 'karmada', namespace: 'kube-system' }],
          },
        ],
      ] as const)
        expect((await upstream.request('POST', path, body)).status).to.equal(201);
      const issued = await upstream.request('POST', '/api/v1/namespaces/kube-system/serviceaccounts/karmada/token', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: {},
      });
      token = issued.body.status.token;
    } finally {
      upstream.close();
    }
    const credentials = parseKubeconfig(await readFile(member1.kubeconfigPath, 'utf8'));
    await writeFile(`${dir}/member1-ca.crt`, credentials.caPem);
    await admin.ok([
      'create',
      'secret',
      'generic',
      'viatoken',
      '-n',
      'karmada-cluster',
      `--from-file=caBundle=${dir}/member1-ca.crt`,
      `--from-literal=token=${token}`,
    ]);
    await admin.ok(['apply', '-f', '-'], clusterYaml('viatoken', credentials.server));
    await waitUntil('viatoken Ready', async () => (await readyOf('viatoken'))?.status === 'True', { timeout: 10_000 });
    const { kubeconfigPath } = await createActiveTenant(api, 'bytokn', dir, {
      clusterAffinity: { clusterNames: ['viatoken'] },
    });
    const kubectl = await newKubectl(kubeconfigPath);
    await kubectl.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'box' },
        spec: { containers: [{ name: 'main', image: 'busybox' }] },
      }),
    );
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/box', '--timeout=20s']);
    expect(await kubectl.ok(['exec', 'box', '--', 'echo', 'by', 'token'])).to.equal('by token\n');
    expect(await admin.ok(['get', 'pods', '-n', 'bytokn-default', '-o', 'name'])).to.equal('pod/box\n');
    await admin.ok(['delete', 'tenant', 'bytokn']);
    await admin.ok(['delete', 'cluster', 'viatoken']);
  });

  it("refuses an invalid Cluster with 422 and Karmada's field errors", async () => {
    const bad = await admin.run(
      ['apply', '-f', '-'],
      `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata:
  name: bad
spec:
  syncMode: Pull
  apiEndpoint: "https://user@host:6443/?x=1"
  secretRef: {namespace: karmada-cluster}
  zone: a
  zones: [b]
  taints: [{key: k, effect: Sometimes}]
`,
    );
    expect(bad.code).to.not.equal(0);
    expect(bad.stderr).to.include('The Cluster "bad" is invalid');
    expect(bad.stderr).to.include('spec.syncMode: Unsupported value: "Pull": supported values: "Push"');
    expect(bad.stderr).to.include(
      'spec.apiEndpoint: Invalid value: "user": user information is not permitted in the URL',
    );
    expect(bad.stderr).to.include('spec.secretRef.name: Required value');
    expect(bad.stderr).to.include('Zone and Zones cannot co-exist');
    expect(bad.stderr).to.include('spec.taints[0].effect: Unsupported value: "Sometimes"');
    const response = await api.request('POST', CLUSTERS, {
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'x'.repeat(49) },
      spec: { syncMode: 'Push' },
    });
    expect(response.status).to.equal(422);
    expect(response.body.reason).to.equal('Invalid');
    expect(response.body.details.causes[0]).to.deep.include({
      field: 'metadata.name',
      message: `Invalid value: "${'x'.repeat(49)}": must be no more than 48 characters`,
    });
  });

  it('keeps clusters and their Secrets from tenants (403), and out of what their own namespaces show', async () => {
    const { kubeconfigPath } = await createActiveTenant(api, 'nocred', dir);
    const tenantApi = await ApiClient.load(kubeconfigPath);
    try {
      const clusters = await tenantApi.request('GET', CLUSTERS);
      expect(clusters.status).to.equal(403);
      expect(clusters.body.message).to.equal(
        'clusters.cluster.karmada.io is forbidden: User "nocred-admin" cannot list resource "clusters" in API group "cluster.karmada.io" at the cluster scope',
      );
      const secret = await tenantApi.request('GET', '/api/v1/namespaces/karmada-cluster/secrets/member1');
      expect(secret.status).to.equal(403);
      expect(secret.body.reason).to.equal('Forbidden');
    } finally {
      tenantApi.close();
    }
    const kubectl = await newKubectl(kubeconfigPath);
    const denied = await kubectl.run(['get', 'secrets', '-n', 'karmada-cluster']);
    expect(denied.code).to.not.equal(0);
    expect(denied.stderr).to.include('secrets is forbidden');
    const all = await kubectl.ok(['get', 'secrets', '-A', '-o', 'name']);
    expect(all).to.not.include('member1');
    const resources = await kubectl.ok(['api-resources', '-o', 'name']);
    expect(resources).to.not.include('cluster.karmada.io');
  });

  it("passes the admin's other requests through to the default cluster, with the gateway's own API beside them", async () => {
    const upstream = await ApiClient.load(member1.kubeconfigPath);
    try {
      const created = await upstream.request('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'straight-upstream' },
      });
      expect(created.status).to.equal(201);
    } finally {
      upstream.close();
    }
    expect(await admin.ok(['get', 'namespaces', '-o', 'name'])).to.include('namespace/straight-upstream');
    await admin.ok(['create', 'configmap', 'from-admin', '-n', 'straight-upstream', '--from-literal=a=b']);
    expect(await admin.ok(['get', 'configmaps', '-A', '-o', 'name'])).to.include('configmap/from-admin');
    const resources = (await admin.ok(['api-resources', '-o', 'name'])).trim().split('\n');
    expect(resources).to.include.members(['pods', 'namespaces', 'deployments.apps', 'tenants.tenant.kubezoo.io']);
    expect(resources).to.include('clusters.cluster.karmada.io');
    const whoami = await admin.ok(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect(whoami).to.equal('admin');
    expect(await admin.ok(['get', 'tenants', '-o', 'name'])).to.include('tenant.tenant.kubezoo.io/nocred');
    // The admin's own impersonation reaches the cluster as it is: there, the request runs as that user.
    const asAuditor = await admin.run(['get', 'pods', '-n', 'straight-upstream', '--as=auditor']);
    expect(asAuditor.code).to.not.equal(0);
    expect(asAuditor.stderr).to.include('User "auditor" cannot list resource "pods"');
  });

  it("pipes the admin's exec to the default cluster as it is", async () => {
    await admin.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'box', namespace: 'straight-upstream' },
        spec: { containers: [{ name: 'main', image: 'busybox' }] },
      }),
    );
    await admin.ok(['wait', '--for=condition=Ready', 'pod/box', '-n', 'straight-upstream', '--timeout=20s']);
    expect(await admin.ok(['exec', 'box', '-n', 'straight-upstream', '--', 'echo', 'through', 'as', 'admin'])).to.equal(
      'through as admin\n',
    );
  });
});
