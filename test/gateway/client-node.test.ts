/**
 * `@kubernetes/client-node` 1.4 (the JavaScript client Kubernetes publishes) through a tenant
 * kubeconfig: its typed API, its watch and its informer, which lists then watches across every
 * namespace of the tenant — what a controller written with it does first.
 */
import { CoreV1Api, KubeConfig, makeInformer, Watch, type V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'chai';
import { waitUntil } from '../support/eventually.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';

const LABEL = 'suite=node';

describe('gateway: @kubernetes/client-node through a tenant kubeconfig', function () {
  let stage: TwoTenants;
  let kubeconfig: KubeConfig;
  let core: CoreV1Api;

  before(async () => {
    stage = await startTwoTenants('client-node', ['alice1', 'bobby2']);
    const [alice, bob] = stage.tenants.map((t) => t.kubectl);
    await alice.ok(['create', 'namespace', 'other']);
    await alice.ok(['create', 'configmap', 'kept', '-n', 'other']);
    await alice.ok(['label', 'configmap', 'kept', '-n', 'other', LABEL]);
    await bob.ok(['create', 'configmap', 'neighbour']);
    await bob.ok(['label', 'configmap', 'neighbour', LABEL]);
    kubeconfig = new KubeConfig();
    kubeconfig.loadFromFile(stage.tenants[0].kubectl.kubeconfig);
    core = kubeconfig.makeApiClient(CoreV1Api);
  });
  after(async () => {
    await stage?.stop();
  });

  it('lists, creates, reads, patches, selects across namespaces, watches and deletes; an informer follows', async () => {
    const seen: string[] = [];
    const informer = makeInformer<V1ConfigMap>(
      kubeconfig,
      '/api/v1/configmaps',
      () => core.listConfigMapForAllNamespaces({ labelSelector: LABEL }),
      LABEL,
    );
    for (const verb of ['add', 'update', 'delete'] as const)
      informer.on(verb, (object) => seen.push(`${verb} ${object.metadata!.namespace}/${object.metadata!.name}`));
    const informerErrors: unknown[] = [];
    informer.on('error', (err) => informerErrors.push(err));
    await informer.start();

    const listed = await core.listNamespacedConfigMap({ namespace: 'default' });
    expect(listed.items.map((i) => i.metadata!.name)).to.not.include('settings');
    const events: string[] = [];
    const watching = await new Watch(kubeconfig).watch(
      '/api/v1/namespaces/default/configmaps',
      { resourceVersion: listed.metadata!.resourceVersion },
      (type: string, object: V1ConfigMap) => events.push(`${type} ${object.metadata!.name}`),
      () => {},
    );
    try {
      const created = await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'settings', labels: { suite: 'node' } }, data: { colour: 'blue' } },
      });
      expect(created.metadata).to.include({ name: 'settings', namespace: 'default' });
      const read = await core.readNamespacedConfigMap({ name: 'settings', namespace: 'default' });
      expect(read.metadata!.uid).to.equal(created.metadata!.uid);
      const patched = await core.patchNamespacedConfigMap({
        name: 'settings',
        namespace: 'default',
        body: [{ op: 'replace', path: '/data/colour', value: 'green' }],
      });
      expect(patched.data).to.deep.equal({ colour: 'green' });
      const selected = await core.listConfigMapForAllNamespaces({ labelSelector: LABEL });
      expect(selected.items.map((i) => `${i.metadata!.namespace}/${i.metadata!.name}`)).to.have.members([
        'default/settings',
        'other/kept',
      ]);
      const deleted = await core.deleteNamespacedConfigMap({ name: 'settings', namespace: 'default' });
      expect(deleted.status).to.equal('Success');
      expect(deleted.details).to.deep.include({ name: 'settings', kind: 'configmaps', uid: created.metadata!.uid });

      await waitUntil('the watch sees the whole life of the ConfigMap', () =>
        ['ADDED settings', 'MODIFIED settings', 'DELETED settings'].every((e) => events.includes(e)),
      );
      expect(events).to.deep.equal(['ADDED settings', 'MODIFIED settings', 'DELETED settings']);
      await waitUntil('the informer sees add, update and delete', () => seen.includes('delete default/settings'));
      expect(seen).to.deep.equal([
        'add other/kept',
        'add default/settings',
        'update default/settings',
        'delete default/settings',
      ]);
      expect(informerErrors).to.deep.equal([]);
    } finally {
      watching.abort();
      await informer.stop();
    }
  });
});
