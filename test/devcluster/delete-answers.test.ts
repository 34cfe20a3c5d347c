import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { ApiClient } from '../support/api-client.js';
import { waitUntil } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

/** What kube's generic registry answers for an object it removed at once (kind: the resource). */
const success = (details: Record<string, string>) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Success',
  details,
});

describe('devcluster: what a DELETE answers, per kind as kube-apiserver', function () {
  let cluster: DevCluster;
  let api: ApiClient;
  let kubectl: Kubectl;
  let remove: () => Promise<void>;
  const ns = '/api/v1/namespaces/default';

  before(async () => {
    const temp = await makeTempDir('delete-answers');
    remove = temp.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: temp.dir });
    api = await ApiClient.load(cluster.kubeconfigPath);
    kubectl = await Kubectl.create(cluster.kubeconfigPath);
  });
  after(async () => {
    await kubectl?.dispose();
    api?.close();
    await cluster?.stop();
    await remove?.();
  });

  async function create(path: string, body: Record<string, unknown>): Promise<string> {
    const res = await api.request('POST', path, body);
    expect(res.status, res.text).to.equal(201);
    return res.body.metadata.uid;
  }

  it('answers a Success Status naming the resource and uid for a ConfigMap removed at once, with no code', async () => {
    const uid = await create(`${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone' } });
    const res = await api.request('DELETE', `${ns}/configmaps/gone`);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(success({ name: 'gone', kind: 'configmaps', uid }));
    expect((await api.request('GET', `${ns}/configmaps/gone`)).status).to.equal(404);
  });

  it('names the group of a grouped resource, and answers the Status also to a client asking for a Table', async () => {
    const uid = await create('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'reader' },
      rules: [],
    });
    const res = await api.request(
      'DELETE',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/reader',
      undefined,
      { Accept: TABLE },
    );
    expect(res.body).to.deep.equal(success({ name: 'reader', group: 'rbac.authorization.k8s.io', kind: 'roles', uid }));
  });

  it('answers the deleted object for the kinds whose storage returns it: a Pod, a ServiceAccount, a StorageClass', async () => {
    await create(`${ns}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web' },
      spec: { containers: [{ name: 'app', image: 'nginx' }] },
    });
    await create(`${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } });
    await create('/apis/storage.k8s.io/v1/storageclasses', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'fast' },
      provisioner: 'example.com/fast',
    });
    for (const [path, kind, name] of [
      [`${ns}/pods/web`, 'Pod', 'web'],
      [`${ns}/serviceaccounts/robot`, 'ServiceAccount', 'robot'],
      ['/apis/storage.k8s.io/v1/storageclasses/fast', 'StorageClass', 'fast'],
    ]) {
      const res = await api.request('DELETE', path);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ kind });
      expect(res.body.metadata.name).to.equal(name);
    }
  });

  it('answers the object while its deletion is pending: finalizers, Foreground, a namespace', async () => {
    await create(`${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    const held = await api.request('DELETE', `${ns}/configmaps/held`);
    expect(held.body).to.include({ kind: 'ConfigMap' });
    expect(held.body.metadata.deletionTimestamp).to.be.a('string');
    const again = await api.request('DELETE', `${ns}/configmaps/held`);
    expect(again.body).to.include({ kind: 'ConfigMap' });
    await api.request('PATCH', `${ns}/configmaps/held`, [{ op: 'remove', path: '/metadata/finalizers' }], {
      'Content-Type': 'application/json-patch+json',
    });

    await create(`${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fore' } });
    const foreground = await api.request('DELETE', `${ns}/configmaps/fore`, { propagationPolicy: 'Foreground' });
    expect(foreground.body).to.include({ kind: 'ConfigMap' });
    expect(foreground.body.metadata.finalizers).to.deep.equal(['foregroundDeletion']);

    await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
    const namespace = await api.request('DELETE', '/api/v1/namespaces/doomed');
    expect(namespace.body).to.include({ kind: 'Namespace' });
    expect(namespace.body.status.phase).to.equal('Terminating');
  });

  it('answers a dry run as the real delete would, and keeps the object', async () => {
    const uid = await create(`${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' } });
    const res = await api.request('DELETE', `${ns}/configmaps/dry?dryRun=All`);
    expect(res.body).to.deep.equal(success({ name: 'dry', kind: 'configmaps', uid }));
    expect((await api.request('GET', `${ns}/configmaps/dry`)).status).to.equal(200);
  });

  it('answers a Success Status for a custom resource, its details naming the CRD group and plural', async () => {
    await create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    const widgets = '/apis/example.com/v1/namespaces/default/widgets';
    await waitUntil('widgets are served', async () => (await api.request('GET', widgets)).status === 200);
    const uid = await create(widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
    const res = await api.request('DELETE', `${widgets}/w`);
    expect(res.body).to.deep.equal(success({ name: 'w', group: 'example.com', kind: 'widgets', uid }));
    const crd = await api.request(
      'DELETE',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com',
    );
    expect(crd.body).to.include({ kind: 'CustomResourceDefinition' });
  });

  it('answers a delete-collection with the list of what it deleted, as listed', async () => {
    for (const name of ['c1', 'c2'])
      await create(`${ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, labels: { sweep: 'yes' } },
      });
    const res = await api.request('DELETE', `${ns}/configmaps?labelSelector=sweep%3Dyes`);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ kind: 'ConfigMapList', apiVersion: 'v1' });
    expect(res.body.items.map((i: any) => [i.metadata.name, i.metadata.deletionTimestamp])).to.deep.equal([
      ['c1', undefined],
      ['c2', undefined],
    ]);
    expect((await api.request('GET', `${ns}/configmaps?labelSelector=sweep%3Dyes`)).body.items).to.deep.equal([]);
  });

  it('kubectl deletes by either answer and waits on it', async () => {
    await create(`${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'k' } });
    await create(`${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'k' } });
    expect(await kubectl.ok(['delete', 'configmap', 'k', '--wait'])).to.equal('configmap "k" deleted\n');
    expect(await kubectl.ok(['delete', 'serviceaccount', 'k', '--wait'])).to.equal('serviceaccount "k" deleted\n');
  });
});
