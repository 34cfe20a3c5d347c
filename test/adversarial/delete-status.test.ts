/**
 * A DELETE answered with a Success Status names what was deleted as upstream knows it: a
 * cluster-scoped name with the tenant's prefix, a custom group with it. The tenant must get its
 * own names (the uid kept, so a client can tell which object went), for every kind of name.
 */
import { expect } from 'chai';
import { ApiClient } from '../support/api-client.js';
import { waitUntil } from '../support/eventually.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';

const ALICE = 'alice1';
const PROTOBUF_FIRST = 'application/vnd.kubernetes.protobuf,application/json';

const success = (details: Record<string, string>) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Success',
  details,
});

const crd = (plural: string, kind: string, scope: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.example.com` },
  spec: {
    group: 'example.com',
    scope,
    names: { plural, singular: plural.slice(0, -1), kind },
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

describe('adversarial: a delete Status carries no tenant prefix', function () {
  let stage: TwoTenants;
  let alice: ApiClient;

  before(async () => {
    stage = await startTwoTenants('delete-status', [ALICE, 'bobby2']);
    alice = await ApiClient.load(stage.tenants[0].kubectl.kubeconfig);
    for (const [plural, kind, scope] of [
      ['gadgets', 'Gadget', 'Namespaced'],
      ['globes', 'Globe', 'Cluster'],
    ] as const) {
      const made = await alice.request(
        'POST',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        crd(plural, kind, scope),
      );
      expect(made.status, made.text).to.equal(201);
    }
    await waitUntil(
      'alice is served her custom resources',
      async () =>
        (await alice.request('GET', '/apis/example.com/v1/globes')).status === 200 &&
        (await alice.request('GET', '/apis/example.com/v1/namespaces/default/gadgets')).status === 200,
    );
  });
  after(async () => {
    alice?.close();
    await stage?.stop();
  });

  /** Creates, deletes, and returns the delete's answer with the uid the tenant was given at creation. */
  async function createThenDelete(collection: string, object: Record<string, unknown>, accept = 'application/json') {
    const made = await alice.request('POST', collection, object);
    expect(made.status, made.text).to.equal(201);
    const name = made.body.metadata.name;
    const deleted = await alice.request('DELETE', `${collection}/${name}`, undefined, { Accept: accept });
    expect(deleted.status, deleted.text).to.equal(200);
    expect(deleted.text).to.not.contain(ALICE);
    return { uid: made.body.metadata.uid as string, deleted };
  }

  it('a namespaced object: its name and resource, the uid kept', async () => {
    const { uid, deleted } = await createThenDelete('/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings' },
    });
    expect(deleted.body).to.deep.equal(success({ name: 'settings', kind: 'configmaps', uid }));
  });

  it('a cluster-scoped object: its name without the prefix, also to a client that offers protobuf first', async () => {
    const { uid, deleted } = await createThenDelete(
      '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' }, rules: [] },
      PROTOBUF_FIRST,
    );
    expect(deleted.headers['content-type']).to.match(/^application\/json/);
    expect(deleted.body).to.deep.equal(
      success({ name: 'reader', group: 'rbac.authorization.k8s.io', kind: 'clusterroles', uid }),
    );
  });

  it("custom resources of the tenant's CRDs: the group renamed down, a cluster-scoped name without the prefix", async () => {
    const gadget = await createThenDelete('/apis/example.com/v1/namespaces/default/gadgets', {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g' },
    });
    expect(gadget.deleted.body).to.deep.equal(
      success({ name: 'g', group: 'example.com', kind: 'gadgets', uid: gadget.uid }),
    );
    const globe = await createThenDelete('/apis/example.com/v1/globes', {
      apiVersion: 'example.com/v1',
      kind: 'Globe',
      metadata: { name: 'earth' },
    });
    expect(globe.deleted.body).to.deep.equal(
      success({ name: 'earth', group: 'example.com', kind: 'globes', uid: globe.uid }),
    );
  });

  it('a delete-collection of cluster-scoped custom resources answers the tenant its own list', async () => {
    for (const name of ['mars', 'venus']) {
      const made = await alice.request('POST', '/apis/example.com/v1/globes', {
        apiVersion: 'example.com/v1',
        kind: 'Globe',
        metadata: { name },
      });
      expect(made.status, made.text).to.equal(201);
    }
    const swept = await alice.request('DELETE', '/apis/example.com/v1/globes');
    expect(swept.status, swept.text).to.equal(200);
    expect(swept.text).to.not.contain(ALICE);
    expect(swept.body).to.include({ kind: 'GlobeList', apiVersion: 'example.com/v1' });
    expect(swept.body.items.map((i: any) => i.metadata.name)).to.have.members(['mars', 'venus']);
  });

  it('kubectl prints the tenant its own names for either answer', async () => {
    const kubectl = stage.tenants[0].kubectl;
    await kubectl.ok(['create', 'clusterrole', 'viewer', '--verb=get', '--resource=pods']);
    expect(await kubectl.ok(['delete', 'clusterrole', 'viewer'])).to.equal(
      'clusterrole.rbac.authorization.k8s.io "viewer" deleted\n',
    );
    await kubectl.ok(
      ['apply', '-f', '-'],
      JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Globe', metadata: { name: 'moon' } }),
    );
    expect(await kubectl.ok(['delete', 'globe', 'moon', '--wait'])).to.equal('globe.example.com "moon" deleted\n');
  });
});
