import { expect } from 'chai';
import { tenantContext, TranslationError, type KindScope } from '../../translate/context.js';
import { openContinue, sealContinue } from '../../translate/sealed-continue.js';
import { patchUp } from '../../translate/patch.js';
import { requestUp } from '../../translate/request.js';
import { statusDown } from '../../translate/status.js';
import { tableDown } from '../../translate/table.js';
import { watchEventDown } from '../../translate/watch-event.js';

/** group/resource → [kind, namespaced], in the tenant's view. */
const RESOURCES: Record<string, [string, boolean]> = {
  '/pods': ['Pod', true],
  '/configmaps': ['ConfigMap', true],
  '/events': ['Event', true],
  '/namespaces': ['Namespace', false],
  '/nodes': ['Node', false],
  '/persistentvolumes': ['PersistentVolume', false],
  'rbac.authorization.k8s.io/clusterroles': ['ClusterRole', false],
  'rbac.authorization.k8s.io/rolebindings': ['RoleBinding', true],
  'storage.k8s.io/storageclasses': ['StorageClass', false],
  'apiextensions.k8s.io/customresourcedefinitions': ['CustomResourceDefinition', false],
  'stable.example.com/crontabs': ['CronTab', true],
  'stable.example.com/clusterthings': ['ClusterThing', false],
};

const kinds: KindScope = {
  resourceIsNamespaced: (group, resource) => RESOURCES[`${group}/${resource}`]?.[1],
  kindOf: (group, resource) => RESOURCES[`${group}/${resource}`]?.[0],
  kindIsNamespaced: (group, kind) =>
    Object.entries(RESOURCES).find(([key, [k]]) => key.startsWith(`${group}/`) && k === kind)?.[1][1],
};

const ctx = tenantContext('aaaaaa', kinds);
const other = tenantContext('bbbbbb', kinds);

function up(method: string, url: string) {
  const parsed = new URL(url, 'https://x');
  const t = requestUp(ctx, method, parsed.pathname, parsed.searchParams)!;
  return { path: t.path, query: Object.fromEntries(t.query), t };
}

function refusal(method: string, url: string): TranslationError {
  try {
    up(method, url);
  } catch (err) {
    if (err instanceof TranslationError) return err;
    throw err;
  }
  throw new Error(`${method} ${url} was not refused`);
}

