import { expect } from 'chai';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { placeTenant } from '../../tenants/placement.js';
import { validateTenant, validateTenantName } from '../../tenants/tenant-resource.js';
import type { UpstreamCluster } from '../../tenants/upstream-clusters.js';

const client = new RestClient(new URL('https://127.0.0.1:1'), { ca: '', cert: '', key: '' });
const cluster = (name: string, labels: Record<string, string> = {}): UpstreamCluster => ({ name, labels, client });
const clusters = [
  cluster('member1', { region: 'eu' }),
  cluster('member2', { region: 'us' }),
  cluster('member3', { region: 'eu' }),
];

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
        { clusterNames: ['member2', 'member3'] },
        new Map([
          ['member3', 0],
          ['member2', 4],
        ]),
      )!.name,
    ).to.equal('member3');
    expect(
      placeTenant(clusters, { labelSelector: { matchLabels: { region: 'us' } } }, new Map([['member2', 9]]))!.name,
    ).to.equal('member2');
    expect(
      placeTenant(
        clusters,
        { labelSelector: { matchExpressions: [{ key: 'region', operator: 'In', values: ['eu'] }] } },
        new Map([['member1', 1]]),
      )!.name,
    ).to.equal('member3');
    expect(placeTenant(clusters, { clusterNames: ['nowhere'] }, new Map())).to.equal(undefined);
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
      'spec.clusterTolerations[0].effect',
      'spec.failover.purgeMode',
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
