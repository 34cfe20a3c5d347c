/**
 * Karmada's ClusterMatches against Karmada's own tables (pkg/util/selector_test.go:
 * TestClusterMatches, Test_matchZones, Test_extractClusterFields), replayed case by case.
 */
import { expect } from 'chai';
import {
  clusterFields,
  clusterMatches,
  zonesMatch,
  type AffinityCluster,
  type ClusterAffinity,
  type FieldSelectorRequirement,
} from '../../clusters/cluster-affinity.js';

const cluster: AffinityCluster = {
  metadata: { name: 'cluster1', labels: { foo: 'bar' } },
  spec: { zones: ['zone1', 'zone2', 'zone3'], region: 'region1', provider: 'provider1' },
};
const zones = cluster.spec!.zones!;
const fields = (...matchExpressions: FieldSelectorRequirement[]) => ({ matchExpressions });
const labels = (matchLabels: Record<string, string>) => ({ matchLabels });

describe('clusters: ClusterAffinity matching (Karmada ClusterMatches)', () => {
  const cases: [string, ClusterAffinity, boolean][] = [
    ['test cluster excluded and names', { exclude: ['cluster1'], clusterNames: ['cluster1'] }, false],
    [
      'test cluster excluded and label selector',
      { exclude: ['cluster1'], labelSelector: labels({ foo: 'bar' }) },
      false,
    ],
    [
      'test cluster excluded and field selector',
      { exclude: ['cluster1'], fieldSelector: fields({ key: 'zone', operator: 'In', values: zones }) },
      false,
    ],
    ['test cluster names', { clusterNames: ['cluster1'] }, true],
    ['test cluster names not matched', { clusterNames: ['cluster2'] }, false],
    [
      'test cluster names and label selector',
      { labelSelector: labels({ foo: 'bar' }), clusterNames: ['cluster1'] },
      true,
    ],
    [
      'test cluster names and label selector not matched',
      { labelSelector: labels({ foo: 'unmatched' }), clusterNames: ['cluster1'] },
      false,
    ],
    [
      'test cluster names and field selector(zone & region)',
      {
        clusterNames: ['cluster1'],
        fieldSelector: fields(
          { key: 'zone', operator: 'In', values: zones },
          { key: 'region', operator: 'In', values: ['region1'] },
        ),
      },
      true,
    ],
    [
      'test cluster names and field selector(provider)',
      { clusterNames: ['cluster1'], fieldSelector: fields({ key: 'provider', operator: 'In', values: ['provider1'] }) },
      true,
    ],
    [
      'test cluster names and field selector(region)',
      { clusterNames: ['cluster1'], fieldSelector: fields({ key: 'region', operator: 'In', values: ['region1'] }) },
      true,
    ],
    [
      'test cluster names and field selector(zone not in)',
      { clusterNames: ['cluster1'], fieldSelector: fields({ key: 'zone', operator: 'NotIn', values: zones }) },
      false,
    ],
    [
      'test cluster names and field selector(provider not in)',
      {
        clusterNames: ['cluster1'],
        fieldSelector: fields({ key: 'provider', operator: 'NotIn', values: ['provider1'] }),
      },
      false,
    ],
    [
      'test cluster names and field selector(region not in)',
      { clusterNames: ['cluster1'], fieldSelector: fields({ key: 'region', operator: 'NotIn', values: ['region1'] }) },
      false,
    ],
    [
      'test label selector and field selector(zone)',
      { labelSelector: labels({ foo: 'bar' }), fieldSelector: fields({ key: 'zone', operator: 'In', values: zones }) },
      true,
    ],
    [
      'test label selector and field selector(provider)',
      {
        labelSelector: labels({ foo: 'bar' }),
        fieldSelector: fields({ key: 'provider', operator: 'In', values: ['provider1'] }),
      },
      true,
    ],
    [
      'test label selector and field selector(region)',
      {
        labelSelector: labels({ foo: 'bar' }),
        fieldSelector: fields({ key: 'region', operator: 'In', values: ['region1'] }),
      },
      true,
    ],
    [
      'test label selector and field selector(zone not in)',
      {
        labelSelector: labels({ foo: 'bar' }),
        fieldSelector: fields({ key: 'zone', operator: 'NotIn', values: zones }),
      },
      false,
    ],
    [
      'test label selector and field selector(provider not in)',
      {
        labelSelector: labels({ foo: 'bar' }),
        fieldSelector: fields({ key: 'provider', operator: 'NotIn', values: ['provider1'] }),
      },
      false,
    ],
    [
      'test label selector and field selector(region not in)',
      {
        labelSelector: labels({ foo: 'bar' }),
        fieldSelector: fields({ key: 'region', operator: 'NotIn', values: ['region1'] }),
      },
      false,
    ],
    ['test label selector', { labelSelector: labels({ foo: 'bar' }) }, true],
    ['test label selector not matched', { labelSelector: labels({ foo: 'unmatched' }) }, false],
    ['test empty cluster affinity matched', {}, true],
    ['test label selector error', { labelSelector: labels({ '': 'bar' }) }, false],
    ['test field selector error', { fieldSelector: fields({ key: '', operator: '' }) }, false],
    [
      'test field selector zone matched',
      { fieldSelector: fields({ key: 'zone', operator: 'In', values: zones }) },
      true,
    ],
    [
      'test field selector zone partially matched',
      { clusterNames: ['cluster1'], fieldSelector: fields({ key: 'zone', operator: 'NotIn', values: zones }) },
      false,
    ],
    [
      'test field selector zone not matched',
      { clusterNames: ['cluster1'], fieldSelector: fields({ key: 'zone', operator: 'In', values: ['zone2'] }) },
      true,
    ],
    [
      'test field selector region matched',
      { fieldSelector: fields({ key: 'region', operator: 'In', values: ['region1'] }) },
      true,
    ],
    [
      'test field selector region not matched (NotIn)',
      { clusterNames: ['cluster1'], fieldSelector: fields({ key: 'region', operator: 'NotIn', values: ['region1'] }) },
      false,
    ],
    [
      'test field selector region not matched (In another)',
      { clusterNames: ['cluster1'], fieldSelector: fields({ key: 'region', operator: 'In', values: ['region2'] }) },
      false,
    ],
    [
      'test field selector provider matched',
      { fieldSelector: fields({ key: 'provider', operator: 'In', values: ['provider1'] }) },
      true,
    ],
    [
      'test field selector provider not matched (NotIn)',
      { fieldSelector: fields({ key: 'provider', operator: 'NotIn', values: ['provider1'] }) },
      false,
    ],
    [
      'test field selector provider not matched (In another)',
      { fieldSelector: fields({ key: 'provider', operator: 'In', values: ['provider2'] }) },
      false,
    ],
    [
      'test field selector other key not matched',
      { fieldSelector: fields({ key: 'metadata.name', operator: 'In', values: ['cluster1'] }) },
      false,
    ],
    [
      'test field selector cluster names and label selector',
      {
        fieldSelector: fields({ key: 'zone', operator: 'In', values: zones }),
        labelSelector: labels({ foo: 'bar' }),
        clusterNames: ['cluster1'],
      },
      true,
    ],
    [
      'test field selector cluster names and label selector not matched (names)',
      {
        fieldSelector: fields({ key: 'zone', operator: 'In', values: zones }),
        labelSelector: labels({ foo: 'bar' }),
        clusterNames: ['cluster2'],
      },
      false,
    ],
    [
      'test field selector cluster names and label selector not matched (zones)',
      {
        fieldSelector: fields({ key: 'zone', operator: 'NotIn', values: zones }),
        labelSelector: labels({ foo: 'bar' }),
        clusterNames: ['cluster1'],
      },
      false,
    ],
    [
      'test field selector cluster names and label selector not matched (labels)',
      {
        fieldSelector: fields({ key: 'zone', operator: 'In', values: zones }),
        labelSelector: labels({ foo: 'Unmatched' }),
        clusterNames: ['cluster1'],
      },
      false,
    ],
  ];
  for (const [title, affinity, want] of cases) {
    it(`TestClusterMatches: ${title} → ${want}`, () => {
      expect(clusterMatches(cluster, affinity)).to.equal(want);
    });
  }

  describe('beyond the table', () => {
    const bare: AffinityCluster = { metadata: { name: 'bare' } };
    it('NotIn on a provider or region the cluster does not set matches (the field is absent, not empty)', () => {
      expect(clusterMatches(bare, { fieldSelector: fields({ key: 'region', operator: 'NotIn', values: ['x'] }) })).to.be
        .true;
      expect(clusterMatches(bare, { fieldSelector: fields({ key: 'provider', operator: 'In', values: [''] }) })).to.be
        .false;
    });
    it('an empty labelSelector {} matches every cluster, an empty fieldSelector too', () => {
      expect(clusterMatches(bare, { labelSelector: {} })).to.be.true;
      expect(clusterMatches(bare, { fieldSelector: {} })).to.be.true;
    });
    it('Gt and Lt compare provider/region as integers, as the node selector conversion does', () => {
      const numbered: AffinityCluster = { metadata: { name: 'n' }, spec: { region: '7' } };
      expect(clusterMatches(numbered, { fieldSelector: fields({ key: 'region', operator: 'Gt', values: ['5'] }) })).to
        .be.true;
      expect(clusterMatches(numbered, { fieldSelector: fields({ key: 'region', operator: 'Lt', values: ['5'] }) })).to
        .be.false;
      expect(
        clusterMatches(numbered, { fieldSelector: fields({ key: 'region', operator: 'Gt', values: ['5,region'] }) }),
      ).to.be.false;
    });
    it('the deprecated spec.zone is not read: zones decide', () => {
      const single: AffinityCluster = { metadata: { name: 's' }, spec: { zone: 'z1' } };
      expect(clusterMatches(single, { fieldSelector: fields({ key: 'zone', operator: 'In', values: ['z1'] }) })).to.be
        .false;
    });
  });

  describe('Test_matchZones', () => {
    const cases: [string, FieldSelectorRequirement, string[], boolean][] = [
      ['empty zones for In operator', { key: 'zone', operator: 'In', values: ['foo'] }, [], false],
      ['overlapping zones for In operator', { key: 'zone', operator: 'In', values: ['foo'] }, ['foo', 'bar'], true],
      ['all zones for In operator', { key: 'zone', operator: 'In', values: ['foo', 'bar'] }, ['foo', 'bar'], true],
      ['empty zones for NotIn operator', { key: 'zone', operator: 'NotIn', values: ['foo'] }, [], true],
      ['partial zones for NotIn operator', { key: 'zone', operator: 'NotIn', values: ['foo'] }, ['foo', 'bar'], false],
      ['empty zones for Exists operator', { key: 'zone', operator: 'Exists' }, [], false],
      ['empty zones for DoesNotExist operator', { key: 'zone', operator: 'DoesNotExist' }, [], true],
      ['unknown operator', { key: 'zone', operator: 'Gt' }, ['foo'], false],
    ];
    for (const [title, requirement, clusterZones, want] of cases) {
      it(`${title} → ${want}`, () => expect(zonesMatch(requirement, clusterZones)).to.equal(want));
    }
  });

  describe('Test_extractClusterFields', () => {
    const cases: [string, AffinityCluster['spec'], Record<string, string>][] = [
      ['empty', {}, {}],
      ['provider is set', { provider: 'foo' }, { provider: 'foo' }],
      ['region is set', { region: 'foo' }, { region: 'foo' }],
      ['all are set', { provider: 'foo', region: 'bar' }, { provider: 'foo', region: 'bar' }],
    ];
    for (const [title, spec, want] of cases) {
      it(title, () => expect(clusterFields({ metadata: { name: 'c' }, spec })).to.deep.equal(want));
    }
  });
});