describe('translate: requests up', () => {
  const cases: [string, string, string, Record<string, string>?][] = [
    ['GET', '/api/v1/namespaces/default/pods', '/api/v1/namespaces/aaaaaa-default/pods'],
    ['GET', '/api/v1/namespaces/default/pods/web', '/api/v1/namespaces/aaaaaa-default/pods/web'],
    ['PUT', '/api/v1/namespaces/default/pods/web/status', '/api/v1/namespaces/aaaaaa-default/pods/web/status'],
    ['GET', '/api/v1/pods', '/api/v1/pods'],
    ['GET', '/api/v1/namespaces/shop', '/api/v1/namespaces/aaaaaa-shop'],
    ['DELETE', '/api/v1/namespaces/shop', '/api/v1/namespaces/aaaaaa-shop'],
    ['GET', '/api/v1/persistentvolumes/disk', '/api/v1/persistentvolumes/aaaaaa-disk'],
    ['GET', '/api/v1/nodes/node-1', '/api/v1/nodes/node-1'],
    [
      'GET',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/view',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/aaaaaa-view',
    ],
    ['GET', '/apis/storage.k8s.io/v1/storageclasses/fast', '/apis/storage.k8s.io/v1/storageclasses/aaaaaa-fast'],
    [
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.aaaaaa-stable.example.com',
    ],
    [
      'POST',
      '/apis/stable.example.com/v1/namespaces/default/crontabs',
      '/apis/aaaaaa-stable.example.com/v1/namespaces/aaaaaa-default/crontabs',
    ],
    [
      'GET',
      '/apis/stable.example.com/v1/clusterthings/one',
      '/apis/aaaaaa-stable.example.com/v1/clusterthings/aaaaaa-one',
    ],
    ['GET', '/api/v1/namespaces/bbbbbb-default/pods', '/api/v1/namespaces/aaaaaa-bbbbbb-default/pods'],
  ];
  for (const [method, from, to] of cases) {
    it(`${method} ${from} → ${to}`, () => expect(up(method, from).path).to.equal(to));
  }

  it("GET /api/v1/namespaces?fieldSelector=metadata.name=foo asks upstream for the tenant's foo, among its own namespaces only", () => {
    const { path, query } = up('GET', '/api/v1/namespaces?fieldSelector=metadata.name%3Dfoo');
    expect(path).to.equal('/api/v1/namespaces');
    expect(query.fieldSelector).to.equal('metadata.name=aaaaaa-foo');
    expect(query.labelSelector).to.equal('kubezoo.io/tenant=aaaaaa');
  });

  it('rewrites namespace, cluster-scoped name and involvedObject field selectors, escaping values', () => {
    expect(
      up('GET', '/api/v1/pods?fieldSelector=metadata.namespace%3Dshop,status.phase!%3DRunning').query.fieldSelector,
    ).to.equal('metadata.namespace=aaaaaa-shop,status.phase!=Running');
    expect(
      up('GET', '/api/v1/pods?fieldSelector=metadata.name%3Dweb').query.fieldSelector,
      'namespaced names stay',
    ).to.equal('metadata.name=web');
    expect(up('GET', '/api/v1/persistentvolumes?fieldSelector=metadata.name%3Ddisk').query.fieldSelector).to.equal(
      'metadata.name=aaaaaa-disk',
    );
    expect(
      up(
        'GET',
        '/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DNamespace,involvedObject.name%3Dshop,involvedObject.namespace%3Ddefault',
      ).query.fieldSelector,
    ).to.equal('involvedObject.kind=Namespace,involvedObject.name=aaaaaa-shop,involvedObject.namespace=aaaaaa-default');
    expect(
      up('GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DPod,involvedObject.name%3Dweb')
        .query.fieldSelector,
    ).to.equal('involvedObject.kind=Pod,involvedObject.name=web');
    expect(up('GET', '/api/v1/namespaces?fieldSelector=metadata.name%3Da%5C%2Cb').query.fieldSelector).to.equal(
      'metadata.name=aaaaaa-a\\,b',
    );
  });

  it('keeps label selectors, adding the tenant label only for namespaces', () => {
    expect(up('GET', '/api/v1/pods?labelSelector=app%3Dweb').query.labelSelector).to.equal('app=web');
    expect(up('GET', '/api/v1/namespaces?labelSelector=team%20in%20(a)').query.labelSelector).to.equal(
      'team in (a),kubezoo.io/tenant=aaaaaa',
    );
  });

  it('refuses writes to shared nodes, the admin groups, and unknown resources', () => {
    expect(refusal('PATCH', '/api/v1/nodes/node-1').code).to.equal(403);
    expect(refusal('DELETE', '/api/v1/nodes/node-1').code).to.equal(403);
    expect(up('GET', '/api/v1/nodes').path).to.equal('/api/v1/nodes');
    expect(refusal('GET', '/apis/tenant.kubezoo.io/v1alpha1/tenants').code).to.equal(403);
    expect(refusal('GET', '/apis/other.example.com/v1/things').code).to.equal(404);
  });

  it('returns null for paths that are not resource requests', () => {
    expect(requestUp(ctx, 'GET', '/version', new URLSearchParams())).to.equal(null);
    expect(requestUp(ctx, 'GET', '/apis', new URLSearchParams())).to.equal(null);
  });
});

