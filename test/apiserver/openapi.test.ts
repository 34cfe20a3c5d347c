import { expect } from 'chai';
import {
  openapiV3Document,
  openapiV3DocumentHash,
  openapiV3Index,
  type OpenAPIV3Document,
} from '../../apiserver/openapi/v3.js';
import { BUILTIN_RESOURCES } from '../../apiserver/resources/builtin.js';
import { resourceInfoFromCRD } from '../../apiserver/resources/custom-resource.js';
import type { ResourceInfo } from '../../apiserver/resources/resource-info.js';

// Expectations copied from OpenAPI v3 documents kubectl 1.32 accepted (recorded against a probe
// server), and from what kubectl looks for in them (docs/design.md, "What kubectl needs").

function widgets(group = 'example.com', plural = 'widgets', kind = 'Widget', schema?: object): ResourceInfo[] {
  return resourceInfoFromCRD({
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, kind },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          ...(schema ? { schema: { openAPIV3Schema: schema } } : {}),
        },
      ],
    },
  });
}

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
const STRATEGIC = 'application/strategic-merge-patch+json';

/** Every operation of a document with the method it sits under. */
function operations(doc: OpenAPIV3Document) {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    (['get', 'put', 'post', 'delete', 'patch'] as const).flatMap((method) =>
      item[method] ? [{ path, method, op: item[method] }] : [],
    ),
  );
}

const paramNames = (op: { parameters?: { name: string; in: string }[] }) =>
  (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);

describe('openapi v3: index', () => {
  it('lists every group-version with a hashed URL, as the sample does', () => {
    const index = openapiV3Index(BUILTIN_RESOURCES);
    const keys = Object.keys(index.paths);
    expect(keys).to.include.members([
      'api/v1',
      'apis/apps/v1',
      'apis/apiextensions.k8s.io/v1',
      'apis/authorization.k8s.io/v1',
      'apis/autoscaling/v1',
      'apis/autoscaling/v2',
    ]);
    expect(keys).to.have.length(17);
    expect(keys).to.deep.equal([...keys].sort());
    for (const key of keys) {
      expect(index.paths[key].serverRelativeURL).to.match(
        new RegExp(`^/openapi/v3/${key.replace(/\./g, '\\.')}\\?hash=[0-9A-F]{128}$`),
      );
    }
  });

  it('hashes each URL with the document it points to', () => {
    const index = openapiV3Index(BUILTIN_RESOURCES);
    const hash = openapiV3DocumentHash(openapiV3Document('apis/apps/v1', BUILTIN_RESOURCES));
    expect(index.paths['apis/apps/v1'].serverRelativeURL).to.equal(`/openapi/v3/apis/apps/v1?hash=${hash}`);
  });

  it('adds a group-version when a CRD is added, leaving other hashes alone', () => {
    const before = openapiV3Index(BUILTIN_RESOURCES);
    const after = openapiV3Index([...BUILTIN_RESOURCES, ...widgets()]);
    expect(before.paths).to.not.have.property('apis/example.com/v1');
    expect(after.paths).to.have.property('apis/example.com/v1');
    expect(after.paths['apis/apps/v1']).to.deep.equal(before.paths['apis/apps/v1']);
  });

  it('changes a group-version hash when a resource is added to it', () => {
    const one = openapiV3Index([...BUILTIN_RESOURCES, ...widgets()]);
    const two = openapiV3Index([...BUILTIN_RESOURCES, ...widgets(), ...widgets('example.com', 'gadgets', 'Gadget')]);
    expect(two.paths['apis/example.com/v1'].serverRelativeURL).to.not.equal(
      one.paths['apis/example.com/v1'].serverRelativeURL,
    );
  });

  it('is deterministic, whatever the order of the resources', () => {
    const resources = [...BUILTIN_RESOURCES, ...widgets(), ...widgets('example.com', 'gadgets', 'Gadget')];
    expect(openapiV3Index([...resources].reverse())).to.deep.equal(openapiV3Index(resources));
    expect(openapiV3DocumentHash(openapiV3Document('apis/example.com/v1', [...resources].reverse()))).to.equal(
      openapiV3DocumentHash(openapiV3Document('apis/example.com/v1', resources)),
    );
  });
});

