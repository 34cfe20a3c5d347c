import { expect } from 'chai';
import { aggregatedDiscovery, type AggregatedDiscoveryVersion } from '../../apiserver/discovery/aggregated.js';
import { apiGroupList, apiResourceList, apiVersions } from '../../apiserver/discovery/legacy.js';
import { BUILTIN_RESOURCES } from '../../apiserver/resources/builtin.js';
import { resourceInfoFromCRD } from '../../apiserver/resources/custom-resource.js';
import type { ResourceInfo } from '../../apiserver/resources/resource-info.js';
import { BUILTIN_GROUPS, tenantContext } from '../../translate/context.js';
import { apiGroupDown, apiResourceListDown, discoveryPathUp, discoveryRootDown } from '../../translate/discovery.js';

// The upstream cluster as the real discovery builders describe it: the built-ins, an admin
// group, this tenant's CRD group (two versions, status and scale), another tenant's and an
// admin-installed CRD. What the tenant must see is what the same builders produce for a
// cluster holding only the built-ins and its group without the prefix.

function crd(group: string, plural: string, kind: string, versions: string[]): ResourceInfo[] {
  return resourceInfoFromCRD({
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, kind, shortNames: [plural.slice(0, 2)], categories: ['all'] },
      versions: versions.map((name, i) => ({
        name,
        served: true,
        storage: i === 0,
        subresources: { status: {}, scale: {} },
      })),
    },
  });
}

const UPSTREAM_ADDRESS = '10.96.0.1:6443';
const ctx = tenantContext('aaaaaa', {
  kindIsNamespaced: () => undefined,
  resourceIsNamespaced: () => undefined,
  kindOf: () => undefined,
});

const UPSTREAM: ResourceInfo[] = [
  ...BUILTIN_RESOURCES,
  ...crd('tenant.kubezoo.io', 'tenants', 'Tenant', ['v1alpha1']),
  ...crd('aaaaaa-stable.example.com', 'crontabs', 'CronTab', ['v1', 'v1beta1']),
  ...crd('bbbbbb-widgets.example.com', 'widgets', 'Widget', ['v1']),
  ...crd('monitoring.coreos.com', 'prometheuses', 'Prometheus', ['v1']),
];
const TENANT_VIEW: ResourceInfo[] = [
  ...BUILTIN_RESOURCES,
  ...crd('stable.example.com', 'crontabs', 'CronTab', ['v1', 'v1beta1']),
];

const FORBIDDEN = ['bbbbbb', 'monitoring.coreos.com', 'tenant.kubezoo.io', UPSTREAM_ADDRESS];

/** Every key and string value in a document. */
function strings(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (Array.isArray(node)) return node.flatMap(strings);
  if (node && typeof node === 'object') return Object.entries(node).flatMap(([key, value]) => [key, ...strings(value)]);
  return [];
}

function expectNothingForeign(doc: unknown): void {
  for (const text of strings(doc)) {
    for (const forbidden of FORBIDDEN) expect(text, `"${text}" contains "${forbidden}"`).to.not.include(forbidden);
  }
}

const builtinGroupNames = [...new Set(BUILTIN_RESOURCES.map((r) => r.group).filter((g) => g !== ''))];

describe('translate/discovery: legacy documents', () => {
  it('/api keeps the versions and drops the upstream address', () => {
    const down = discoveryRootDown(ctx, apiVersions(UPSTREAM_ADDRESS));
    expect(down).to.deep.equal({ kind: 'APIVersions', versions: ['v1'] });
    expectNothingForeign(down);
  });

  it('/apis lists exactly the built-in groups and the tenant group, unprefixed', () => {
    const down = discoveryRootDown(ctx, apiGroupList(UPSTREAM));
    expect(down.groups.map((g: { name: string }) => g.name)).to.have.members([
      ...builtinGroupNames,
      'stable.example.com',
    ]);
    expect(down).to.deep.equal(apiGroupList(TENANT_VIEW));
    expectNothingForeign(down);
  });

  it('/apis/<group>: the tenant group renamed with its preferred version, built-ins unchanged, the rest hidden', () => {
    const apiGroup = (resources: ResourceInfo[], name: string) => ({
      kind: 'APIGroup',
      apiVersion: 'v1',
      ...apiGroupList(resources).groups.find((g) => g.name === name)!,
    });
    expect(apiGroupDown(ctx, apiGroup(UPSTREAM, 'aaaaaa-stable.example.com'))).to.deep.equal(
      apiGroup(TENANT_VIEW, 'stable.example.com'),
    );
    expect(apiGroupDown(ctx, apiGroup(UPSTREAM, 'aaaaaa-stable.example.com')).preferredVersion).to.deep.equal({
      groupVersion: 'stable.example.com/v1',
      version: 'v1',
    });
    expect(apiGroupDown(ctx, apiGroup(UPSTREAM, 'apps'))).to.deep.equal(apiGroup(UPSTREAM, 'apps'));
    for (const hidden of ['tenant.kubezoo.io', 'bbbbbb-widgets.example.com', 'monitoring.coreos.com']) {
      expect(apiGroupDown(ctx, apiGroup(UPSTREAM, hidden)), hidden).to.equal(null);
    }
  });

  it('/apis/<group> drops a server address', () => {
    const withAddress = {
      ...apiGroupList(UPSTREAM).groups.find((g) => g.name === 'apps')!,
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: UPSTREAM_ADDRESS }],
    };
    expect(apiGroupDown(ctx, withAddress)).to.not.have.property('serverAddressByClientCIDRs');
  });

  it('/apis/<group>/<version>: the tenant group renamed, subresources keep their own group', () => {
    const down = apiResourceListDown(ctx, apiResourceList('aaaaaa-stable.example.com/v1', UPSTREAM));
    expect(down).to.deep.equal(apiResourceList('stable.example.com/v1', TENANT_VIEW));
    expect(down.resources.find((r: { name: string }) => r.name === 'crontabs/scale')).to.include({
      group: 'autoscaling',
      kind: 'Scale',
    });
    expect(down.resources.find((r: { name: string }) => r.name === 'crontabs')).to.deep.include({
      shortNames: ['cr'],
      categories: ['all'],
    });
  });

  it('/api/v1 and built-in group-versions pass unchanged', () => {
    for (const gv of ['v1', 'apps/v1', 'autoscaling/v2', 'rbac.authorization.k8s.io/v1']) {
      expect(apiResourceListDown(ctx, apiResourceList(gv, UPSTREAM)), gv).to.deep.equal(apiResourceList(gv, UPSTREAM));
    }
  });

  it('hides the resource lists of admin groups and other custom groups', () => {
    for (const gv of ['tenant.kubezoo.io/v1alpha1', 'bbbbbb-widgets.example.com/v1', 'monitoring.coreos.com/v1']) {
      expect(apiResourceListDown(ctx, apiResourceList(gv, UPSTREAM)), gv).to.equal(null);
    }
  });
});