describe('translate: Status, Tables, watch events, patches and continue tokens', () => {
  it('strips the prefix from Status messages, names and causes', () => {
    const status = statusDown(ctx, {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message: 'Namespace "aaaaaa-Bad" is invalid: metadata.name: Invalid value: "aaaaaa-Bad"',
      details: {
        name: 'aaaaaa-Bad',
        kind: 'namespaces',
        group: '',
        causes: [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: 'Invalid value: "aaaaaa-Bad"' }],
      },
    });
    expect(JSON.stringify(status)).to.not.contain('aaaaaa');
    expect(status.details.name).to.equal('Bad');
    expect(status.message).to.equal('Namespace "Bad" is invalid: metadata.name: Invalid value: "Bad"');
  });

  it("keeps the name in a namespaced object's Status details: only cluster-scoped names carry the prefix upstream", () => {
    const success = (kind: string, name: string) =>
      statusDown(ctx, { kind: 'Status', apiVersion: 'v1', status: 'Success', details: { name, kind, group: '' } });
    expect(success('configmaps', 'aaaaaa-x').details.name).to.equal('aaaaaa-x');
    expect(success('namespaces', 'aaaaaa-x').details.name).to.equal('x');
  });

  it('drops Table rows of other tenants and strips the prefix from cells and row objects', () => {
    const row = (namespace: string, name: string) => ({
      cells: [name, `${namespace}/${name}`, 1],
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name, namespace } },
    });
    const table = tableDown(
      ctx,
      {
        kind: 'Table',
        apiVersion: 'meta.k8s.io/v1',
        columnDefinitions: [],
        rows: [row('aaaaaa-default', 'web'), row('bbbbbb-default', 'secret-plan')],
      },
      { group: '', kind: 'Pod', namespaced: true },
    );
    expect(table.rows).to.have.length(1);
    expect(table.rows[0].cells).to.deep.equal(['web', 'default/web', 1]);
    expect(table.rows[0].object.metadata.namespace).to.equal('default');
    const clusterScoped = tableDown(
      ctx,
      {
        kind: 'Table',
        rows: [
          { cells: ['aaaaaa-view'], object: { kind: 'PartialObjectMetadata', metadata: { name: 'aaaaaa-view' } } },
          { cells: ['edit'], object: { kind: 'PartialObjectMetadata', metadata: { name: 'edit' } } },
        ],
      },
      { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', namespaced: false },
    );
    expect(clusterScoped.rows.map((r: { cells: string[] }) => r.cells[0])).to.deep.equal(['view']);
  });

  it("passes BOOKMARKs and translated ERRORs, drops other tenants' events", () => {
    const rowKind = { group: '', kind: 'ConfigMap', namespaced: true };
    expect(
      watchEventDown(
        ctx,
        { type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '12' } } },
        rowKind,
      ),
    ).to.deep.equal({
      type: 'BOOKMARK',
      object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '12' } },
    });
    expect(
      watchEventDown(
        ctx,
        {
          type: 'ADDED',
          object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', namespace: 'bbbbbb-default' } },
        },
        rowKind,
      ),
    ).to.equal(null);
    expect(
      watchEventDown(
        ctx,
        {
          type: 'ADDED',
          object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', namespace: 'aaaaaa-default' } },
        },
        rowKind,
      )!.object.metadata.namespace,
    ).to.equal('default');
    const error = watchEventDown(
      ctx,
      {
        type: 'ERROR',
        object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 5 (9)' },
      },
      rowKind,
    );
    expect(error!.object.code).to.equal(410);
  });

  it('translates patches as patches: merge patches as partial objects, JSON patch values by path', () => {
    expect(
      patchUp(ctx, 'application/merge-patch+json', { metadata: { namespace: 'shop' } }, 'v1', 'ConfigMap'),
    ).to.deep.equal({ metadata: { namespace: 'aaaaaa-shop' } });
    const json = patchUp(
      ctx,
      'application/json-patch+json',
      [
        {
          op: 'add',
          path: '/subjects/-',
          value: { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' },
        },
        {
          op: 'replace',
          path: '/roleRef',
          value: { kind: 'ClusterRole', name: 'view', apiGroup: 'rbac.authorization.k8s.io' },
        },
        { op: 'remove', path: '/metadata/labels/x' },
      ],
      'rbac.authorization.k8s.io/v1',
      'RoleBinding',
    ) as { value?: { name: string } }[];
    expect(json[0].value!.name).to.equal('aaaaaa-alice');
    expect(json[1].value!.name).to.equal('aaaaaa-view');
    expect(json[2]).to.deep.equal({ op: 'remove', path: '/metadata/labels/x' });
  });

  it('seals continue tokens so that they reveal nothing and work only for their tenant', () => {
    const key = Buffer.alloc(32, 7);
    const upstreamToken = Buffer.from(
      JSON.stringify({ r: 10, s: '/registry/core/namespaces/bbbbbb-secret\u0000' }),
    ).toString('base64url');
    const sealed = sealContinue(key, 'aaaaaa', upstreamToken);
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).to.not.contain('bbbbbb');
    expect(openContinue(key, 'aaaaaa', sealed)).to.equal(upstreamToken);
    expect(() => openContinue(key, 'bbbbbb', sealed)).to.throw(TranslationError);
    expect(() => openContinue(key, 'aaaaaa', sealed.slice(0, -2) + 'AA')).to.throw(TranslationError);
  });

  it("other tenants' contexts see none of it", () => {
    const status = statusDown(other, {
      kind: 'Status',
      message: 'pods "web" not found',
      code: 404,
      details: { name: 'web' },
    });
    expect(status.message).to.equal('pods "web" not found');
  });
});
