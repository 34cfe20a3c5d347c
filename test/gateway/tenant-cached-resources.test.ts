/**
 * What the cache keeps for tenants (gateway/cached/tenant-cached-resources.ts): the `--tenant-cache` and
 * `--failover-resources` values, and the custom resources of the tenants' CRDs, cached for
 * failover so that a tenant's custom objects are replayed after its CRDs.
 */
import { expect } from 'chai';
import {
  parseFailoverResources,
  parseTenantCache,
  tenantCustomResource,
} from '../../gateway/cached/tenant-cached-resources.js';

const crd = (group: unknown, spec: Record<string, unknown> = {}) => ({
  metadata: { name: `widgets.${String(group)}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'widgets', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true }],
    ...spec,
  },
});

describe('gateway: the resources cached for tenants and for failover', () => {
  it('takes built-in resources by kubectl name; --tenant-cache only namespaced ones', () => {
    expect(parseTenantCache('pods, deployments.apps,pods')).to.deep.equal([
      { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true },
      { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true },
    ]);
    expect(parseTenantCache('')).to.deep.equal([]);
    expect(() => parseTenantCache('namespaces')).to.throw('--tenant-cache: namespaces is cluster-scoped');
    expect(() => parseTenantCache('widgets.example.com')).to.throw('is not a built-in resource');
    expect(parseFailoverResources('namespaces,customresourcedefinitions.apiextensions.k8s.io')).to.deep.equal([
      { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false },
      {
        group: 'apiextensions.k8s.io',
        version: 'v1',
        resource: 'customresourcedefinitions',
        kind: 'CustomResourceDefinition',
        namespaced: false,
      },
    ]);
  });

  const cases: [string, unknown, ReturnType<typeof tenantCustomResource>][] = [
    [
      'a tenant CRD: its group, plural, kind and scope',
      crd('ab12cd-example.com'),
      { group: 'ab12cd-example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true },
    ],
    [
      'cluster-scoped',
      crd('ab12cd-example.com', { scope: 'Cluster' }),
      { group: 'ab12cd-example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: false },
    ],
    [
      'at its storage version, whatever the order of versions',
      crd('ab12cd-example.com', {
        versions: [
          { name: 'v2', served: true, storage: false },
          { name: 'v1beta1', served: true, storage: true },
        ],
      }),
      { group: 'ab12cd-example.com', version: 'v1beta1', resource: 'widgets', kind: 'Widget', namespaced: true },
    ],
    ["an admin's CRD: no tenant prefix", crd('example.com'), undefined],
    ['a prefix that is no tenant id (not six lowercase letters or digits)', crd('AB12CD-example.com'), undefined],
    ['a prefix of five', crd('ab12c-example.com'), undefined],
    ['the bare prefix', crd('ab12cd-'), undefined],
    ['no group', crd(undefined), undefined],
    ['no versions', crd('ab12cd-example.com', { versions: [] }), undefined],
    ['no names', crd('ab12cd-example.com', { names: undefined }), undefined],
    ['not an object', 'widgets', undefined],
  ];
  for (const [title, object, expected] of cases)
    it(`custom resources for failover: ${title}`, () => {
      expect(tenantCustomResource(object)).to.deep.equal(expected);
    });
});
