import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { ApiClient } from '../support/api-client.js';
import { waitUntil, type WaitOptions } from '../support/eventually.js';
import { makeTempDir } from '../support/temp-dir.js';

/** Generous: the collector's work is quick, but a loaded CI machine can stall it for seconds. */
const CONTROLLERS: WaitOptions = { timeout: 30_000 };

/**
 * Whose owner an owner reference names, as kube's garbage collector decides it
 * (pkg/controller/garbagecollector and test/integration/garbagecollector): apiVersion/kind, name,
 * the dependent's own namespace (or none, for a cluster-scoped owner) and uid together; a uid under
 * other coordinates is an absent owner.
 */
describe('devcluster: garbage collector owner identity', function () {
  this.timeout(120_000);
  let cluster: DevCluster;
  let api: ApiClient;
  let remove: () => Promise<void>;
  let counter = 0;

  before(async () => {
    const temp = await makeTempDir('gc-owners');
    remove = temp.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: temp.dir });
    api = await ApiClient.load(cluster.kubeconfigPath);
  });
  after(async () => {
    await cluster?.stop();
    await remove?.();
  });

  async function namespace(): Promise<string> {
    const name = `gco-${++counter}`;
    expect((await api.request('POST', '/api/v1/namespaces', { metadata: { name } })).status).to.equal(201);
    return name;
  }

  const configMaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

  async function configMap(ns: string, name: string, metadata: Record<string, unknown> = {}): Promise<any> {
    const res = await api.request('POST', configMaps(ns), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, ...metadata },
      data: { a: '1' },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body;
  }

  const refTo = (owner: any, extra: Record<string, unknown> = {}) => ({
    apiVersion: owner.apiVersion ?? 'v1',
    kind: owner.kind ?? 'ConfigMap',
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    ...extra,
  });

  const status = async (path: string) => (await api.request('GET', path)).status;
  const gone = (what: string, path: string) =>
    waitUntil(`${what} deleted`, async () => (await status(path)) === 404, CONTROLLERS);

  async function invalidNamespaceEvents(ns: string, uid: string): Promise<any[]> {
    const events = (await api.request('GET', `/api/v1/namespaces/${ns}/events`)).body.items as any[];
    return events.filter((e) => e.reason === 'OwnerRefInvalidNamespace' && e.involvedObject.uid === uid);
  }

  /**
   * The collector acts in the order it sees changes: once a foreground deletion made after
   * `path`'s has been let go, the collector has looked at `path`'s too.
   */
  async function collectorCaughtUp(ns: string): Promise<void> {
    const marker = await configMap(ns, `marker-${++counter}`);
    await api.request('DELETE', `${configMaps(ns)}/${marker.metadata.name}`, { propagationPolicy: 'Foreground' });
    await gone('the marker', `${configMaps(ns)}/${marker.metadata.name}`);
  }

  it('a matching owner cascades: Background deletes the dependent, Orphan keeps it without the reference', async () => {
    const ns = await namespace();
    const owner = await configMap(ns, 'owner');
    await configMap(ns, 'child', { ownerReferences: [refTo(owner)] });
    await collectorCaughtUp(ns);
    expect(await status(`${configMaps(ns)}/child`)).to.equal(200);
    await api.request('DELETE', `${configMaps(ns)}/owner`, { propagationPolicy: 'Background' });
    await gone('child', `${configMaps(ns)}/child`);

    const orphaning = await configMap(ns, 'orphaning');
    await configMap(ns, 'orphan', { ownerReferences: [refTo(orphaning, { blockOwnerDeletion: true })] });
    await api.request('DELETE', `${configMaps(ns)}/orphaning`, { propagationPolicy: 'Orphan' });
    await gone('orphaning', `${configMaps(ns)}/orphaning`);
    const kept = await api.request('GET', `${configMaps(ns)}/orphan`);
    expect(kept.status).to.equal(200);
    expect(kept.body.metadata.ownerReferences).to.equal(undefined);
  });

  it('a cluster-scoped owner of a namespaced dependent is solid, and its deletion cascades', async () => {
    const ns = await namespace();
    const role = (
      await api.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
        metadata: { name: `gco-owner-${++counter}` },
        rules: [],
      })
    ).body;
    await configMap(ns, 'child', {
      ownerReferences: [refTo({ ...role, apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' })],
    });
    await collectorCaughtUp(ns);
    expect(await status(`${configMaps(ns)}/child`)).to.equal(200);
    await api.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role.metadata.name}`);
    await gone('child', `${configMaps(ns)}/child`);
  });

  it('foreground deletion waits for dependents with blockOwnerDeletion only, and deletes the others', async () => {
    const ns = await namespace();
    const owner = await configMap(ns, 'owner');
    const held = { finalizers: ['example.com/hold'] };
    await configMap(ns, 'blocking', { ...held, ownerReferences: [refTo(owner, { blockOwnerDeletion: true })] });
    await configMap(ns, 'not-blocking', { ...held, ownerReferences: [refTo(owner)] });
    const deleting = await api.request('DELETE', `${configMaps(ns)}/owner`, { propagationPolicy: 'Foreground' });
    expect(deleting.body.metadata.finalizers).to.include('foregroundDeletion');
    await waitUntil(
      'both dependents deleting',
      async () =>
        (await api.request('GET', `${configMaps(ns)}/blocking`)).body.metadata?.deletionTimestamp &&
        (await api.request('GET', `${configMaps(ns)}/not-blocking`)).body.metadata?.deletionTimestamp,
      CONTROLLERS,
    );
    await collectorCaughtUp(ns);
    expect(await status(`${configMaps(ns)}/owner`), 'held by the blocking dependent').to.equal(200);

    await api.request(
      'PATCH',
      `${configMaps(ns)}/blocking`,
      { metadata: { finalizers: null } },
      {
        'Content-Type': 'application/merge-patch+json',
      },
    );
    await gone('owner', `${configMaps(ns)}/owner`);
    expect(await status(`${configMaps(ns)}/not-blocking`), 'its own finalizer holds it').to.equal(200);
  });

  it("a reference to an object in another namespace is an absent owner, reported with kube's OwnerRefInvalidNamespace", async () => {
    const [ownerNs, otherNs] = [await namespace(), await namespace()];
    const owner = await configMap(ownerNs, 'owner');
    const valid = await configMap(ownerNs, 'valid', { ownerReferences: [refTo(owner)] });
    const invalid = await configMap(otherNs, 'invalid', { ownerReferences: [refTo(owner)] });
    await gone('the dependent in the other namespace', `${configMaps(otherNs)}/invalid`);
    await waitUntil(
      'the event',
      async () => (await invalidNamespaceEvents(otherNs, invalid.metadata.uid)).length > 0,
      CONTROLLERS,
    );
    const [event] = await invalidNamespaceEvents(otherNs, invalid.metadata.uid);
    expect(event).to.deep.include({
      type: 'Warning',
      message: `ownerRef [v1/ConfigMap, namespace: ${otherNs}, name: owner, uid: ${owner.metadata.uid}] does not exist in namespace "${otherNs}"`,
      source: { component: 'garbage-collector-controller' },
    });
    expect(event.involvedObject).to.deep.include({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: otherNs,
      name: 'invalid',
    });
    expect(await status(`${configMaps(ownerNs)}/owner`)).to.equal(200);
    expect((await api.request('GET', `${configMaps(ownerNs)}/valid`)).body.metadata.uid).to.equal(valid.metadata.uid);
    expect(await invalidNamespaceEvents(ownerNs, valid.metadata.uid)).to.deep.equal([]);
  });

  it('a reference whose name or kind is not the object of that uid is an absent owner', async () => {
    const ns = await namespace();
    const owner = await configMap(ns, 'owner');
    await configMap(ns, 'wrong-name', { ownerReferences: [refTo(owner, { name: 'someone-else' })] });
    await configMap(ns, 'wrong-kind', { ownerReferences: [refTo(owner, { kind: 'Secret' })] });
    await gone('the dependent naming another name', `${configMaps(ns)}/wrong-name`);
    await gone('the dependent naming another kind', `${configMaps(ns)}/wrong-kind`);
    expect(await status(`${configMaps(ns)}/owner`)).to.equal(200);
  });

  it('a dependent with one real owner keeps living and loses only the reference that does not resolve', async () => {
    const [ns, otherNs] = [await namespace(), await namespace()];
    const foreign = await configMap(otherNs, 'foreign');
    const owner = await configMap(ns, 'owner');
    await configMap(ns, 'child', { ownerReferences: [refTo(owner), refTo(foreign)] });
    await waitUntil(
      'the foreign reference dropped',
      async () => (await api.request('GET', `${configMaps(ns)}/child`)).body.metadata.ownerReferences?.length === 1,
      CONTROLLERS,
    );
    const child = (await api.request('GET', `${configMaps(ns)}/child`)).body;
    expect(child.metadata.ownerReferences[0].uid).to.equal(owner.metadata.uid);
    expect(child.metadata.deletionTimestamp).to.equal(undefined);
  });

  it('a dependent created with an owner that never existed is deleted (kube: TestCreateWithNonExistentOwner)', async () => {
    const ns = await namespace();
    await configMap(ns, 'stray', {
      ownerReferences: [refTo({ metadata: { name: 'nobody', uid: '00000000-0000-4000-8000-000000000000' } })],
    });
    await gone('stray', `${configMaps(ns)}/stray`);
  });

  it('a solid owner does not block a waiting one: the dependent drops the waiting reference and stays (kube: TestSolidOwnerDoesNotBlockWaitingOwner)', async () => {
    const ns = await namespace();
    const [solid, waiting] = [await configMap(ns, 'solid'), await configMap(ns, 'waiting')];
    await configMap(ns, 'child', {
      ownerReferences: [refTo(solid, { blockOwnerDeletion: true }), refTo(waiting, { blockOwnerDeletion: true })],
    });
    await api.request('DELETE', `${configMaps(ns)}/waiting`, { propagationPolicy: 'Foreground' });
    await gone('the waiting owner', `${configMaps(ns)}/waiting`);
    const child = (await api.request('GET', `${configMaps(ns)}/child`)).body;
    expect(child.metadata.deletionTimestamp).to.equal(undefined);
    expect(child.metadata.ownerReferences.map((ref: any) => ref.uid)).to.deep.equal([solid.metadata.uid]);
  });

  it('a cluster-scoped dependent of a namespaced owner is reported and left alone, as kube cannot resolve it', async () => {
    const ns = await namespace();
    const owner = await configMap(ns, 'owner');
    const role = (
      await api.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
        metadata: { name: `gco-dependent-${++counter}`, ownerReferences: [refTo(owner)] },
        rules: [],
      })
    ).body;
    await waitUntil(
      'the event in default',
      async () => (await invalidNamespaceEvents('default', role.metadata.uid)).length > 0,
      CONTROLLERS,
    );
    await collectorCaughtUp(ns);
    expect(await status(`/apis/rbac.authorization.k8s.io/v1/clusterroles/${role.metadata.name}`)).to.equal(200);
  });

  it("foreground deletion counts a blocking dependent by uid, as kube's blockingDependents: one held elsewhere holds the owner until it is gone", async () => {
    const [ownerNs, otherNs] = [await namespace(), await namespace()];
    const owner = await configMap(ownerNs, 'owner');
    const squatter = await configMap(otherNs, 'owner', {
      finalizers: ['example.com/hold'],
      ownerReferences: [refTo(owner, { blockOwnerDeletion: true })],
    });
    // Collected as a dependent of an absent owner: deleted at once, kept only by its own finalizer.
    await waitUntil(
      'the squatter deleting',
      async () => (await api.request('GET', `${configMaps(otherNs)}/owner`)).body.metadata?.deletionTimestamp,
      CONTROLLERS,
    );
    expect(await invalidNamespaceEvents(otherNs, squatter.metadata.uid)).to.have.length(1);

    await api.request('DELETE', `${configMaps(ownerNs)}/owner`, { propagationPolicy: 'Foreground' });
    await collectorCaughtUp(ownerNs);
    expect(await status(`${configMaps(ownerNs)}/owner`)).to.equal(200);
    await api.request(
      'PATCH',
      `${configMaps(otherNs)}/owner`,
      { metadata: { finalizers: null } },
      {
        'Content-Type': 'application/merge-patch+json',
      },
    );
    await gone('the owner', `${configMaps(ownerNs)}/owner`);
  });
});
