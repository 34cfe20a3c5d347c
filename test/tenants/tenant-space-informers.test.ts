/**
 * The heal pass's view of a cluster (tenants/tenant-space-informers.ts) against a devcluster: it
 * holds what tenants' spaces are made of, tells each change by its tenant (a deletion as such),
 * keeps one tenant's objects from another's, and reads no list again while its watches last.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { parseKubeconfig } from '../../certs/index.js';
import { cachedObjectInformers, parsedObject } from '../../search/cached-object-informers.js';
import { TenantSpaceInformers } from '../../tenants/tenant-space-informers.js';
import { adminBinding, storedAdminBinding } from '../../tenants/upstream-space.js';
import { ApiClient } from '../support/api-client.js';
import { waitUntil } from '../support/eventually.js';
import { makeTempDir } from '../support/temp-dir.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const TENANT_LABEL = 'kubezoo.io/tenant';

/** The cluster's admin, counting the lists it is asked to make (a watch is opened otherwise). */
class CountingClient extends ApiClient {
  lists = 0;
  override request(...args: Parameters<ApiClient['request']>) {
    if (args[0] === 'GET') this.lists++;
    return super.request(...args);
  }
}

describe('tenants: the heal pass\u2019s informers of a cluster', function () {
  this.timeout(60_000);
  let cluster: DevCluster;
  let removeDir: () => Promise<void>;
  let admin: ApiClient;

  before(async () => {
    const dir = await makeTempDir('space-informers');
    removeDir = dir.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: dir.dir });
    admin = await ApiClient.load(cluster.kubeconfigPath);
  });
  after(async () => {
    admin?.close();
    await cluster?.stop();
    await removeDir?.();
  });

  async function counting(): Promise<CountingClient> {
    const parsed = parseKubeconfig(await readFile(cluster.kubeconfigPath, 'utf8'));
    return new CountingClient(new URL(parsed.server), { ca: parsed.caPem, cert: parsed.certPem, key: parsed.keyPem });
  }

  async function make(path: string, object: object): Promise<void> {
    const res = await admin.request('POST', path, object);
    expect(res.status, res.text).to.equal(201);
  }

  it("holds the cluster's objects without managedFields, last-applied records, creationTimestamp and generation for the controllers, their texts without the name and labels held beside them (a Namespace's its metadata alone), and whole once the cache's stores ask", async () => {
    const client = await counting();
    const informers = cachedObjectInformers('member1', client);
    try {
      const applied = 'kubectl.kubernetes.io/last-applied-configuration';
      await make('/api/v1/namespaces', {
        metadata: { name: 'mfd111-default', labels: { [TENANT_LABEL]: 'mfd111' }, annotations: { [applied]: '{}' } },
      });
      const resource = { group: '', version: 'v1', resource: 'namespaces', namespaced: false };
      const informer = informers.informerFor(resource);
      informer.addEventHandler({});
      await informer.firstSync;
      const held = () => JSON.parse(informer.indexer.getByKey('mfd111-default')!.text).metadata;
      // The name and labels the object holds beside its text are left out of it, and parsedObject puts them back.
      expect(held()).to.not.have.property('name');
      expect(held()).to.not.have.property('labels');
      const labels = { 'kubernetes.io/metadata.name': 'mfd111-default', [TENANT_LABEL]: 'mfd111' };
      const parsed = parsedObject(informer.indexer.getByKey('mfd111-default')!).metadata;
      expect(parsed).to.include({ name: 'mfd111-default', resourceVersion: held().resourceVersion });
      expect(parsed.labels).to.deep.equal(labels);
      expect(held()).to.not.have.property('managedFields');
      expect(held()).to.not.have.property('annotations');
      expect(held()).to.not.have.property('creationTimestamp');
      expect(held()).to.not.have.property('generation');
      expect(held().uid).to.be.a('string').that.is.not.empty;
      // A Namespace is held as its metadata alone.
      const heldObject = () => JSON.parse(informer.indexer.getByKey('mfd111-default')!.text);
      expect(Object.keys(heldObject())).to.deep.equal(['metadata']);
      expect(informers.informerFor(resource, { whole: true })).to.equal(informer);
      await waitUntil('held whole', () => held().managedFields !== undefined);
      expect(held().managedFields.map((entry: any) => entry.operation)).to.deep.equal(['Update']);
      expect(held().annotations).to.deep.equal({ [applied]: '{}' });
      expect(held().creationTimestamp).to.be.a('string');
      expect(held()).to.include({ name: 'mfd111-default' });
      expect(held().labels).to.deep.equal(labels);
      expect(heldObject().status).to.deep.equal({ phase: 'Active' });
    } finally {
      informers.stop();
      client.close();
    }
  });

  it('tells each change by tenant, deletions as such, and answers from what it holds', async () => {
    const client = await counting();
    const changes: string[] = [];
    const informers = cachedObjectInformers('member1', client);
    const spaces = new TenantSpaceInformers(informers, (tenantId, deleted) =>
      changes.push(`${tenantId}${deleted ? ' deleted' : ''}`),
    );
    spaces.run();
    try {
      await waitUntil('the informers are current', () => spaces.isCurrent());
      const listed = client.lists;
      expect(listed, 'one list per collection').to.equal(5);

      await make('/api/v1/namespaces', { metadata: { name: 'inf111-default', labels: { [TENANT_LABEL]: 'inf111' } } });
      // Labelled with inf111's id but named under inf222's prefix: neither tenant's namespace.
      await make('/api/v1/namespaces', { metadata: { name: 'inf222-stray', labels: { [TENANT_LABEL]: 'inf111' } } });
      await make(`${RBAC}/clusterroles`, { metadata: { name: 'inf111-cluster-admin' }, rules: [] });
      await make('/api/v1/namespaces', {
        metadata: { name: 'inf111-kube-system', labels: { [TENANT_LABEL]: 'inf111' } },
      });
      // The tenant's ClusterRoleBindings are stored as RoleBindings in its kube-system; one made before is still a ClusterRoleBinding.
      await make(`${RBAC}/namespaces/inf111-kube-system/rolebindings`, storedAdminBinding('inf111'));
      await make(`${RBAC}/clusterrolebindings`, { ...adminBinding('inf111'), metadata: { name: 'inf111-older' } });
      const grant = {
        metadata: { name: 'paddock:cluster-admin', namespace: 'inf111-default', labels: { [TENANT_LABEL]: 'inf111' } },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'inf111-cluster-admin' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'inf111-admin' }],
      };
      await make(`${RBAC}/namespaces/inf111-default/rolebindings`, grant);
      // A RoleBinding of the tenant's not made by the gateway (no grant's name) is not a grant.
      await make(`${RBAC}/namespaces/inf111-default/rolebindings`, {
        ...grant,
        metadata: { ...grant.metadata, name: 'someone-elses' },
      });

      const service = { metadata: { name: 'kubernetes' }, spec: { ports: [{ port: 443, targetPort: 6443 }] } };
      await make('/api/v1/namespaces/inf111-default/services', service);
      // Named so in a namespace other than the tenant's default: not its kubernetes Service.
      await make('/api/v1/namespaces/inf111-kube-system/services', service);
      await make('/api/v1/namespaces/inf222-stray/services', service);

      await waitUntil(
        'the view holds the grants, the bindings and the Service',
        () =>
          spaces.grantsOf('inf111').size === 1 &&
          spaces.clusterRoleBindingsOf('inf111').length === 1 &&
          spaces.hasKubernetesService('inf111'),
      );
      expect(spaces.hasKubernetesService('inf222')).to.equal(false);
      expect(spaces.hasClusterRole('inf111-cluster-admin')).to.equal(true);
      expect(spaces.hasClusterRole('inf222-cluster-admin')).to.equal(false);
      expect(spaces.namespacesOf('inf111').sort()).to.deep.equal(['inf111-default', 'inf111-kube-system']);
      expect(spaces.namespacesOf('inf222')).to.deep.equal([]);
      expect(spaces.clusterRoleBindingsOf('inf111').map((b) => [b.metadata.name, b.roleRef.name])).to.deep.equal([
        ['inf111-cluster-admin', 'inf111:cluster-admin'],
      ]);
      expect(spaces.clusterRoleBindingsOf('inf222')).to.deep.equal([]);
      expect(spaces.unstoredClusterRoleBindingsOf('inf111').map((b) => b.metadata.name)).to.deep.equal([
        'inf111-older',
      ]);
      expect([...spaces.grantsOf('inf111').keys()]).to.deep.equal(['inf111-default/paddock:cluster-admin']);
      expect(spaces.grantsOf('inf111').get('inf111-default/paddock:cluster-admin')?.subjects).to.deep.equal(
        grant.subjects,
      );
      expect(changes.filter((c) => c === 'inf111').length, 'each creation told as inf111').to.be.at.least(5);
      expect(changes, 'the stray namespace is told as inf111 (its label), nothing as deleted').to.not.include(
        'inf111 deleted',
      );

      changes.length = 0;
      const deleted = await admin.request('DELETE', `${RBAC}/clusterroles/inf111-cluster-admin`);
      expect(deleted.status).to.equal(200);
      await waitUntil('the deletion is told', () => changes.includes('inf111 deleted'));
      expect(spaces.hasClusterRole('inf111-cluster-admin')).to.equal(false);

      changes.length = 0;
      const serviceDeleted = await admin.request('DELETE', '/api/v1/namespaces/inf111-default/services/kubernetes');
      expect(serviceDeleted.status).to.equal(200);
      await waitUntil('the Service\u2019s deletion is told', () => changes.includes('inf111 deleted'));
      expect(spaces.hasKubernetesService('inf111')).to.equal(false);

      // A namespace being deleted is no longer one to grant in.
      const terminating = await admin.request('DELETE', '/api/v1/namespaces/inf111-default');
      expect(terminating.status).to.be.oneOf([200, 202]);
      await waitUntil(
        'the namespace is not the tenant\u2019s any more',
        () => spaces.namespacesOf('inf111').length === 1,
      );

      expect(client.lists, 'no list after the first, whatever changed').to.equal(listed);
    } finally {
      spaces.stop();
      informers.stop();
      client.close();
    }
  });
});
