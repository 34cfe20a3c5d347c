import { expect } from 'chai';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { movingTo } from '../../tenants/tenant-space-clusters.js';

function tenant(status: Record<string, unknown>): ApiObject {
  return { apiVersion: 'tenant.kubezoo.io/v1alpha1', kind: 'Tenant', metadata: { name: 'abc123' }, status };
}

describe('tenants: the clusters a move is making a tenant space on (movingTo), which placement counts', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['placed, no move', { cluster: 'member1', spaceClusters: ['member1'] }, []],
    [
      'a move recorded its target, not switched yet',
      { cluster: 'member1', spaceClusters: ['member1', 'member2'], evictionTasks: [{ fromCluster: 'member1' }] },
      ['member2'],
    ],
    [
      'switched, the old cluster not purged yet',
      { cluster: 'member2', spaceClusters: ['member1', 'member2'], evictionTasks: [{ fromCluster: 'member1' }] },
      [],
    ],
    [
      'a tenant made before the record: its cluster and the clusters its tasks left',
      { cluster: 'member2', evictionTasks: [{ fromCluster: 'member1' }] },
      [],
    ],
    ['being placed: recorded before its cluster is written', { spaceClusters: ['member3'] }, ['member3']],
  ];
  for (const [title, status, expected] of cases)
    it(title, () => expect(movingTo(tenant(status))).to.deep.equal(expected));
});
