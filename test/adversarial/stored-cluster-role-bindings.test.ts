/**
 * A tenant's ClusterRoleBindings are stored upstream as RoleBindings in its own kube-system
 * (translate/kinds/stored-cluster-role-binding.ts; docs/isolation.md, "A tenant's footprint
 * upstream"): through the real kubectl they behave as on a real cluster and still take effect for
 * the tenant's users, while none is a ClusterRoleBinding upstream; as RoleBindings they are the
 * gateway's, hidden and untouchable as the grants are, and another tenant sees nothing of them.
 */
import { expect } from 'chai';
import { ApiClient } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import type { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const A = 'scrbaa';
const B = 'scrbbb';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const STORED = 'paddock.clusterrolebinding:';
const LABEL = 'kubezoo.io/cluster-role-binding-of';

describe('adversarial: a tenant\u2019s ClusterRoleBindings, stored as RoleBindings in its kube-system', function () {
  this.timeout(180_000);
  let stage: TwoTenants;
  let alice: Kubectl;
  let bob: Kubectl;
  let aliceApi: ApiClient;
  let bobApi: ApiClient;
  let work: Awaited<ReturnType<typeof makeTempDir>>;

  before(async () => {
    stage = await startTwoTenants('scrb', [A, B]);
    alice = stage.tenants[0].kubectl;
    bob = stage.tenants[1].kubectl;
    work = await makeTempDir('scrb-clients');
    const paths = [join(work.dir, 'a.kubeconfig'), join(work.dir, 'b.kubeconfig')];
    await writeFile(paths[0], stage.tenants[0].kubeconfig);
    await writeFile(paths[1], stage.tenants[1].kubeconfig);
    aliceApi = await ApiClient.load(paths[0]);
    bobApi = await ApiClient.load(paths[1]);
  });
  after(async () => {
    aliceApi?.close();
    bobApi?.close();
    await stage?.stop();
    await work?.remove();
  });

  async function clusterRoleBindingsUpstream(): Promise<string[]> {
    const res = await stage.member.request('GET', `${RBAC}/clusterrolebindings`);
    expect(res.status, res.text).to.equal(200);
    return res.body.items.map((binding: { metadata: { name: string } }) => binding.metadata.name).sort();
  }

  const storedPath = (id: string, name: string) =>
    `${RBAC}/namespaces/${id}-kube-system/rolebindings/${encodeURIComponent(STORED + name)}`;

  it('kubectl create, get, list, -o wide, label, patch, apply and delete behave as on a real cluster; none is a ClusterRoleBinding upstream', async () => {
    const upstream = await clusterRoleBindingsUpstream();
    expect(
      await alice.ok([
        'create',
        'clusterrolebinding',
        'readers',
        '--clusterrole=view',
        '--user=dave',
        '--group=ops',
        '--serviceaccount=default:robot',
      ]),
    ).to.equal('clusterrolebinding.rbac.authorization.k8s.io/readers created\n');

    const table = await alice.ok(['get', 'clusterrolebinding', 'readers']);
    expect(table).to.match(/^NAME\s+ROLE\s+AGE\n/);
    expect(table).to.match(/\nreaders\s+ClusterRole\/view\s+\d+s\n$/);
    const wide = await alice.ok(['get', 'clusterrolebindings', '-o', 'wide']);
    expect(wide).to.match(/^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS\n/);
    expect(wide).to.match(/\nreaders\s+ClusterRole\/view\s+\d+s\s+dave\s+ops\s+default\/robot\n/);
    expect(wide).to.match(/\ncluster-admin\s+ClusterRole\/cluster-admin\s+\d+s\s+admin\s*\n/);

    const object = JSON.parse(await alice.ok(['get', 'clusterrolebinding', 'readers', '-o', 'json']));
    expect(object.kind).to.equal('ClusterRoleBinding');
    expect(object.apiVersion).to.equal('rbac.authorization.k8s.io/v1');
    expect(object.metadata.name).to.equal('readers');
    expect(object.metadata).to.not.have.property('namespace');
    expect(object.metadata).to.not.have.property('labels');
    expect(object.roleRef).to.deep.equal({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' });
    expect(object.subjects).to.deep.equal([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'dave' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'ops' },
      { kind: 'ServiceAccount', name: 'robot', namespace: 'default' },
    ]);
    const stored = await stage.member.request('GET', storedPath(A, 'readers'));
    expect(stored.status, stored.text).to.equal(200);
    expect(stored.body.metadata.uid).to.equal(object.metadata.uid);
    expect(stored.body.metadata.resourceVersion).to.equal(object.metadata.resourceVersion);
    expect(stored.body.roleRef.name).to.equal(`${A}:view`);
    expect(stored.body.metadata.labels).to.deep.equal({ [LABEL]: A });
    expect(await clusterRoleBindingsUpstream()).to.deep.equal(upstream);

    const names = async (...args: string[]) =>
      (await alice.ok(['get', 'clusterrolebindings', '-o', 'name', ...args])).trim().split('\n').filter(Boolean).sort();
    expect(await names()).to.deep.equal([
      'clusterrolebinding.rbac.authorization.k8s.io/cluster-admin',
      'clusterrolebinding.rbac.authorization.k8s.io/readers',
    ]);
    expect(await names('--chunk-size=1')).to.deep.equal(await names());
    await alice.ok(['label', 'clusterrolebinding', 'readers', 'team=a']);
    expect(await names('-l', 'team=a')).to.deep.equal(['clusterrolebinding.rbac.authorization.k8s.io/readers']);
    expect(await names('--field-selector', 'metadata.name=cluster-admin')).to.deep.equal([
      'clusterrolebinding.rbac.authorization.k8s.io/cluster-admin',
    ]);
    expect(await names('--field-selector', 'metadata.namespace=')).to.have.length(2);
    expect(await names('--field-selector', 'metadata.namespace=kube-system')).to.deep.equal([]);

    // Every patch type, as `kubectl edit` and `patch` send them, and a server-side apply.
    await alice.ok(['patch', 'clusterrolebinding', 'readers', '-p', '{"metadata":{"annotations":{"a":"1"}}}']);
    await alice.ok([
      'patch',
      'clusterrolebinding',
      'readers',
      '--type=merge',
      '-p',
      '{"metadata":{"labels":{"team":null}}}',
    ]);
    await alice.ok([
      'patch',
      'clusterrolebinding',
      'readers',
      '--type=json',
      '-p',
      '[{"op":"replace","path":"/subjects/0","value":{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"erin"}}]',
    ]);
    const patched = JSON.parse(await alice.ok(['get', 'clusterrolebinding', 'readers', '-o', 'json']));
    expect(patched.metadata.annotations).to.deep.equal({ a: '1' });
    expect(patched.metadata).to.not.have.property('labels');
    expect(patched.subjects[0].name).to.equal('erin');
    // Its only label removed, and then the labels map whole (which upstream holds the gateway's
    // label), the binding is still listed: the gateway's own label stays.
    expect(await names()).to.include('clusterrolebinding.rbac.authorization.k8s.io/readers');
    await alice.ok([
      'patch',
      'clusterrolebinding',
      'readers',
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/metadata/labels"}]',
    ]);
    expect(await names()).to.include('clusterrolebinding.rbac.authorization.k8s.io/readers');
    expect((await stage.member.request('GET', storedPath(A, 'readers'))).body.metadata.labels).to.deep.equal({
      [LABEL]: A,
    });
    const applied = [
      'apiVersion: rbac.authorization.k8s.io/v1',
      'kind: ClusterRoleBinding',
      'metadata:',
      '  name: applied',
      'roleRef:',
      '  apiGroup: rbac.authorization.k8s.io',
      '  kind: ClusterRole',
      '  name: edit',
      'subjects:',
      '- apiGroup: rbac.authorization.k8s.io',
      '  kind: User',
      '  name: frank',
      '',
    ].join('\n');
    expect(await alice.ok(['apply', '--server-side', '-f', '-'], applied)).to.equal(
      'clusterrolebinding.rbac.authorization.k8s.io/applied serverside-applied\n',
    );
    expect(await alice.ok(['apply', '--server-side', '-f', '-'], applied.replace('frank', 'grace'))).to.equal(
      'clusterrolebinding.rbac.authorization.k8s.io/applied serverside-applied\n',
    );
    expect(await alice.ok(['get', 'clusterrolebinding', 'applied', '-o', 'jsonpath={.subjects[0].name}'])).to.equal(
      'grace',
    );

    const exists = await alice.run(['create', 'clusterrolebinding', 'readers', '--clusterrole=view', '--user=dave']);
    expect(exists.stderr).to.equal(
      'error: failed to create clusterrolebinding: clusterrolebindings.rbac.authorization.k8s.io "readers" already exists\n',
    );
    expect(await alice.ok(['delete', 'clusterrolebinding', 'readers', 'applied'])).to.equal(
      'clusterrolebinding.rbac.authorization.k8s.io "readers" deleted\nclusterrolebinding.rbac.authorization.k8s.io "applied" deleted\n',
    );
    const gone = await alice.run(['get', 'clusterrolebinding', 'readers']);
    expect(gone.stderr).to.equal(
      'Error from server (NotFound): clusterrolebindings.rbac.authorization.k8s.io "readers" not found\n',
    );
    expect((await stage.member.request('GET', storedPath(A, 'readers'))).status).to.equal(404);
    expect(await clusterRoleBindingsUpstream()).to.deep.equal(upstream);
  });

  it('a watch of clusterrolebindings sees the tenant\u2019s as ClusterRoleBindings', async () => {
    const list = await aliceApi.request('GET', `${RBAC}/clusterrolebindings`);
    expect(list.status, list.text).to.equal(200);
    expect(list.body.kind).to.equal('ClusterRoleBindingList');
    const watch = aliceApi.watch(
      `${RBAC}/clusterrolebindings?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`,
    );
    try {
      await alice.ok(['create', 'clusterrolebinding', 'watched', '--clusterrole=view', '--user=dave']);
      await alice.ok(['delete', 'clusterrolebinding', 'watched']);
      await watch.waitFor((events) => events.some((event) => event.type === 'DELETED'));
      expect(watch.events.map((event) => [event.type, event.object.kind, event.object.metadata.name])).to.deep.equal([
        ['ADDED', 'ClusterRoleBinding', 'watched'],
        ['DELETED', 'ClusterRoleBinding', 'watched'],
      ]);
      expect(watch.events[0].object.metadata).to.not.have.property('namespace');
    } finally {
      watch.close();
    }
  });

  it('the binding takes effect for the tenant\u2019s users, upstream and at the cluster scope; deleting it revokes', async () => {
    await alice.ok(['create', 'clusterrole', 'cm-reader', '--verb=get,list', '--resource=configmaps']);
    const asDave = { 'Impersonate-User': `${A}-dave`, 'Impersonate-Group': `${A}-system:authenticated` };
    const daveLists = async () =>
      (await stage.member.request('GET', `/api/v1/namespaces/${A}-default/configmaps`, undefined, asDave)).status;
    const review = async () =>
      JSON.parse(
        await alice.ok(
          ['create', '-o', 'json', '-f', '-'],
          JSON.stringify({
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: { user: 'dave', resourceAttributes: { verb: 'list', resource: 'configmaps' } },
          }),
        ),
      ).status.allowed === true;
    expect(await daveLists()).to.equal(403);
    expect(await review()).to.equal(false);
    await alice.ok(['create', 'clusterrolebinding', 'dave-reads', '--clusterrole=cm-reader', '--user=dave']);
    await eventually(daveLists, (status) => expect(status).to.equal(200));
    expect(await review(), 'across all namespaces, by the gateway').to.equal(true);
    await alice.ok(['delete', 'clusterrolebinding', 'dave-reads']);
    await eventually(daveLists, (status) => expect(status).to.equal(403));
    expect(await review()).to.equal(false);
  });

  it('the tenant cannot see, find, make, change or delete the stored RoleBindings as RoleBindings', async () => {
    await alice.ok(['create', 'clusterrolebinding', 'hidden', '--clusterrole=view', '--user=dave']);
    const storedName = `${STORED}hidden`;
    const rolebindings = `${RBAC}/namespaces/kube-system/rolebindings`;
    const listed = (res: { body: { items: { metadata: { name: string } }[] } }) =>
      res.body.items.map((item) => item.metadata.name);
    for (const query of [
      '',
      `?labelSelector=${encodeURIComponent(`${LABEL}=${A}`)}`,
      `?labelSelector=${encodeURIComponent(LABEL)}`,
      `?fieldSelector=${encodeURIComponent(`metadata.name=${storedName}`)}`,
    ]) {
      const res = await aliceApi.request('GET', `${rolebindings}${query}`);
      expect(res.status, res.text).to.equal(200);
      expect(listed(res), query).to.not.include(storedName);
      expect(
        listed(res).some((name) => name.startsWith(STORED)),
        query,
      ).to.equal(false);
    }
    const everywhere = await aliceApi.request('GET', `${RBAC}/rolebindings`);
    expect(everywhere.status).to.be.oneOf([200]);
    expect(listed(everywhere).some((name) => name.startsWith(STORED))).to.equal(false);
    expect((await alice.ok(['get', 'rolebindings', '-A', '-o', 'name'])).includes(STORED)).to.equal(false);

    const byName = `${rolebindings}/${encodeURIComponent(storedName)}`;
    expect((await aliceApi.request('GET', byName)).status).to.equal(404);
    expect((await aliceApi.request('DELETE', byName)).status).to.equal(404);
    expect(
      (
        await aliceApi.request(
          'PATCH',
          byName,
          { metadata: { labels: { x: 'y' } } },
          {
            'Content-Type': 'application/merge-patch+json',
          },
        )
      ).status,
    ).to.equal(404);
    const forged = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `${STORED}forged` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'mallory' }],
    };
    expect((await aliceApi.request('POST', rolebindings, forged)).status).to.equal(403);
    expect(
      (
        await aliceApi.request('POST', rolebindings, {
          ...forged,
          metadata: { name: 'labelled', labels: { [LABEL]: A } },
        })
      ).status,
    ).to.equal(403);
    expect(
      (
        await aliceApi.request('POST', `${RBAC}/clusterrolebindings`, {
          ...forged,
          kind: 'ClusterRoleBinding',
          metadata: { name: 'other-label', labels: { [LABEL]: B } },
        })
      ).status,
      'a ClusterRoleBinding labelled as another tenant\u2019s',
    ).to.equal(403);
    // The tenant's kube-system holds them: it cannot be deleted, as on a real cluster.
    const kubeSystem = await alice.run(['delete', 'namespace', 'kube-system']);
    expect(kubeSystem.stderr).to.include('namespaces "kube-system" is forbidden: this namespace may not be deleted');

    // A delete-collection of the namespace's RoleBindings leaves them.
    expect((await aliceApi.request('DELETE', rolebindings)).status).to.equal(200);
    expect(await alice.ok(['get', 'clusterrolebinding', 'hidden', '-o', 'name'])).to.equal(
      'clusterrolebinding.rbac.authorization.k8s.io/hidden\n',
    );

    // A watch of the namespace's RoleBindings, by label and all, shows none of them.
    const watches = [
      aliceApi.watch(`${rolebindings}?watch=true`),
      aliceApi.watch(`${rolebindings}?watch=true&labelSelector=${encodeURIComponent(`${LABEL}=${A}`)}`),
    ];
    try {
      await alice.ok(['create', 'clusterrolebinding', 'while-watched', '--clusterrole=view', '--user=dave']);
      await alice.ok(['create', 'rolebinding', 'marker', '--clusterrole=view', '--user=dave', '-n', 'kube-system']);
      await watches[0].waitFor((events) => events.some((event) => event.object?.metadata?.name === 'marker'));
      for (const watch of watches)
        expect(watch.events.some((event) => String(event.object?.metadata?.name).startsWith(STORED))).to.equal(false);
    } finally {
      for (const watch of watches) watch.close();
    }
  });

  it('another tenant sees nothing of them, by any name or selector', async () => {
    await alice.ok(['create', 'clusterrolebinding', 'alices-own', '--clusterrole=view', '--user=dave']);
    expect((await bob.ok(['get', 'clusterrolebindings', '-o', 'name'])).trim()).to.equal(
      'clusterrolebinding.rbac.authorization.k8s.io/cluster-admin',
    );
    expect((await bob.run(['get', 'clusterrolebinding', 'alices-own'])).code).to.not.equal(0);
    for (const path of [
      `${RBAC}/namespaces/kube-system/rolebindings`,
      `${RBAC}/rolebindings`,
      `${RBAC}/clusterrolebindings?labelSelector=${encodeURIComponent(`${LABEL}=${A}`)}`,
      `${RBAC}/clusterrolebindings?fieldSelector=${encodeURIComponent(`metadata.name=${A}-alices-own`)}`,
    ]) {
      const res = await bobApi.request('GET', path);
      expect(res.status, path).to.equal(200);
      expect(JSON.stringify(res.body.items), path).to.not.include('alices-own');
    }
    expect((await bobApi.request('DELETE', `${RBAC}/clusterrolebindings/alices-own`)).status).to.equal(404);
    expect(await alice.ok(['get', 'clusterrolebinding', 'alices-own', '-o', 'name'])).to.equal(
      'clusterrolebinding.rbac.authorization.k8s.io/alices-own\n',
    );
  });
});
