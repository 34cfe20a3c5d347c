import { expect } from 'chai';
import { TenantsPerCluster } from '../../tenants/tenants-per-cluster.js';

describe('tenants: the count of tenants per cluster that placement spreads by', () => {
  const cases: { name: string; steps: (t: TenantsPerCluster) => void; load: Record<string, number> }[] = [
    { name: 'nothing placed', steps: () => {}, load: {} },
    {
      name: 'placements count per cluster',
      steps: (t) => ['a', 'b', 'c'].forEach((tenant, i) => t.set(tenant, i < 2 ? 'member1' : 'member2')),
      load: { member1: 2, member2: 1 },
    },
    {
      name: 'a tenant placed again on the same cluster counts once',
      steps: (t) => (t.set('a', 'member1'), t.set('a', 'member1')),
      load: { member1: 1 },
    },
    {
      name: 'a tenant moved counts on its new cluster only; an emptied cluster is gone',
      steps: (t) => (t.set('a', 'member1'), t.set('a', 'member2')),
      load: { member2: 1 },
    },
    {
      name: 'a deleted tenant counts nowhere; deleting an unknown one changes nothing',
      steps: (t) => (t.set('a', 'member1'), t.set('b', 'member1'), t.delete('a'), t.delete('zzz')),
      load: { member1: 1 },
    },
    {
      name: 'clear forgets everything',
      steps: (t) => (t.set('a', 'member1'), t.clear()),
      load: {},
    },
  ];
  for (const { name, steps, load } of cases)
    it(name, () => {
      const tenants = new TenantsPerCluster();
      steps(tenants);
      expect(Object.fromEntries(tenants.load)).to.deep.equal(load);
    });

  it('answers where a tenant is', () => {
    const tenants = new TenantsPerCluster();
    tenants.set('a', 'member1');
    tenants.set('a', 'member2');
    expect(tenants.get('a')).to.equal('member2');
    tenants.delete('a');
    expect(tenants.get('a')).to.equal(undefined);
  });
});
