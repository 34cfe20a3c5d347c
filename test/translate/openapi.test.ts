import { expect } from 'chai';
import { openapiV3Document, openapiV3Index, type OpenAPIV3Document } from '../../apiserver/openapi/v3.js';
import { BUILTIN_RESOURCES } from '../../apiserver/resources/builtin.js';
import { resourceInfoFromCRD } from '../../apiserver/resources/custom-resource.js';
import type { ResourceInfo } from '../../apiserver/resources/resource-info.js';
import { tenantContext } from '../../translate/context.js';
import { openapiDocumentDown, openapiIndexDown, openapiPathUp } from '../../translate/openapi.js';

// The upstream cluster as the real OpenAPI builders describe it: the built-ins, an admin group,
// this tenant's CRD group, another tenant's and an admin-installed CRD. A document of the
// tenant's group must read as the same builders write it for the group without the prefix.

function crd(group: string, plural: string, kind: string): ResourceInfo[] {
  return resourceInfoFromCRD({
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, kind },
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {}, scale: {} } }],
    },
  });
}

const ctx = tenantContext('aaaaaa', {
  kindIsNamespaced: () => undefined,
  resourceIsNamespaced: () => undefined,
  kindOf: () => undefined,
});

const UPSTREAM: ResourceInfo[] = [
  ...BUILTIN_RESOURCES,
  ...crd('tenant.kubezoo.io', 'tenants', 'Tenant'),
  ...crd('aaaaaa-stable.example.com', 'crontabs', 'CronTab'),
  ...crd('bbbbbb-widgets.example.com', 'widgets', 'Widget'),
  ...crd('monitoring.coreos.com', 'prometheuses', 'Prometheus'),
];
const TENANT_VIEW: ResourceInfo[] = [...BUILTIN_RESOURCES, ...crd('stable.example.com', 'crontabs', 'CronTab')];

const FORBIDDEN = ['bbbbbb', 'monitoring.coreos.com', 'tenant.kubezoo.io'];

/** Every key and string value in a document. */
function strings(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (Array.isArray(node)) return node.flatMap(strings);
  if (node && typeof node === 'object') return Object.entries(node).flatMap(([key, value]) => [key, ...strings(value)]);
  return [];
}

function expectNone(doc: unknown, forbidden: string[]): void {
  for (const text of strings(doc)) {
    for (const word of forbidden) expect(text, `"${text}" contains "${word}"`).to.not.include(word);
  }
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * A CronTab document with the schemas kube-apiserver adds to it: CRD schemas named by the
 * reversed group (`com.example.stable.v1.CronTab`), carrying their group-version-kinds as a
 * list, referenced from a response; and a built-in schema whose list names other groups.
 */
function cronTabDocument(group: string, resources: ResourceInfo[]): OpenAPIV3Document {
  const doc: any = openapiV3Document(`apis/${group}/v1`, resources);
  const schema = `${group.split('.').reverse().join('.')}.v1`;
  doc.paths[`/apis/${group}/v1/namespaces/{namespace}/crontabs/{name}`].get.responses['200'].content = {
    'application/json': { schema: ref(`${schema}.CronTab`) },
  };
  doc.components.schemas = {
    [`${schema}.CronTab`]: {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { allOf: [ref(`${META}.ObjectMeta`)] },
        spec: { type: 'object', properties: { cronSpec: { type: 'string' } } },
      },
      'x-kubernetes-group-version-kind': [{ group, version: 'v1', kind: 'CronTab' }],
    },
    [`${schema}.CronTabList`]: {
      type: 'object',
      required: ['items'],
      properties: {
        items: { type: 'array', items: ref(`${schema}.CronTab`) },
        metadata: { allOf: [ref(`${META}.ListMeta`)] },
      },
      'x-kubernetes-group-version-kind': [{ group, version: 'v1', kind: 'CronTabList' }],
    },
    [`${META}.ObjectMeta`]: { type: 'object' },
    [`${META}.ListMeta`]: { type: 'object' },
    [`${META}.DeleteOptions`]: {
      type: 'object',
      'x-kubernetes-group-version-kind': ['', 'admission.k8s.io', 'apps'].map((g) => ({
        group: g,
        version: 'v1',
        kind: 'DeleteOptions',
      })),
    },
  };
  return doc;
}