describe('openapi v3: group-version documents', () => {
  const apps = openapiV3Document('apis/apps/v1', BUILTIN_RESOURCES);
  const core = openapiV3Document('api/v1', BUILTIN_RESOURCES);

  it('has the sample envelope', () => {
    expect(apps.openapi).to.equal('3.0.0');
    expect(apps.info).to.deep.equal({ title: 'Kubernetes', version: 'v1.32.0' });
  });

  it('accepts the discovery form of the group-version too', () => {
    expect(openapiV3Document('apps/v1', BUILTIN_RESOURCES)).to.deep.equal(apps);
    expect(openapiV3Document('v1', BUILTIN_RESOURCES)).to.deep.equal(core);
  });

  it('has the sample PATCH operation for Deployment, what kubectl needs to validate server-side', () => {
    const patch = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch!;
    expect(patch['x-kubernetes-group-version-kind']).to.deep.equal({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
    });
    expect(patch['x-kubernetes-action']).to.equal('patch');
    // kube-apiserver's operation id (the probe server shortened it to patchDeployment).
    expect(patch.operationId).to.equal('patchAppsV1NamespacedDeployment');
    for (const name of ['dryRun', 'fieldManager', 'fieldValidation']) {
      expect(patch.parameters).to.deep.include({ name, in: 'query', schema: { type: 'string', uniqueItems: true } });
    }
    expect(Object.keys(patch.requestBody!.content)).to.have.members([...PATCH_TYPES, STRATEGIC]);
    expect(patch.requestBody!.required).to.equal(true);
    expect(patch.responses['200']).to.deep.equal({ description: 'OK' });
  });

  it('lays out namespaced, cluster-scoped and all-namespaces paths as kube does', () => {
    expect(Object.keys(core.paths)).to.include.members([
      '/api/v1/',
      '/api/v1/namespaces/{namespace}/pods',
      '/api/v1/namespaces/{namespace}/pods/{name}',
      '/api/v1/namespaces/{namespace}/pods/{name}/status',
      '/api/v1/namespaces/{namespace}/pods/{name}/log',
      '/api/v1/pods',
      '/api/v1/namespaces',
      '/api/v1/namespaces/{name}',
      '/api/v1/namespaces/{name}/finalize',
      '/api/v1/nodes/{name}',
    ]);
    const item = core.paths['/api/v1/namespaces/{namespace}/pods/{name}'];
    expect(item.parameters!.map((p) => [p.name, p.in])).to.deep.equal([
      ['name', 'path'],
      ['namespace', 'path'],
      ['pretty', 'query'],
    ]);
    expect(core.paths['/api/v1/nodes/{name}'].parameters!.map((p) => p.name)).to.deep.equal(['name', 'pretty']);
    expect(Object.keys(core.paths)).to.deep.equal(Object.keys(core.paths).sort());
  });

  it('names operations as kube does', () => {
    const ids = new Set(operations(core).map((o) => o.op.operationId));
    for (const id of [
      'listCoreV1NamespacedPod',
      'createCoreV1NamespacedPod',
      'deleteCoreV1CollectionNamespacedPod',
      'readCoreV1NamespacedPod',
      'replaceCoreV1NamespacedPod',
      'deleteCoreV1NamespacedPod',
      'patchCoreV1NamespacedPod',
      'listCoreV1PodForAllNamespaces',
      'readCoreV1NamespacedPodLog',
      'patchCoreV1NamespacedPodStatus',
      'connectCoreV1GetNamespacedPodExec',
      'connectCoreV1PostNamespacedPodExec',
      'createCoreV1NamespacedPodEviction',
      'replaceCoreV1NamespaceFinalize',
      'patchCoreV1Node',
      'getCoreV1APIResources',
    ]) {
      expect(ids, id).to.include(id);
    }
    const rbac = openapiV3Document('apis/rbac.authorization.k8s.io/v1', BUILTIN_RESOURCES);
    expect(rbac.paths['/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}'].patch!.operationId).to.equal(
      'patchRbacAuthorizationV1ClusterRole',
    );
    expect(rbac.paths['/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}'].patch!.tags).to.deep.equal([
      'rbacAuthorization_v1',
    ]);
  });

  it('offers only the operations a resource has verbs for', () => {
    const authz = openapiV3Document('apis/authorization.k8s.io/v1', BUILTIN_RESOURCES);
    const ssar = authz.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'];
    expect(Object.keys(ssar)).to.deep.equal(['post', 'parameters']);
    expect(ssar.post!['x-kubernetes-group-version-kind']).to.deep.equal({
      group: 'authorization.k8s.io',
      version: 'v1',
      kind: 'SelfSubjectAccessReview',
    });
    expect(authz.paths).to.have.property(
      '/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews',
    );
    expect(core.paths['/api/v1/namespaces'].delete).to.equal(undefined);
  });

  it('takes fieldValidation on every create, update and patch, in every document', () => {
    for (const key of Object.keys(openapiV3Index(BUILTIN_RESOURCES).paths)) {
      for (const { path, method, op } of operations(openapiV3Document(key, BUILTIN_RESOURCES))) {
        // kubectl checks the first PATCH it meets for the kind, in map order, so all must have it.
        if (['post', 'put', 'patch'].includes(method) && op['x-kubernetes-action'] !== 'connect') {
          expect(paramNames(op), `${method} ${path}`).to.include('fieldValidation');
        } else {
          expect(paramNames(op), `${method} ${path}`).to.not.include('fieldValidation');
        }
      }
    }
  });

  it('gives each subresource operation the subresource kind', () => {
    const scale = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'];
    expect(scale.patch!['x-kubernetes-group-version-kind']).to.deep.equal({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
    expect(scale.get!.operationId).to.equal('readAppsV1NamespacedDeploymentScale');
    const status = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status'];
    expect(status.patch!['x-kubernetes-group-version-kind']).to.deep.equal({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
    });
  });
});

describe('openapi v3: custom resources', () => {
  const doc = openapiV3Document('apis/example.com/v1', [...BUILTIN_RESOURCES, ...widgets()]);
  const patch = doc.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'].patch!;

  it('does not offer strategic merge patch', () => {
    expect(Object.keys(patch.requestBody!.content)).to.have.members(PATCH_TYPES);
    expect(
      doc.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status'].patch!.requestBody!.content,
    ).to.not.have.property(STRATEGIC);
  });

  it('still lets kubectl validate server-side', () => {
    expect(patch['x-kubernetes-group-version-kind']).to.deep.equal({
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
    });
    expect(paramNames(patch)).to.include('fieldValidation');
    expect(patch.operationId).to.equal('patchExampleComV1NamespacedWidget');
  });

  it('carries the apiextensions server title', () => {
    expect(doc.info).to.deep.equal({ title: 'Kubernetes CRD Swagger', version: 'v0.1.0' });
  });
});

const SCHEMAS = '#/components/schemas/';
const ref = (name: string) => ({ $ref: SCHEMAS + name });

/** Every `$ref` in a document, with the keys beside it (JSONSchemaProps has a property named `$ref`: not one). */
function refs(node: unknown): Record<string, unknown>[] {
  if (Array.isArray(node)) return node.flatMap(refs);
  if (!node || typeof node !== 'object') return [];
  const object = node as Record<string, unknown>;
  return [...(typeof object.$ref === 'string' ? [object] : []), ...Object.values(object).flatMap(refs)];
}

const groupVersionKeys = (resources: readonly ResourceInfo[]) => [
  ...new Set(resources.map((r) => (r.group ? `apis/${r.group}/${r.version}` : `api/${r.version}`))),
];

describe('openapi v3: built-in schemas', () => {
  const apps = openapiV3Document('apis/apps/v1', BUILTIN_RESOURCES);
  const core = openapiV3Document('api/v1', BUILTIN_RESOURCES);

  it("carries Kubernetes' published schema of each kind, found by its group-version-kind", () => {
    const deployment = apps.components.schemas['io.k8s.api.apps.v1.Deployment'];
    expect(deployment['x-kubernetes-group-version-kind']).to.deep.equal([
      { group: 'apps', kind: 'Deployment', version: 'v1' },
    ]);
    expect(deployment.description).to.equal('Deployment enables declarative updates for Pods and ReplicaSets.');
    expect(apps.components.schemas['io.k8s.api.apps.v1.DeploymentSpec'].required).to.deep.equal([
      'selector',
      'template',
    ]);
  });

  it('wraps a reference that carries a description in allOf, as kube writes v3', () => {
    const template = apps.components.schemas['io.k8s.api.apps.v1.DeploymentSpec'].properties.template;
    expect(template.allOf).to.deep.equal([ref('io.k8s.api.core.v1.PodTemplateSpec')]);
    expect(template.description).to.match(/^Template describes the pods that will be created/);
    for (const key of groupVersionKeys(BUILTIN_RESOURCES)) {
      for (const found of refs(openapiV3Document(key, BUILTIN_RESOURCES))) {
        expect(Object.keys(found), key).to.deep.equal(['$ref']);
        expect(found.$ref, key).to.match(/^#\/components\/schemas\//);
      }
    }
  });

  it('keeps the list extensions that strategic merge and server-side apply read', () => {
    const containers = core.components.schemas['io.k8s.api.core.v1.PodSpec'].properties.containers;
    expect(containers).to.include({
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    });
    expect(containers['x-kubernetes-list-map-keys']).to.deep.equal(['name']);
    const ports = core.components.schemas['io.k8s.api.core.v1.ServiceSpec'].properties.ports;
    expect(ports['x-kubernetes-list-map-keys']).to.deep.equal(['port', 'protocol']);
  });

  it('has a schema for every served kind and its list, and every reference resolves in the document', () => {
    for (const key of groupVersionKeys(BUILTIN_RESOURCES)) {
      const doc = openapiV3Document(key, BUILTIN_RESOURCES);
      const kinds = Object.values(doc.components.schemas).flatMap((schema) =>
        (schema['x-kubernetes-group-version-kind'] ?? []).map(
          (gvk: { group: string; version: string; kind: string }) => `${gvk.group}/${gvk.version}/${gvk.kind}`,
        ),
      );
      for (const r of BUILTIN_RESOURCES.filter((r) => groupVersionKeys([r])[0] === key)) {
        expect(kinds, key).to.include(`${r.group}/${r.version}/${r.kind}`);
        if (r.verbs.includes('list')) expect(kinds, key).to.include(`${r.group}/${r.version}/${r.listKind}`);
      }
      for (const found of refs(doc)) {
        expect(doc.components.schemas, `${key}: ${String(found.$ref)}`).to.have.property(
          String(found.$ref).slice(SCHEMAS.length),
        );
      }
    }
  });

  it("names a subresource's kind from another group: Scale in apps/v1", () => {
    expect(apps.components.schemas).to.have.property('io.k8s.api.autoscaling.v1.Scale');
  });
});

describe('openapi v3: custom resource schemas', () => {
  const schema = {
    type: 'object',
    description: 'A Widget turns.',
    properties: {
      spec: {
        type: 'object',
        properties: {
          speed: { type: 'integer', description: 'Turns per second.' },
          template: { type: 'object', 'x-kubernetes-embedded-resource': true },
        },
      },
    },
  };
  const resources = [...BUILTIN_RESOURCES, ...widgets('example.com', 'widgets', 'Widget', schema)];
  const doc = openapiV3Document('apis/example.com/v1', resources);
  const widget = doc.components.schemas['com.example.v1.Widget'];

  it("publishes the version's openAPIV3Schema under kube's name, with its group-version-kind", () => {
    expect(widget.description).to.equal('A Widget turns.');
    expect(widget.properties.spec.properties.speed).to.deep.equal({
      type: 'integer',
      description: 'Turns per second.',
    });
    expect(widget['x-kubernetes-group-version-kind']).to.deep.equal([
      { group: 'example.com', kind: 'Widget', version: 'v1' },
    ]);
  });

  it('adds apiVersion, kind and the standard metadata, to embedded resources too', () => {
    const apps = openapiV3Document('apis/apps/v1', BUILTIN_RESOURCES).components.schemas;
    expect(widget.properties.apiVersion).to.deep.equal(apps['io.k8s.api.apps.v1.Deployment'].properties.apiVersion);
    expect(widget.properties.kind).to.deep.equal(apps['io.k8s.api.apps.v1.Deployment'].properties.kind);
    expect(widget.properties.metadata.allOf).to.deep.equal([ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')]);
    const template = widget.properties.spec.properties.template;
    expect(Object.keys(template.properties)).to.have.members(['apiVersion', 'kind', 'metadata']);
    expect(template.required).to.deep.equal(['kind', 'apiVersion']);
  });

  it('publishes the list kind, and the metadata schemas both refer to', () => {
    const list = doc.components.schemas['com.example.v1.WidgetList'];
    expect(list.properties.items.items).to.deep.equal(ref('com.example.v1.Widget'));
    expect(list.required).to.deep.equal(['items']);
    expect(list['x-kubernetes-group-version-kind']).to.deep.equal([
      { group: 'example.com', kind: 'WidgetList', version: 'v1' },
    ]);
    for (const found of refs(doc)) {
      expect(doc.components.schemas).to.have.property(String(found.$ref).slice(SCHEMAS.length));
    }
  });

  it("leaves the CRD's own object alone", () => {
    expect(schema.properties).to.have.keys(['spec']);
    expect(schema.properties.spec.properties.template).to.deep.equal({
      type: 'object',
      'x-kubernetes-embedded-resource': true,
    });
  });

  it('gets a new hash when the schema changes', () => {
    const changed = structuredClone(schema);
    changed.properties.spec.properties.speed.description = 'Turns per minute.';
    const before = openapiV3Index(resources).paths['apis/example.com/v1'].serverRelativeURL;
    const after = openapiV3Index([...BUILTIN_RESOURCES, ...widgets('example.com', 'widgets', 'Widget', changed)]).paths[
      'apis/example.com/v1'
    ].serverRelativeURL;
    expect(after).to.not.equal(before);
  });

  it('is an open object when the version has no schema', () => {
    const open = openapiV3Document('apis/example.com/v1', [...BUILTIN_RESOURCES, ...widgets()]);
    expect(open.components.schemas['com.example.v1.Widget']).to.deep.equal({
      type: 'object',
      'x-kubernetes-group-version-kind': [{ group: 'example.com', kind: 'Widget', version: 'v1' }],
    });
  });
});
