import { expect } from 'chai';
import {
  acceptsAggregatedDiscovery,
  AGGREGATED_DISCOVERY_CONTENT_TYPE,
  aggregatedDiscovery,
  aggregatedDiscoveryContentType,
  type APIResourceDiscovery,
} from '../../apiserver/discovery/aggregated.js';
import { compareKubeAwareVersions } from '../../apiserver/discovery/group-order.js';
import { apiGroupList, apiResourceList, apiVersions } from '../../apiserver/discovery/legacy.js';
import { BUILTIN_RESOURCES } from '../../apiserver/resources/builtin.js';
import { resourceInfoFromCRD } from '../../apiserver/resources/custom-resource.js';
import type { ResourceInfo } from '../../apiserver/resources/resource-info.js';

// Expectations copied from the bodies kubectl 1.32 accepted (recorded against a probe server), adjusted
// where the probe server that produced them differed from kube-apiserver 1.32; each
// adjustment is commented.

const KUBECTL_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

const ALL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function crd(
  group: string,
  plural: string,
  kind: string,
  versions: string[],
  extra: { scope?: string } = {},
): ResourceInfo[] {
  return resourceInfoFromCRD({
    spec: {
      group,
      scope: extra.scope ?? 'Namespaced',
      names: { plural, kind },
      versions: versions.map((name, i) => ({
        name,
        served: true,
        storage: i === 0,
        subresources: { status: {}, scale: {} },
      })),
    },
  });
}