describe('translate/openapi: index', () => {
  const upstream = openapiV3Index(UPSTREAM) as any;
  // kube also lists group documents and a few non-API ones.
  for (const key of [
    'apis/aaaaaa-stable.example.com',
    'apis/bbbbbb-widgets.example.com',
    'apis/tenant.kubezoo.io',
    'apis/apps',
    'version',
  ]) {
    upstream.paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=0123ABCD` };
  }
  const down = openapiIndexDown(ctx, upstream);

  it('lists exactly the built-in group-versions and the tenant group, unprefixed', () => {
    expect(Object.keys(down.paths)).to.have.members([
      ...Object.keys(openapiV3Index(TENANT_VIEW).paths),
      'apis/stable.example.com',
      'apis/apps',
      'version',
    ]);
    expectNone(down, FORBIDDEN);
  });

  it('renames the tenant group in the URL and keeps the upstream hash', () => {
    expect(down.paths['apis/stable.example.com/v1'].serverRelativeURL).to.equal(
      upstream.paths['apis/aaaaaa-stable.example.com/v1'].serverRelativeURL.replace(
        '/apis/aaaaaa-stable.example.com/',
        '/apis/stable.example.com/',
      ),
    );
    expect(down.paths['apis/stable.example.com/v1'].serverRelativeURL).to.match(
      /^\/openapi\/v3\/apis\/stable\.example\.com\/v1\?hash=[0-9A-F]{128}$/,
    );
    expect(down.paths['apis/stable.example.com']).to.deep.equal({
      serverRelativeURL: '/openapi/v3/apis/stable.example.com?hash=0123ABCD',
    });
  });

  it('keeps built-in entries as they are', () => {
    for (const key of ['api/v1', 'apis/apps/v1', 'apis/apps', 'version'])
      expect(down.paths[key], key).to.deep.equal(upstream.paths[key]);
  });

  it('points every URL at a path that leads back to the upstream document', () => {
    for (const [key, entry] of Object.entries<{ serverRelativeURL: string }>(down.paths)) {
      const [path, query] = entry.serverRelativeURL.split('?');
      const upstreamEntry = Object.values<{ serverRelativeURL: string }>(upstream.paths).find(
        (e) => e.serverRelativeURL === `${openapiPathUp(ctx, path)}?${query}`,
      );
      expect(upstreamEntry, key).to.not.equal(undefined);
    }
  });
});

describe('translate/openapi: paths up', () => {
  it('prefixes the tenant group', () => {
    expect(openapiPathUp(ctx, '/openapi/v3/apis/stable.example.com/v1')).to.equal(
      '/openapi/v3/apis/aaaaaa-stable.example.com/v1',
    );
    expect(openapiPathUp(ctx, '/openapi/v3/apis/stable.example.com')).to.equal(
      '/openapi/v3/apis/aaaaaa-stable.example.com',
    );
  });

  it('leaves the core group, built-in groups and other documents as they are', () => {
    for (const path of [
      '/openapi/v3/api/v1',
      '/openapi/v3/apis/apps/v1',
      '/openapi/v3/apis/rbac.authorization.k8s.io/v1',
      '/openapi/v3/version',
    ]) {
      expect(openapiPathUp(ctx, path), path).to.equal(path);
    }
  });

  it('refuses admin groups and paths outside /openapi/v3/', () => {
    expect(openapiPathUp(ctx, '/openapi/v3/apis/tenant.kubezoo.io/v1alpha1')).to.equal(null);
    expect(openapiPathUp(ctx, '/openapi/v2')).to.equal(null);
    expect(openapiPathUp(ctx, '/apis/stable.example.com/v1')).to.equal(null);
  });

  it('cannot reach another tenant or the admin CRDs: any custom group named is the tenant’s own', () => {
    expect(openapiPathUp(ctx, '/openapi/v3/apis/bbbbbb-widgets.example.com/v1')).to.equal(
      '/openapi/v3/apis/aaaaaa-bbbbbb-widgets.example.com/v1',
    );
    expect(openapiPathUp(ctx, '/openapi/v3/apis/monitoring.coreos.com/v1')).to.equal(
      '/openapi/v3/apis/aaaaaa-monitoring.coreos.com/v1',
    );
  });
});

describe('translate/openapi: group-version documents', () => {
  const upstream = cronTabDocument('aaaaaa-stable.example.com', UPSTREAM);
  const down = openapiDocumentDown(ctx, upstream);

  it('reads as kube writes the document of the unprefixed group', () => {
    expect(down).to.deep.equal(cronTabDocument('stable.example.com', TENANT_VIEW));
    expectNone(down, ['aaaaaa', ...FORBIDDEN]);
  });

  it('renames path keys, group-version-kinds, operation ids and tags', () => {
    const patch = down.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}'].patch;
    expect(patch['x-kubernetes-group-version-kind']).to.deep.equal({
      group: 'stable.example.com',
      version: 'v1',
      kind: 'CronTab',
    });
    expect(patch.operationId).to.equal('patchStableExampleComV1NamespacedCronTab');
    expect(patch.tags).to.deep.equal(['stableExampleCom_v1']);
    expect(patch.parameters.map((p: { name: string }) => p.name)).to.include('fieldValidation');
    const scale = down.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/scale'].patch;
    expect(scale['x-kubernetes-group-version-kind']).to.deep.equal({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
  });

  it('renames CRD schemas and their references, not built-in ones', () => {
    expect(Object.keys(down.components.schemas)).to.have.members([
      'com.example.stable.v1.CronTab',
      'com.example.stable.v1.CronTabList',
      `${META}.ObjectMeta`,
      `${META}.ListMeta`,
      `${META}.DeleteOptions`,
    ]);
    expect(down.components.schemas['com.example.stable.v1.CronTabList'].properties.items.items).to.deep.equal(
      ref('com.example.stable.v1.CronTab'),
    );
    expect(down.components.schemas['com.example.stable.v1.CronTab']['x-kubernetes-group-version-kind']).to.deep.equal([
      { group: 'stable.example.com', version: 'v1', kind: 'CronTab' },
    ]);
    expect(down.components.schemas[`${META}.DeleteOptions`]).to.deep.equal(
      upstream.components.schemas[`${META}.DeleteOptions`],
    );
  });

  it('changes no other text, even text naming the upstream group', () => {
    const doc: any = cronTabDocument('aaaaaa-stable.example.com', UPSTREAM);
    const spec = doc.components.schemas['com.example.aaaaaa-stable.v1.CronTab'].properties.spec;
    spec.description = 'served as /apis/aaaaaa-stable.example.com/v1, schema com.example.aaaaaa-stable.v1.CronTab';
    expect(
      openapiDocumentDown(ctx, doc).components.schemas['com.example.stable.v1.CronTab'].properties.spec.description,
    ).to.equal(spec.description);
  });

  it('renames a group without dots, whose schema names kube does not reverse', () => {
    const doc = {
      paths: {},
      components: {
        schemas: {
          'aaaaaa-widgets.v1.Widget': {
            'x-kubernetes-group-version-kind': [{ group: 'aaaaaa-widgets', version: 'v1', kind: 'Widget' }],
          },
        },
      },
    };
    expect(openapiDocumentDown(ctx, doc).components.schemas).to.deep.equal({
      'widgets.v1.Widget': { 'x-kubernetes-group-version-kind': [{ group: 'widgets', version: 'v1', kind: 'Widget' }] },
    });
  });

  it('carries nothing of a group the tenant may not see, whatever the upstream document holds', () => {
    // Kube puts none of this in the document of the tenant's group; a document that did must
    // still not carry another tenant's or the admin's names down.
    const doc: any = cronTabDocument('aaaaaa-stable.example.com', UPSTREAM);
    const schemas = doc.components.schemas;
    const foreign = openapiV3Document('apis/bbbbbb-widgets.example.com/v1', UPSTREAM);
    Object.assign(doc.paths, foreign.paths);
    schemas['com.example.bbbbbb-widgets.v1.Widget'] = {
      type: 'object',
      'x-kubernetes-group-version-kind': [{ group: 'bbbbbb-widgets.example.com', version: 'v1', kind: 'Widget' }],
    };
    schemas['com.coreos.monitoring.v1.Prometheus'] = {
      type: 'object',
      'x-kubernetes-group-version-kind': [{ group: 'monitoring.coreos.com', version: 'v1', kind: 'Prometheus' }],
    };
    schemas[`${META}.DeleteOptions`]['x-kubernetes-group-version-kind'].push(
      { group: 'bbbbbb-widgets.example.com', version: 'v1', kind: 'DeleteOptions' },
      { group: 'tenant.kubezoo.io', version: 'v1alpha1', kind: 'DeleteOptions' },
    );
    schemas['com.example.aaaaaa-stable.v1.CronTab'].properties.widget = {
      allOf: [ref('com.example.bbbbbb-widgets.v1.Widget')],
      description: 'the widget it turns',
    };

    const tenantDoc = openapiDocumentDown(ctx, doc);
    expectNone(tenantDoc, ['aaaaaa', ...FORBIDDEN]);
    expect(Object.keys(tenantDoc.paths)).to.deep.equal(
      Object.keys(cronTabDocument('stable.example.com', TENANT_VIEW).paths),
    );
    expect(Object.keys(tenantDoc.components.schemas)).to.have.members([
      'com.example.stable.v1.CronTab',
      'com.example.stable.v1.CronTabList',
      `${META}.ObjectMeta`,
      `${META}.ListMeta`,
      `${META}.DeleteOptions`,
    ]);
    expect(
      tenantDoc.components.schemas[`${META}.DeleteOptions`]['x-kubernetes-group-version-kind'].map(
        (gvk: { group: string }) => gvk.group,
      ),
    ).to.deep.equal(['', 'admission.k8s.io', 'apps']);
    expect(tenantDoc.components.schemas['com.example.stable.v1.CronTab'].properties.widget).to.deep.equal({
      allOf: [{}],
      description: 'the widget it turns',
    });
  });

  it('leaves built-in documents unchanged', () => {
    for (const key of ['api/v1', 'apis/apps/v1', 'apis/autoscaling/v2']) {
      const doc = openapiV3Document(key, UPSTREAM);
      expect(openapiDocumentDown(ctx, doc), key).to.deep.equal(doc);
    }
  });
});
