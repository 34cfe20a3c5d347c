/**
 * Answers carry what Go's encoding of the kind prints though the client never sent it, as
 * kube-apiserver's do: a created Deployment answers `status: {}` and its template
 * `metadata.creationTimestamp: null`, a ConfigMap (no struct field) answers without status; the
 * same in get, list and watch, and for the objects the controllers write. A write that leaves
 * those out changes nothing: no new generation.
 */
import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { ApiClient } from '../support/api-client.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';
import { deployment, getJson } from '../support/workloads.js';

describe("devcluster answers with Go's zero fields of built-in kinds, as kube-apiserver", function () {
  this.timeout(120_000);
  let cluster: DevCluster;
  let remove: () => Promise<void>;
  let admin: Kubectl;
  let api: ApiClient;

  before(async () => {
    const dir = await makeTempDir('zero-fields');
    remove = dir.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: dir.dir });
    admin = await Kubectl.create(cluster.kubeconfigPath);
    api = await ApiClient.load(cluster.kubeconfigPath);
  });
  after(async () => {
    api?.close();
    await admin?.dispose();
    await cluster?.stop();
    await remove?.();
  });

  it('create answers a Deployment with status {} and a template creationTimestamp null, a ConfigMap without status', async () => {
    await admin.ok(['create', 'namespace', 'z1']);
    const created = JSON.parse(
      await admin.ok(['create', '-f', '-', '-o', 'json', '-n', 'z1'], JSON.stringify(deployment('web'))),
    );
    expect(created.status).to.deep.equal({});
    expect(created.spec.template.metadata).to.deep.equal({ labels: { app: 'web' }, creationTimestamp: null });
    expect(created.spec.template.spec.containers[0].resources).to.deep.equal({});

    const configMap = JSON.parse(
      await admin.ok(['create', 'configmap', 'settings', '--from-literal=a=b', '-o', 'json', '-n', 'z1']),
    );
    expect(configMap).to.not.have.property('status');
    expect(Object.keys(configMap).sort()).to.deep.equal(['apiVersion', 'data', 'kind', 'metadata']);

    // A ClusterRole without rules has them null, as Go prints a nil slice without omitempty.
    const role = await api.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'zero-rules' },
    });
    expect(role.status).to.equal(201);
    expect(role.body).to.have.property('rules', null);
  });

  it('get, list and watch carry them too, and so do the objects the controllers write', async () => {
    await admin.ok(['create', 'namespace', 'z2']);
    const watch = api.watch('/apis/apps/v1/namespaces/z2/replicasets?watch=true');
    try {
      await admin.ok(['create', '-f', '-', '-n', 'z2'], JSON.stringify(deployment('api')));
      await watch.waitFor((events) => events.length > 0);
      // The ReplicaSet the deployment controller made: its template as Go prints it, from the first event on.
      expect(watch.events[0].object.spec.template.metadata.creationTimestamp).to.equal(null);
    } finally {
      watch.close();
    }
    const got = await getJson(admin, ['deployment', 'api', '-n', 'z2']);
    expect(got.spec.template.metadata).to.have.property('creationTimestamp', null);
    const list = await getJson(admin, ['deployments', '-n', 'z2']);
    expect(list.items[0].spec.template.metadata).to.have.property('creationTimestamp', null);
    const daemonSet = JSON.parse(
      await admin.ok(
        ['create', '-f', '-', '-o', 'json', '-n', 'z2'],
        JSON.stringify({ ...deployment('agent'), kind: 'DaemonSet', metadata: { name: 'agent' } }),
      ),
    );
    // Status fields without omitempty print as 0 until the controller counts.
    expect(daemonSet.status).to.deep.equal({
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    });
  });

  it('a replace that leaves out what the server filled in is no change: the generation stays', async () => {
    await admin.ok(['create', 'namespace', 'z3']);
    await admin.ok(['create', '-f', '-', '-n', 'z3'], JSON.stringify(deployment('web')));
    const before = await getJson(admin, ['deployment', 'web', '-n', 'z3']);
    expect(before.metadata.generation).to.equal(1);
    // The manifest as first sent: no creationTimestamp in the template, no defaults, no status.
    await admin.ok(['replace', '-f', '-', '-n', 'z3'], JSON.stringify(deployment('web')));
    expect((await getJson(admin, ['deployment', 'web', '-n', 'z3'])).metadata.generation).to.equal(1);
  });
});