describe('discovery: legacy documents', () => {
  it('/api is APIVersions with the server address', () => {
    expect(apiVersions('127.0.0.1:6443')).to.deep.equal({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1:6443' }],
    });
  });

  it('/apis lists groups as the sample does, preferred version included', () => {
    const groups = apiGroupList(BUILTIN_RESOURCES);
    expect(groups).to.include({ kind: 'APIGroupList', apiVersion: 'v1' });
    for (const name of ['apps', 'apiextensions.k8s.io', 'authorization.k8s.io']) {
      const gv = { groupVersion: `${name}/v1`, version: 'v1' };
      expect(groups.groups.find((g) => g.name === name)).to.deep.equal({ name, versions: [gv], preferredVersion: gv });
    }
    // Two versions of one group: v2 is kube's preferred (and first) one.
    const [v2, v1] = ['v2', 'v1'].map((version) => ({ groupVersion: `autoscaling/${version}`, version }));
    expect(groups.groups.find((g) => g.name === 'autoscaling')).to.deep.equal({
      name: 'autoscaling',
      versions: [v2, v1],
      preferredVersion: v2,
    });
  });

  it('/apis orders groups as kube-apiserver 1.32 does and never lists the core group', () => {
    expect(apiGroupList(BUILTIN_RESOURCES).groups.map((g) => g.name)).to.deep.equal([
      'apps',
      'events.k8s.io',
      'authentication.k8s.io',
      'authorization.k8s.io',
      'autoscaling',
      'batch',
      'networking.k8s.io',
      'policy',
      'rbac.authorization.k8s.io',
      'storage.k8s.io',
      'admissionregistration.k8s.io',
      'apiextensions.k8s.io',
      'scheduling.k8s.io',
      'coordination.k8s.io',
      'discovery.k8s.io',
    ]);
  });

  it('/api/v1 has the sample entries, subresources included', () => {
    const list = apiResourceList('v1', BUILTIN_RESOURCES);
    expect(list).to.include({ kind: 'APIResourceList', groupVersion: 'v1' });
    // kube-apiserver leaves apiVersion out of /api/v1 (the probe server set it).
    expect(list).to.not.have.property('apiVersion');
    const byName = new Map(list.resources.map((r) => [r.name, r]));
    const expected = [
      {
        name: 'namespaces',
        singularName: 'namespace',
        namespaced: false,
        kind: 'Namespace',
        verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['ns'],
      },
      {
        name: 'pods',
        singularName: 'pod',
        namespaced: true,
        kind: 'Pod',
        verbs: ALL,
        shortNames: ['po'],
        categories: ['all'],
      },
      { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
      { name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] },
      { name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] },
      {
        name: 'configmaps',
        singularName: 'configmap',
        namespaced: true,
        kind: 'ConfigMap',
        verbs: ALL,
        shortNames: ['cm'],
      },
      // kube-apiserver 1.32 also offers deletecollection on services (the probe server did not).
      {
        name: 'services',
        singularName: 'service',
        namespaced: true,
        kind: 'Service',
        verbs: ALL,
        shortNames: ['svc'],
        categories: ['all'],
      },
    ];
    for (const entry of expected) expect(byName.get(entry.name), entry.name).to.deep.equal(entry);
  });

  it('/api/v1 is sorted by name, each resource followed by its subresources', () => {
    const names = apiResourceList('v1', BUILTIN_RESOURCES).resources.map((r) => r.name);
    expect(names).to.deep.equal([...names].sort());
    expect(names.filter((n) => n.startsWith('pods/'))).to.deep.equal([
      'pods/attach',
      'pods/binding',
      'pods/ephemeralcontainers',
      'pods/eviction',
      'pods/exec',
      'pods/log',
      'pods/portforward',
      'pods/proxy',
      'pods/status',
    ]);
  });

  it('/apis/apps/v1 matches the sample, scale naming its own group-version', () => {
    const list = apiResourceList('apps/v1', BUILTIN_RESOURCES);
    expect(list).to.include({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'apps/v1' });
    const byName = new Map(list.resources.map((r) => [r.name, r]));
    expect(byName.get('deployments')).to.deep.equal({
      name: 'deployments',
      singularName: 'deployment',
      namespaced: true,
      kind: 'Deployment',
      verbs: ALL,
      shortNames: ['deploy'],
      categories: ['all'],
    });
    expect(byName.get('deployments/status')).to.deep.equal({
      name: 'deployments/status',
      singularName: '',
      namespaced: true,
      kind: 'Deployment',
      verbs: ['get', 'patch', 'update'],
    });
    expect(byName.get('deployments/scale')).to.deep.equal({
      name: 'deployments/scale',
      singularName: '',
      namespaced: true,
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
      group: 'autoscaling',
      version: 'v1',
    });
  });

  it('serves the short names kubectl resolves', () => {
    const shortNames = new Map<string, string>();
    for (const gv of [
      'v1',
      'apps/v1',
      'batch/v1',
      'networking.k8s.io/v1',
      'policy/v1',
      'storage.k8s.io/v1',
      'apiextensions.k8s.io/v1',
      'scheduling.k8s.io/v1',
    ]) {
      for (const r of apiResourceList(gv, BUILTIN_RESOURCES).resources)
        for (const s of r.shortNames ?? []) shortNames.set(s, r.name);
    }
    expect(Object.fromEntries(shortNames)).to.deep.equal({
      cs: 'componentstatuses',
      cm: 'configmaps',
      ep: 'endpoints',
      ev: 'events',
      limits: 'limitranges',
      ns: 'namespaces',
      no: 'nodes',
      pvc: 'persistentvolumeclaims',
      pv: 'persistentvolumes',
      po: 'pods',
      rc: 'replicationcontrollers',
      quota: 'resourcequotas',
      sa: 'serviceaccounts',
      svc: 'services',
      ds: 'daemonsets',
      deploy: 'deployments',
      rs: 'replicasets',
      sts: 'statefulsets',
      cj: 'cronjobs',
      ing: 'ingresses',
      netpol: 'networkpolicies',
      pdb: 'poddisruptionbudgets',
      sc: 'storageclasses',
      crd: 'customresourcedefinitions',
      crds: 'customresourcedefinitions',
      pc: 'priorityclasses',
    });
  });

  it('review resources are create-only', () => {
    for (const gv of ['authorization.k8s.io/v1', 'authentication.k8s.io/v1']) {
      for (const r of apiResourceList(gv, BUILTIN_RESOURCES).resources)
        expect(r.verbs, r.name).to.deep.equal(['create']);
    }
    const local = apiResourceList('authorization.k8s.io/v1', BUILTIN_RESOURCES).resources.find(
      (r) => r.name === 'localsubjectaccessreviews',
    );
    expect(local?.namespaced).to.equal(true);
  });
});

