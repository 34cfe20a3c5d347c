import { expect } from 'chai';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { placeTenant } from '../../tenants/placement.js';
import { validateTenant, validateTenantName } from '../../tenants/tenant-resource.js';
import type { UpstreamCluster } from '../../clusters/upstream-clusters.js';
import type { ClusterTaint, ClusterToleration } from '../../clusters/tolerations.js';

const client = new RestClient(new URL('https://127.0.0.1:1'), { ca: '', cert: '', key: '' });
interface ClusterShape {
  labels?: Record<string, string>;
  ready?: 'True' | 'False' | 'Unknown' | 'absent';
  taints?: ClusterTaint[];
  region?: string;
}
const cluster = (
  name: string,
  { labels = {}, ready = 'True', taints, region }: ClusterShape = {},
): UpstreamCluster => ({
  name,
  labels,
  client,
  cluster: {
    apiVersion: 'cluster.karmada.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name, labels },
    spec: { syncMode: 'Push', ...(taints ? { taints } : {}), ...(region ? { region } : {}) },
    status: ready === 'absent' ? {} : { conditions: [{ type: 'Ready', status: ready, reason: '', message: '' }] },
  },
});
const clusters = [
  cluster('member1', { labels: { region: 'eu' } }),
  cluster('member2', { labels: { region: 'us' } }),
  cluster('member3', { labels: { region: 'eu' } }),
];
const names = (list: readonly UpstreamCluster[]) => list.map((c) => c.name);