describe('translate/discovery: aggregated documents', () => {
  for (const version of ['v2', 'v2beta1'] as AggregatedDiscoveryVersion[]) {
    it(`/apis (${version}) stays ${version} and shows exactly the built-ins and the tenant group`, () => {
      const down = discoveryRootDown(ctx, aggregatedDiscovery(UPSTREAM, 'apis', version));
      expect(down.apiVersion).to.equal(`apidiscovery.k8s.io/${version}`);
      expect(down.items.map((item: { metadata: { name: string } }) => item.metadata.name)).to.have.members([
        ...builtinGroupNames,
        'stable.example.com',
      ]);
      expect(down).to.deep.equal(aggregatedDiscovery(TENANT_VIEW, 'apis', version));
      expectNothingForeign(down);
    });

    it(`/api (${version}) keeps the core group unchanged`, () => {
      const upstream = aggregatedDiscovery(UPSTREAM, 'api', version);
      expect(discoveryRootDown(ctx, upstream)).to.deep.equal(upstream);
    });
  }

  it('renames the response kinds of the tenant resources and their subresources', () => {
    const down = discoveryRootDown(ctx, aggregatedDiscovery(UPSTREAM, 'apis'));
    const group = down.items.find(
      (item: { metadata: { name: string } }) => item.metadata.name === 'stable.example.com',
    );
    const crontabs = group.versions[0].resources[0];
    expect(crontabs.responseKind).to.deep.equal({ group: 'stable.example.com', version: 'v1', kind: 'CronTab' });
    expect(crontabs.subresources.map((s: { responseKind: unknown }) => s.responseKind)).to.deep.equal([
      { group: 'stable.example.com', version: 'v1', kind: 'CronTab' },
      { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    ]);
  });

  it('refuses a document it does not know rather than pass it through', () => {
    expect(() => discoveryRootDown(ctx, { kind: 'Status', message: 'bbbbbb-widgets.example.com' })).to.throw(/Status/);
  });
});

describe('translate/discovery: paths up', () => {
  it('prefixes the tenant group, with or without a version', () => {
    expect(discoveryPathUp(ctx, '/apis/stable.example.com')).to.equal('/apis/aaaaaa-stable.example.com');
    expect(discoveryPathUp(ctx, '/apis/stable.example.com/v1')).to.equal('/apis/aaaaaa-stable.example.com/v1');
  });

  it('leaves the roots, the core group and every built-in group as they are', () => {
    for (const path of ['/api', '/api/v1', '/apis']) expect(discoveryPathUp(ctx, path)).to.equal(path);
    for (const group of BUILTIN_GROUPS) {
      if (group) expect(discoveryPathUp(ctx, `/apis/${group}/v1`)).to.equal(`/apis/${group}/v1`);
    }
  });

  it('ignores a trailing slash as kube does', () => {
    expect(discoveryPathUp(ctx, '/apis/')).to.equal('/apis');
    expect(discoveryPathUp(ctx, '/apis/stable.example.com/v1/')).to.equal('/apis/aaaaaa-stable.example.com/v1');
  });

  it('refuses admin groups', () => {
    expect(discoveryPathUp(ctx, '/apis/tenant.kubezoo.io')).to.equal(null);
    expect(discoveryPathUp(ctx, '/apis/tenant.kubezoo.io/v1alpha1')).to.equal(null);
  });

  it('cannot reach another tenant or the admin CRDs: any custom group named is the tenant’s own', () => {
    expect(discoveryPathUp(ctx, '/apis/bbbbbb-widgets.example.com/v1')).to.equal(
      '/apis/aaaaaa-bbbbbb-widgets.example.com/v1',
    );
    expect(discoveryPathUp(ctx, '/apis/monitoring.coreos.com/v1')).to.equal('/apis/aaaaaa-monitoring.coreos.com/v1');
  });

  it('refuses paths that are not discovery', () => {
    for (const path of ['/api/v1/pods', '/apis/apps/v1/deployments', '/version', '/', '/openapi/v3']) {
      expect(discoveryPathUp(ctx, path), path).to.equal(null);
    }
  });
});