describe('discovery: custom resources', () => {
  const widgets = crd('example.com', 'widgets', 'Widget', ['v1beta1', 'v1', 'v2alpha1', 'v1alpha1']);

  it('lists CRD groups after the built-in ones, preferring the most stable version', () => {
    const groups = apiGroupList([...BUILTIN_RESOURCES, ...crd('zeta.io', 'zs', 'Z', ['v1']), ...widgets]).groups;
    expect(groups.slice(-2).map((g) => g.name)).to.deep.equal(['example.com', 'zeta.io']);
    const example = groups.find((g) => g.name === 'example.com')!;
    expect(example.versions.map((v) => v.version)).to.deep.equal(['v1', 'v1beta1', 'v2alpha1', 'v1alpha1']);
    expect(example.preferredVersion).to.deep.equal({ groupVersion: 'example.com/v1', version: 'v1' });
  });

  it('lists status before scale, with the verbs in the apiextensions server order', () => {
    const list = apiResourceList('example.com/v1', widgets);
    expect(list.resources).to.deep.equal([
      {
        name: 'widgets',
        singularName: 'widget',
        namespaced: true,
        kind: 'Widget',
        verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
      },
      { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: ['get', 'patch', 'update'] },
      {
        name: 'widgets/scale',
        singularName: '',
        namespaced: true,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      },
    ]);
  });

  it('spells out responseKind in aggregated discovery', () => {
    const item = aggregatedDiscovery(widgets, 'apis').items[0];
    expect(item.metadata).to.deep.equal({ name: 'example.com', creationTimestamp: null });
    expect(item.versions.map((v) => v.version)).to.deep.equal(['v1', 'v1beta1', 'v2alpha1', 'v1alpha1']);
    const resource = item.versions[0].resources[0];
    expect(resource.responseKind).to.deep.equal({ group: 'example.com', version: 'v1', kind: 'Widget' });
    expect(resource.subresources).to.deep.equal([
      {
        subresource: 'status',
        responseKind: { group: 'example.com', version: 'v1', kind: 'Widget' },
        verbs: ['get', 'patch', 'update'],
      },
      {
        subresource: 'scale',
        responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
        verbs: ['get', 'patch', 'update'],
      },
    ]);
  });

  it('orders versions the kube-aware way', () => {
    const sorted = ['v1alpha1', 'v2', 'foo', 'v1beta2', 'v1', 'v11alpha2', 'v1beta1', 'v12alpha1', 'bar'].sort((a, b) =>
      compareKubeAwareVersions(b, a),
    );
    expect(sorted).to.deep.equal([
      'v2',
      'v1',
      'v1beta2',
      'v1beta1',
      'v12alpha1',
      'v11alpha2',
      'v1alpha1',
      'bar',
      'foo',
    ]);
  });
});

/** The probe server spelled out responseKind; kube-apiserver leaves group and version empty for built-ins. */
function asKubeServesIt(resource: APIResourceDiscovery): APIResourceDiscovery {
  return {
    ...resource,
    responseKind: { ...resource.responseKind, group: '', version: '' },
    ...(resource.subresources
      ? {
          subresources: resource.subresources.map((s) =>
            s.responseKind.group === 'autoscaling'
              ? s
              : { ...s, responseKind: { ...s.responseKind, group: '', version: '' } },
          ),
        }
      : {}),
  };
}

function expectSampleResource(actual: APIResourceDiscovery | undefined, sample: APIResourceDiscovery): void {
  const expected = asKubeServesIt(sample);
  expect(actual, sample.resource).to.not.equal(undefined);
  const { subresources: actualSubs, ...actualRest } = actual!;
  const { subresources: expectedSubs, ...expectedRest } = expected;
  expect(actualRest).to.deep.equal(expectedRest);
  // The sample lists only some subresources; each must be served exactly so.
  for (const sub of expectedSubs ?? [])
    expect(actualSubs?.find((s) => s.subresource === sub.subresource)).to.deep.equal(sub);
}