describe('tenants: placement and validation', () => {
  after(() => client.close());

  it('places a tenant on the least loaded cluster its affinity allows, by name on a tie', () => {
    expect(placeTenant(clusters, undefined, new Map())!.name).to.equal('member1');
    expect(
      placeTenant(
        clusters,
        undefined,
        new Map([
          ['member1', 2],
          ['member2', 1],
        ]),
      )!.name,
    ).to.equal('member3');
    expect(
      placeTenant(
        clusters,
        { clusterAffinity: { clusterNames: ['member2', 'member3'] } },
        new Map([
          ['member3', 0],
          ['member2', 4],
        ]),
      )!.name,
    ).to.equal('member3');
    expect(
      placeTenant(
        clusters,
        { clusterAffinity: { labelSelector: { matchLabels: { region: 'us' } } } },
        new Map([['member2', 9]]),
      )!.name,
    ).to.equal('member2');
    expect(
      placeTenant(
        clusters,
        {
          clusterAffinity: { labelSelector: { matchExpressions: [{ key: 'region', operator: 'In', values: ['eu'] }] } },
        },
        new Map([['member1', 1]]),
      )!.name,
    ).to.equal('member3');
    expect(placeTenant(clusters, { clusterAffinity: { clusterNames: ['nowhere'] } }, new Map())).to.equal(undefined);
  });

  it("takes Karmada's whole ClusterAffinity: exclude beats names, fields select by region", () => {
    const located = [cluster('member1', { region: 'eu-west' }), cluster('member2', { region: 'us-east' })];
    expect(
      placeTenant(
        located,
        { clusterAffinity: { clusterNames: ['member1', 'member2'], exclude: ['member1'] } },
        new Map(),
      ),
    ).to.include({ name: 'member2' });
    expect(
      placeTenant(
        located,
        {
          clusterAffinity: {
            fieldSelector: { matchExpressions: [{ key: 'region', operator: 'In', values: ['eu-west'] }] },
          },
        },
        new Map([['member1', 5]]),
      ),
    ).to.include({ name: 'member1' });
  });

  it('only places on a Ready cluster: not False, Unknown or never probed', () => {
    const mixed = [
      cluster('member1', { ready: 'False' }),
      cluster('member2', { ready: 'Unknown' }),
      cluster('member3', { ready: 'absent' }),
      cluster('member4'),
    ];
    expect(placeTenant(mixed, undefined, new Map([['member4', 100]]))).to.include({ name: 'member4' });
    expect(placeTenant(mixed.slice(0, 3), undefined, new Map())).to.equal(undefined);
  });

  it('keeps off a cluster whose NoSchedule or NoExecute taint the tenant does not tolerate; PreferNoSchedule only steers', () => {
    const tainted = [
      cluster('member1', { taints: [{ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' }] }),
      cluster('member2', { taints: [{ key: 'maintenance', value: 'true', effect: 'NoExecute' }] }),
      cluster('member3', { taints: [{ key: 'spot', effect: 'PreferNoSchedule' }] }),
    ];
    const fits = (clusterTolerations: ClusterToleration[]) =>
      names(tainted.filter((c) => placeTenant([c], { clusterTolerations }, new Map()) !== undefined));
    expect(fits([])).to.deep.equal(['member3']);
    expect(fits([{ key: 'maintenance', operator: 'Equal', value: 'true' }])).to.deep.equal(['member2', 'member3']);
    expect(fits([{ key: 'maintenance', operator: 'Equal', value: 'false' }])).to.deep.equal(['member3']);
    expect(fits([{ key: 'cluster.karmada.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }])).to.deep.equal([
      'member1',
      'member3',
    ]);
    expect(fits([{ operator: 'Exists' }])).to.deep.equal(['member1', 'member2', 'member3']);
  });

  it('avoids the clusters given (those the tenant is being evicted from), whatever their load', () => {
    expect(placeTenant(clusters, undefined, new Map([['member3', 7]]), new Set(['member1', 'member2']))).to.include({
      name: 'member3',
    });
    expect(placeTenant(clusters, undefined, new Map(), new Set(['member1', 'member2', 'member3']))).to.equal(undefined);
  });

  it('accepts exactly six lowercase letters or digits as a tenant id', () => {
    for (const good of ['foofoo', 'ab12cd', '000000']) expect(validateTenantName(good, false)).to.deep.equal([]);
    for (const bad of ['', 'abc', 'abcdefg', 'ABCDEF', 'ab-12c', 'ab.12c', 'äbcdef'])
      expect(validateTenantName(bad, false)).to.have.length(1);
    expect(validateTenantName('a', true)).to.deep.equal([]);
    expect(validateTenantName('ab', true)).to.have.length(1);
  });

  it('validates the spec fields with their field paths', () => {
    const causes = validateTenant({
      metadata: { name: 'foofoo' },
      spec: {
        id: -1,
        clusterTolerations: [{ operator: 'Maybe', effect: 'Sometimes' }],
        failover: { purgeMode: 'Later' },
        clusterAffinity: { clusterNames: [1] },
      },
    });
    expect(causes.map((c) => c.field)).to.deep.equal([
      'spec.id',
      'spec.clusterAffinity.clusterNames',
      'spec.clusterTolerations[0].operator',
      'spec.clusterTolerations[0].operator',
      'spec.clusterTolerations[0].effect',
      'spec.failover.purgeMode',
    ]);
    expect(
      validateTenant({
        metadata: { name: 'foofoo' },
        spec: {
          clusterTolerations: [
            { operator: 'Equal', value: 'x' },
            { key: 'k', operator: 'Exists', value: 'v' },
            { key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 60 },
            { key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 1.5 },
            { operator: 'Exists', effect: 'NoExecute', tolerationSeconds: -1 },
          ],
        },
      }).map((c) => `${c.field}: ${c.message}`),
      "kube's toleration rules",
    ).to.deep.equal([
      'spec.clusterTolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
      'spec.clusterTolerations[1].operator: Invalid value: "Exists": value must be empty when `operator` is \'Exists\'',
      'spec.clusterTolerations[2].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set',
      'spec.clusterTolerations[3].tolerationSeconds: Invalid value: 1.5: must be a whole number of seconds',
    ]);
    expect(
      validateTenant({
        metadata: { name: 'foofoo' },
        spec: {
          failover: { purgeMode: 'Gracefully' },
          clusterTolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute' }],
        },
      }),
    ).to.deep.equal([]);
  });
});
