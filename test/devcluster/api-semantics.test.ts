import { expect } from 'chai';
import { request } from 'node:https';
import { createCertificateAuthority } from '../../certs/index.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { ApiClient } from '../support/api-client.js';
import { sleep, waitUntil, type WaitOptions } from '../support/eventually.js';
import { makeTempDir } from '../support/temp-dir.js';

/** Generous: the namespace controller's work is quick, but a loaded CI machine can stall it for seconds. */
const CONTROLLERS: WaitOptions = { timeout: 30_000 };

const TABLE =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const AGGREGATED =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

describe('devcluster: API semantics over HTTPS', function () {
  let cluster: DevCluster;
  let api: ApiClient;
  let remove: () => Promise<void>;
  let counter = 0;

  before(async () => {
    const temp = await makeTempDir('semantics');
    remove = temp.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: temp.dir, bookmarkIntervalMs: 300 });
    api = await ApiClient.load(cluster.kubeconfigPath);
  });
  after(async () => {
    await cluster?.stop();
    await remove?.();
  });

  async function namespace(): Promise<string> {
    const name = `sem-${++counter}`;
    const res = await api.request('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    });
    expect(res.status).to.equal(201);
    // kube-controller-manager puts kube-root-ca.crt in every namespace: the tests start after it.
    await waitUntil(
      `kube-root-ca.crt in ${name}`,
      async () => (await api.request('GET', `/api/v1/namespaces/${name}/configmaps/kube-root-ca.crt`)).status === 200,
    );
    return name;
  }

  const cm = (name: string, labels: Record<string, string> = {}, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, labels, ...extra },
    data: { a: '1' },
  });

  it("folds a Secret's stringData into data on create, update and patch, as kube's conversion does, and never stores it", async () => {
    const ns = await namespace();
    const path = `/api/v1/namespaces/${ns}/secrets`;
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const created = await api.request('POST', path, {
      metadata: { name: 's' },
      data: { kept: b64('k'), over: b64('old') },
      stringData: { over: 'new', plain: 'p' },
    });
    expect(created.status, created.text).to.equal(201);
    expect([created.body.data, created.body.stringData]).to.deep.equal([
      { kept: b64('k'), over: b64('new'), plain: b64('p') },
      undefined,
    ]);
    const updated = await api.request('PUT', `${path}/s`, { ...created.body, stringData: { plain: 'q' } });
    expect([updated.body.data?.plain, updated.body.stringData]).to.deep.equal([b64('q'), undefined]);
    const patched = await api.request(
      'PATCH',
      `${path}/s`,
      { stringData: { added: 'a' } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    expect([patched.status, patched.body.data?.added, patched.body.stringData]).to.deep.equal([
      200,
      b64('a'),
      undefined,
    ]);
    const read = await api.request('GET', `${path}/s`);
    expect(Object.keys(read.body.data).sort()).to.deep.equal(['added', 'kept', 'over', 'plain']);
    expect(read.body.stringData).to.equal(undefined);
  });

  it('answers 401 Unauthorized to a client certificate from another CA', async () => {
    const foreign = await createCertificateAuthority({ commonName: 'elsewhere' });
    const client = await foreign.issueClientCertificate({ commonName: 'admin', organizations: ['system:masters'] });
    const url = new URL(cluster.url);
    const res = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/api/v1/namespaces',
          cert: client.certPem,
          key: client.keyPem,
          rejectUnauthorized: false,
        },
        (r) => {
          let text = '';
          r.on('data', (c) => (text += c));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(res.status).to.equal(401);
    expect(res.body).to.include({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('serves aggregated discovery with its exact Content-Type, and legacy discovery otherwise', async () => {
    const aggregated = await api.request('GET', '/apis', undefined, { Accept: AGGREGATED });
    expect(aggregated.headers['content-type']).to.equal(
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
    expect(aggregated.body.kind).to.equal('APIGroupDiscoveryList');
    const legacy = await api.request('GET', '/apis');
    expect(legacy.body.kind).to.equal('APIGroupList');
    const apps = await api.request('GET', '/apis/apps/v1');
    expect(apps.body.resources.map((r: { name: string }) => r.name)).to.include.members([
      'deployments',
      'deployments/scale',
      'deployments/status',
    ]);
  });

  it('changes the OpenAPI v3 index hash when a CRD adds a group, and advertises fieldValidation', async () => {
    const before = (await api.request('GET', '/openapi/v3')).body.paths;
    const appsUrl: string = before['apis/apps/v1'].serverRelativeURL;
    const apps = await api.request('GET', appsUrl);
    expect(apps.headers['cache-control']).to.equal('public, immutable');
    const patch = apps.body.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    expect(
      patch.parameters.some((p: { name: string; in: string }) => p.name === 'fieldValidation' && p.in === 'query'),
    ).to.equal(true);
    await api.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.hash.example.com' },
      spec: {
        group: 'hash.example.com',
        scope: 'Cluster',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
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
    const after = (await api.request('GET', '/openapi/v3')).body.paths;
    expect(after['apis/hash.example.com/v1']).to.be.an('object');
    expect(before['apis/hash.example.com/v1']).to.equal(undefined);
    const gadget = await api.request(
      'PATCH',
      '/apis/hash.example.com/v1/gadgets/none',
      {},
      { 'Content-Type': 'application/strategic-merge-patch+json' },
    );
    expect(gadget.status).to.equal(415);
    await api.request('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.hash.example.com');
  });

  it('serves custom resources of either scope with their status subresource and printer columns', async () => {
    const crd = (scope: string, plural: string, kind: string) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.status.example.com` },
      spec: {
        group: 'status.example.com',
        scope,
        names: { plural, singular: plural.slice(0, -1), kind },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            additionalPrinterColumns: [{ name: 'Phase', type: 'string', jsonPath: '.status.phase' }],
          },
        ],
      },
    });
    expect(
      (
        await api.request(
          'POST',
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
          crd('Namespaced', 'engines', 'Engine'),
        )
      ).status,
    ).to.equal(201);
    expect(
      (
        await api.request(
          'POST',
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
          crd('Cluster', 'fleets', 'Fleet'),
        )
      ).status,
    ).to.equal(201);
    const ns = await namespace();
    const base = `/apis/status.example.com/v1/namespaces/${ns}/engines`;
    const created = (
      await api.request('POST', base, {
        apiVersion: 'status.example.com/v1',
        kind: 'Engine',
        metadata: { name: 'e' },
        spec: { power: 3 },
        status: { phase: 'Made up' },
      })
    ).body;
    expect(created.status, 'status is dropped on create').to.equal(undefined);
    expect(created.spec).to.deep.equal({ power: 3 });
    const withStatus = (
      await api.request('PUT', `${base}/e/status`, { ...created, spec: { power: 99 }, status: { phase: 'Running' } })
    ).body;
    expect(withStatus.status).to.deep.equal({ phase: 'Running' });
    expect(withStatus.spec.power).to.equal(3);
    const patched = (
      await api.request(
        'PATCH',
        `${base}/e`,
        { spec: { power: 4 }, status: { phase: 'Ignored' } },
        { 'Content-Type': 'application/merge-patch+json' },
      )
    ).body;
    expect([patched.spec.power, patched.status.phase, patched.metadata.generation]).to.deep.equal([4, 'Running', 2]);
    const table = (await api.request('GET', base, undefined, { Accept: TABLE })).body;
    expect(
      table.columnDefinitions.map((c: { name: string }) => c.name),
      'declared columns replace the default Age',
    ).to.deep.equal(['Name', 'Phase']);
    expect(table.rows[0].cells.slice(0, 2)).to.deep.equal(['e', 'Running']);

    const fleet = await api.request('POST', '/apis/status.example.com/v1/fleets', {
      apiVersion: 'status.example.com/v1',
      kind: 'Fleet',
      metadata: { name: 'f', namespace: 'ignored' },
    });
    expect(fleet.status).to.equal(201);
    expect(fleet.body.metadata.namespace).to.equal(undefined);
    expect((await api.request('GET', `/apis/status.example.com/v1/namespaces/${ns}/fleets/f`)).status).to.equal(404);
    expect((await api.request('GET', '/apis/status.example.com/v1/fleets/f')).status).to.equal(200);
    for (const plural of ['engines', 'fleets'])
      await api.request(
        'DELETE',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.status.example.com`,
      );
    await waitUntil(
      'fleets/f gone with its CRD',
      async () => (await api.request('GET', '/apis/status.example.com/v1/fleets/f')).status === 404,
      CONTROLLERS,
    );
  });

  it('creates with generateName, sets uid, creationTimestamp and generation, and validates names with causes', async () => {
    const ns = await namespace();
    const created = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      ...cm(''),
      metadata: { generateName: 'gen-' },
    });
    expect(created.status).to.equal(201);
    expect(created.body.metadata.name).to.match(/^gen-[a-z0-9]{5}$/);
    expect(created.body.metadata.uid).to.match(/^[0-9a-f-]{36}$/);
    expect(created.body.metadata.creationTimestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(created.body.metadata.generation).to.equal(1);
    const bad = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, cm('Bad_Name'));
    expect(bad.status).to.equal(422);
    expect(bad.body.reason).to.equal('Invalid');
    expect(bad.body.details.causes[0]).to.include({ reason: 'FieldValueInvalid', field: 'metadata.name' });
  });

  it('refuses creation in a missing namespace (404) and in a terminating one (403)', async () => {
    const missing = await api.request('POST', '/api/v1/namespaces/nowhere/configmaps', cm('x'));
    expect([missing.status, missing.body.message]).to.deep.equal([404, 'namespaces "nowhere" not found']);
    const ns = await namespace();
    const held = { ...cm('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } };
    expect((await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, held)).status).to.equal(201);
    await api.request('DELETE', `/api/v1/namespaces/${ns}`);
    const terminating = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, cm('late'));
    expect(terminating.status).to.equal(403);
    expect(terminating.body.message).to.equal(
      `configmaps "late" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
    );
    expect(terminating.body.details.causes).to.deep.equal([
      { reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' },
    ]);
    expect((await api.request('GET', `/api/v1/namespaces/${ns}`)).body.status.phase).to.equal('Terminating');
    await api.request(
      'PATCH',
      `/api/v1/namespaces/${ns}/configmaps/held`,
      { metadata: { finalizers: null } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    await waitUntil(
      `namespace ${ns} gone`,
      async () => (await api.request('GET', `/api/v1/namespaces/${ns}`)).status === 404,
      CONTROLLERS,
    );
  });

  it('detects stale resourceVersions on update and bumps generation only on spec changes', async () => {
    const ns = await namespace();
    const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
      },
      status: { replicas: 5 },
    };
    const created = (await api.request('POST', base, deployment)).body;
    expect(created.status ?? {}).to.not.have.property('replicas');
    const labelled = (
      await api.request(
        'PATCH',
        `${base}/d`,
        { metadata: { labels: { l: 'v' } } },
        { 'Content-Type': 'application/merge-patch+json' },
      )
    ).body;
    expect(labelled.metadata.generation).to.equal(1);
    const scaled = (
      await api.request(
        'PATCH',
        `${base}/d`,
        { spec: { replicas: 3 } },
        { 'Content-Type': 'application/merge-patch+json' },
      )
    ).body;
    expect(scaled.metadata.generation).to.equal(2);
    const stale = await api.request('PUT', `${base}/d`, { ...created, spec: { ...created.spec, replicas: 9 } });
    expect(stale.status).to.equal(409);
    expect(stale.body.message).to.equal(
      'Operation cannot be fulfilled on deployments.apps "d": the object has been modified; please apply your changes to the latest version and try again',
    );
    // Without a resourceVersion: the deployment controller writes the status too.
    const status = await api.request('PUT', `${base}/d/status`, {
      ...scaled,
      metadata: { ...scaled.metadata, resourceVersion: undefined },
      spec: { ...scaled.spec, replicas: 7 },
      status: { replicas: 3, readyReplicas: 3 },
    });
    expect(status.status).to.equal(200);
    expect(status.body.status.readyReplicas).to.equal(3);
    expect(status.body.spec.replicas, 'a status update leaves spec alone').to.equal(3);
  });

  it('lists at an exact older resourceVersion and rejects inconsistent list options', async () => {
    const ns = await namespace();
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const first = (await api.request('POST', path, cm('one'))).body.metadata.resourceVersion;
    await api.request('POST', path, cm('two'));
    const exact = await api.request('GET', `${path}?resourceVersion=${first}&resourceVersionMatch=Exact`);
    expect(exact.body.items.map((i: any) => i.metadata.name)).to.deep.equal(['kube-root-ca.crt', 'one']);
    expect(exact.body.metadata.resourceVersion).to.equal(first);
    const tooNew = await api.request('GET', `${path}?resourceVersion=999999999&resourceVersionMatch=NotOlderThan`);
    expect(tooNew.status).to.equal(504);
    expect((await api.request('GET', `${path}?resourceVersionMatch=Exact`)).status).to.equal(400);
    const page = await api.request('GET', `${path}?limit=1`);
    expect(
      (await api.request('GET', `${path}?limit=1&continue=${page.body.metadata.continue}&resourceVersion=${first}`))
        .status,
    ).to.equal(400);
  });

  it('watches from a resourceVersion, applies label selectors to transitions, and sends bookmarks', async () => {
    const ns = await namespace();
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const created = (await api.request('POST', path, cm('w', { a: 'b' }))).body;
    const watch = api.watch(
      `${path}?watch=true&labelSelector=a%3Db&allowWatchBookmarks=true&resourceVersion=${created.metadata.resourceVersion}`,
    );
    try {
      await sleep(100);
      const relabel = (value: string) =>
        api.request(
          'PATCH',
          `${path}/w`,
          { metadata: { labels: { a: value } } },
          { 'Content-Type': 'application/merge-patch+json' },
        );
      await relabel('c');
      await relabel('b');
      await api.request('POST', path, cm('other', { a: 'zzz' }));
      await watch.waitFor(
        (events) =>
          events.filter((e) => e.type !== 'BOOKMARK').length >= 2 && events.some((e) => e.type === 'BOOKMARK'),
      );
      expect(watch.status).to.equal(200);
      const changes = watch.events
        .filter((e) => e.type !== 'BOOKMARK')
        .map((e) => [e.type, e.object.metadata.name, e.object.metadata.labels.a]);
      expect(changes).to.deep.equal([
        ['DELETED', 'w', 'c'],
        ['ADDED', 'w', 'b'],
      ]);
      const bookmark = watch.events.find((e) => e.type === 'BOOKMARK')!;
      expect(bookmark.object).to.deep.include({ kind: 'ConfigMap', apiVersion: 'v1' });
      expect(Number(bookmark.object.metadata.resourceVersion)).to.be.at.least(Number(created.metadata.resourceVersion));
    } finally {
      watch.close();
    }
  });

  it('without a resourceVersion, a watch starts with the current objects; timeoutSeconds ends it', async () => {
    const ns = await namespace();
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    await api.request('POST', path, cm('present'));
    const watch = api.watch(`${path}?watch=true&timeoutSeconds=1`);
    await watch.waitFor((events) => events.length >= 2);
    expect(watch.events.map((e: any) => [e.type, e.object.metadata.name])).to.deep.equal([
      ['ADDED', 'kube-root-ca.crt'],
      ['ADDED', 'present'],
    ]);
    await waitUntil('the watch ended', () => watch.ended, { timeout: 5000 });
  });

  it('answers a watch from a compacted resourceVersion with an ERROR event carrying 410 Expired', async () => {
    const ns = await namespace();
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const old = (await api.request('POST', path, cm('c1'))).body.metadata.resourceVersion;
    await api.request('POST', path, cm('c2'));
    await cluster.store.compact(await cluster.store.currentRevision());
    const watch = api.watch(`${path}?watch=true&resourceVersion=${old}`);
    await watch.waitFor((events) => events.length >= 1);
    expect(watch.status).to.equal(200);
    expect(watch.events[0].type).to.equal('ERROR');
    expect(watch.events[0].object).to.include({ kind: 'Status', code: 410, reason: 'Expired' });
    watch.close();
  });

  it('holds an object with finalizers until they are removed', async () => {
    const ns = await namespace();
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    await api.request('POST', path, { ...cm('f'), metadata: { name: 'f', finalizers: ['example.com/x'] } });
    const deleting = await api.request('DELETE', `${path}/f`);
    expect(deleting.status).to.equal(200);
    expect(deleting.body.metadata.deletionTimestamp).to.be.a('string');
    expect((await api.request('GET', `${path}/f`)).status).to.equal(200);
    await api.request('PATCH', `${path}/f`, [{ op: 'remove', path: '/metadata/finalizers' }], {
      'Content-Type': 'application/json-patch+json',
    });
    expect((await api.request('GET', `${path}/f`)).status).to.equal(404);
  });

  it('garbage-collects dependents: Background deletes them, Orphan keeps them, Foreground deletes the owner last', async () => {
    const ns = await namespace();
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const owner = async (name: string) => (await api.request('POST', path, cm(name))).body;
    const dependent = async (name: string, of: any) =>
      api.request('POST', path, {
        ...cm(name),
        metadata: {
          name,
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: of.metadata.name, uid: of.metadata.uid }],
        },
      });

    const bg = await owner('bg');
    await dependent('bg-child', bg);
    await api.request('DELETE', `${path}/bg`, { propagationPolicy: 'Background' });
    await waitUntil(
      'bg-child deleted in the background',
      async () => (await api.request('GET', `${path}/bg-child`)).status === 404,
      CONTROLLERS,
    );

    const orphan = await owner('orphan');
    await dependent('orphan-child', orphan);
    await api.request('DELETE', `${path}/orphan`, { propagationPolicy: 'Orphan' });
    await waitUntil(
      'orphan deleted',
      async () => (await api.request('GET', `${path}/orphan`)).status === 404,
      CONTROLLERS,
    );
    const kept = await api.request('GET', `${path}/orphan-child`);
    expect(kept.status).to.equal(200);
    expect(kept.body.metadata.ownerReferences).to.equal(undefined);

    const fg = await owner('fg');
    await dependent('fg-child', fg);
    const deleting = await api.request('DELETE', `${path}/fg`, { propagationPolicy: 'Foreground' });
    expect(deleting.body.metadata.finalizers).to.include('foregroundDeletion');
    await waitUntil('fg deleted', async () => (await api.request('GET', `${path}/fg`)).status === 404, CONTROLLERS);
    expect((await api.request('GET', `${path}/fg-child`)).status).to.equal(404);
  });

  it('renders Tables with PartialObjectMetadata rows by default, full objects or none on request', async () => {
    const ns = await namespace();
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    await api.request('POST', path, cm('t', { x: 'y' }));
    // Only `t`, not the namespace's kube-root-ca.crt.
    const only = `${path}?fieldSelector=metadata.name=t`;
    const table = (await api.request('GET', only, undefined, { Accept: TABLE })).body;
    expect(table.kind).to.equal('Table');
    expect(table.columnDefinitions.map((c: { name: string }) => c.name)).to.deep.equal(['Name', 'Data', 'Age']);
    expect(table.rows[0].object).to.deep.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
    expect(table.rows[0].object.metadata.labels).to.deep.equal({ x: 'y' });
    const full = (await api.request('GET', `${only}&includeObject=Object`, undefined, { Accept: TABLE })).body;
    expect(full.rows[0].object.data).to.deep.equal({ a: '1' });
    const none = (await api.request('GET', `${only}&includeObject=None`, undefined, { Accept: TABLE })).body;
    expect(none.rows[0].object).to.equal(null);
  });

  it('fills in kube-apiserver defaults and allocates Service ClusterIPs that stay on update', async () => {
    const ns = await namespace();
    const svc = (
      await api.request('POST', `/api/v1/namespaces/${ns}/services`, {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's' },
        spec: { selector: { a: 'b' }, ports: [{ port: 80 }] },
      })
    ).body;
    expect(svc.spec.clusterIP).to.match(/^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/);
    expect(svc.spec.clusterIPs).to.deep.equal([svc.spec.clusterIP]);
    expect(svc.spec.ports[0]).to.deep.equal({ port: 80, protocol: 'TCP', targetPort: 80 });
    expect(svc.spec.type).to.equal('ClusterIP');
    const other = (
      await api.request('POST', `/api/v1/namespaces/${ns}/services`, {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 't' },
        spec: { ports: [{ port: 81 }] },
      })
    ).body;
    expect(other.spec.clusterIP).to.not.equal(svc.spec.clusterIP);
    const { clusterIP: _ip, clusterIPs: _ips, ...specWithoutIp } = svc.spec;
    const replaced = (await api.request('PUT', `/api/v1/namespaces/${ns}/services/s`, { ...svc, spec: specWithoutIp }))
      .body;
    expect(replaced.spec.clusterIP).to.equal(svc.spec.clusterIP);

    const pod = (
      await api.request('POST', `/api/v1/namespaces/${ns}/pods`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: {
          containers: [
            { name: 'a', image: 'nginx:1.27' },
            {
              name: 'b',
              image: 'busybox',
              env: [{ name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
            },
          ],
          volumes: [
            { name: 'c', configMap: { name: 'c' } },
            { name: 'd', downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } },
            { name: 'p', projected: { sources: [{ serviceAccountToken: { path: 't', audience: 'vault' } }] } },
          ],
        },
      })
    ).body;
    // kube's SetDefaults of volume sources and field selectors (then the admission's token volume).
    expect(pod.spec.volumes.slice(0, 3)).to.deep.equal([
      { name: 'c', configMap: { name: 'c', defaultMode: 420 } },
      {
        name: 'd',
        downwardAPI: {
          items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } }],
          defaultMode: 420,
        },
      },
      {
        name: 'p',
        projected: {
          sources: [{ serviceAccountToken: { path: 't', audience: 'vault', expirationSeconds: 3600 } }],
          defaultMode: 420,
        },
      },
    ]);
    expect(pod.spec.containers[1].env[0].valueFrom.fieldRef).to.deep.equal({
      fieldPath: 'metadata.namespace',
      apiVersion: 'v1',
    });
    expect(pod.spec).to.include({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      terminationGracePeriodSeconds: 30,
    });
    expect(pod.spec.containers.map((c: { imagePullPolicy: string }) => c.imagePullPolicy)).to.deep.equal([
      'IfNotPresent',
      'Always',
    ]);
    expect(pod.status.phase, 'a simulated kubelet runs pods at once').to.equal('Running');
    expect(pod.status.containerStatuses.map((c: { name: string; ready: boolean }) => [c.name, c.ready])).to.deep.equal([
      ['a', true],
      ['b', true],
    ]);
  });

  it('refuses bodies over 3 MiB with 413 and keeps serving', async () => {
    const ns = await namespace();
    const big = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      ...cm('big'),
      data: { a: 'x'.repeat(3 * 1024 * 1024 + 10) },
    });
    expect(big.status).to.equal(413);
    expect(big.body.reason).to.equal('RequestEntityTooLarge');
    expect((await api.request('GET', '/healthz')).text).to.equal('ok');
  });
});