describe('discovery: aggregated documents', () => {
  const gvk = (group: string, version: string, kind: string) => ({ group, version, kind });

  it('uses the Content-Type client-go keys on', () => {
    expect(AGGREGATED_DISCOVERY_CONTENT_TYPE).to.equal(
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
    expect(aggregatedDiscoveryContentType('v2beta1')).to.equal(
      'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
    );
  });

  it('/api holds the core group only, with the sample resources', () => {
    const body = aggregatedDiscovery(BUILTIN_RESOURCES, 'api');
    expect(body).to.include({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
    expect(body.metadata).to.deep.equal({});
    expect(body.items).to.have.length(1);
    expect(body.items[0].metadata).to.deep.equal({ creationTimestamp: null });
    const version = body.items[0].versions[0];
    expect(version).to.include({ version: 'v1', freshness: 'Current' });
    const byName = new Map(version.resources.map((r) => [r.resource, r]));
    const samples: APIResourceDiscovery[] = [
      {
        resource: 'namespaces',
        responseKind: gvk('', 'v1', 'Namespace'),
        scope: 'Cluster',
        singularResource: 'namespace',
        verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['ns'],
      },
      {
        resource: 'pods',
        responseKind: gvk('', 'v1', 'Pod'),
        scope: 'Namespaced',
        singularResource: 'pod',
        verbs: ALL,
        shortNames: ['po'],
        categories: ['all'],
        subresources: [
          { subresource: 'log', responseKind: gvk('', 'v1', 'Pod'), verbs: ['get'] },
          { subresource: 'exec', responseKind: gvk('', 'v1', 'PodExecOptions'), verbs: ['create', 'get'] },
          { subresource: 'status', responseKind: gvk('', 'v1', 'Pod'), verbs: ['get', 'patch', 'update'] },
        ],
      },
      {
        resource: 'configmaps',
        responseKind: gvk('', 'v1', 'ConfigMap'),
        scope: 'Namespaced',
        singularResource: 'configmap',
        verbs: ALL,
        shortNames: ['cm'],
      },
      // kube-apiserver 1.32 also offers deletecollection on services (the probe server did not).
      {
        resource: 'services',
        responseKind: gvk('', 'v1', 'Service'),
        scope: 'Namespaced',
        singularResource: 'service',
        verbs: ALL,
        shortNames: ['svc'],
        categories: ['all'],
      },
    ];
    for (const sample of samples) expectSampleResource(byName.get(sample.resource), sample);
    expect(byName.get('services')!.subresources!.map((s) => s.subresource)).to.deep.equal(['proxy', 'status']);
  });

  it('/apis holds every named group in kube order, with the sample resources', () => {
    const body = aggregatedDiscovery(BUILTIN_RESOURCES, 'apis');
    expect(body.items.map((i) => i.metadata.name)).to.deep.equal(
      apiGroupList(BUILTIN_RESOURCES).groups.map((g) => g.name),
    );
    const resource = (group: string, name: string) =>
      body.items.find((i) => i.metadata.name === group)!.versions[0].resources.find((r) => r.resource === name);
    expectSampleResource(resource('apps', 'deployments'), {
      resource: 'deployments',
      responseKind: gvk('apps', 'v1', 'Deployment'),
      scope: 'Namespaced',
      singularResource: 'deployment',
      verbs: ALL,
      shortNames: ['deploy'],
      categories: ['all'],
      subresources: [
        { subresource: 'status', responseKind: gvk('apps', 'v1', 'Deployment'), verbs: ['get', 'patch', 'update'] },
        { subresource: 'scale', responseKind: gvk('autoscaling', 'v1', 'Scale'), verbs: ['get', 'patch', 'update'] },
      ],
    });
    expectSampleResource(resource('apiextensions.k8s.io', 'customresourcedefinitions'), {
      resource: 'customresourcedefinitions',
      responseKind: gvk('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition'),
      scope: 'Cluster',
      singularResource: 'customresourcedefinition',
      verbs: ALL,
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      // kube-apiserver 1.32 serves customresourcedefinitions/status too (the probe server did not).
      subresources: [
        {
          subresource: 'status',
          responseKind: gvk('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition'),
          verbs: ['get', 'patch', 'update'],
        },
      ],
    });
    for (const name of ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']) {
      const kind = name === 'selfsubjectaccessreviews' ? 'SelfSubjectAccessReview' : 'SelfSubjectRulesReview';
      expectSampleResource(resource('authorization.k8s.io', name), {
        resource: name,
        responseKind: gvk('authorization.k8s.io', 'v1', kind),
        scope: 'Cluster',
        singularResource: name.slice(0, -1),
        verbs: ['create'],
      });
    }
  });

  it('omits empty shortNames, categories and subresources', () => {
    const leases = aggregatedDiscovery(BUILTIN_RESOURCES, 'apis').items.find(
      (i) => i.metadata.name === 'coordination.k8s.io',
    )!.versions[0].resources[0];
    expect(Object.keys(leases)).to.deep.equal(['resource', 'responseKind', 'scope', 'singularResource', 'verbs']);
  });

  it('can label the body v2beta1', () => {
    expect(aggregatedDiscovery(BUILTIN_RESOURCES, 'api', 'v2beta1').apiVersion).to.equal('apidiscovery.k8s.io/v2beta1');
  });
});

describe('discovery: Accept negotiation', () => {
  const cases: [string, string, 'v2' | 'v2beta1' | null][] = [
    ['kubectl 1.32', KUBECTL_ACCEPT, 'v2'],
    [
      'parameters in any order, with spaces',
      'application/json; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io',
      'v2',
    ],
    [
      'v2beta1 only',
      'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json',
      'v2beta1',
    ],
    [
      'a plain clause first means legacy',
      'application/json,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
      null,
    ],
    [
      'higher quality wins',
      'application/json;q=0.5,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
      'v2',
    ],
    [
      'q=0 refuses a clause',
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0,application/json',
      null,
    ],
    [
      'conversions discovery cannot do are skipped',
      'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
      'v2',
    ],
    [
      'unknown versions are skipped',
      'application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
      'v2beta1',
    ],
    [
      'protobuf clients get it too',
      'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
      'v2',
    ],
    ['legacy client', 'application/json, */*', null],
    ['no header', '', null],
    ['unsupported media types are skipped', 'text/html;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', null],
  ];
  for (const [title, accept, want] of cases) {
    it(title, () => {
      expect(acceptsAggregatedDiscovery(accept)).to.equal(want);
    });
  }
});
