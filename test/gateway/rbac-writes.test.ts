import { expect } from 'chai';
import {
  isSeen,
  PendingRbacWrites,
  rbacWritesOf,
  UNKNOWN_WRITE_MS,
  type RbacResource,
  type RbacWrite,
  type RbacWriteWitness,
} from '../../gateway/auth/rbac-writes.js';

/** Informers as a table: each resource's resourceVersion seen, and the uid held under each key. */
function witness(seen: Partial<Record<RbacResource, string>>, held: Record<string, string> = {}): RbacWriteWitness {
  return {
    lastSyncResourceVersion: (resource) => seen[resource] ?? '',
    uidOf: (resource, key) => held[`${resource} ${key}`],
  };
}

describe('gateway: RBAC writes through this replica, pending until the informers see them', () => {
  describe('rbacWritesOf: what an upstream answer reports', () => {
    const cases: [string, unknown, (RbacWrite | undefined)[]][] = [
      [
        'an object written: its resourceVersion',
        { kind: 'RoleBinding', metadata: { name: 'b', resourceVersion: '42' } },
        [{ resource: 'rolebindings', resourceVersion: '42' }],
      ],
      [
        "a deletion's Status: the uid removed, under the key",
        { kind: 'Status', status: 'Success', details: { name: 'b', kind: 'rolebindings', uid: 'u-1' } },
        [{ resource: 'rolebindings', key: 'ns/b', deletedUid: 'u-1' }],
      ],
      ['a Status naming no uid: nothing to wait for', { kind: 'Status', status: 'Success' }, [undefined]],
      [
        "a collection's deletion: each item removed, by its own key",
        {
          kind: 'RoleBindingList',
          items: [
            { metadata: { namespace: 'ns', name: 'x', uid: 'u-x' } },
            { metadata: { name: 'y', uid: 'u-y' } },
            { metadata: { namespace: 'ns', name: 'z' } },
          ],
        },
        [
          { resource: 'rolebindings', key: 'ns/x', deletedUid: 'u-x' },
          { resource: 'rolebindings', key: 'y', deletedUid: 'u-y' },
          undefined,
        ],
      ],
      ['an object without a resourceVersion', { kind: 'RoleBinding', metadata: { name: 'b' } }, [undefined]],
      ['no JSON at all', undefined, [undefined]],
    ];
    for (const [title, answer, writes] of cases)
      it(title, () => expect(rbacWritesOf('rolebindings', 'ns/b', answer as never)).to.deep.equal(writes));
  });

  describe('isSeen', () => {
    const written: RbacWrite = { resource: 'clusterroles', resourceVersion: '100' };
    const deleted: RbacWrite = { resource: 'roles', key: 'ns/r', deletedUid: 'u-1' };
    const cases: [string, RbacWrite, RbacWriteWitness, boolean][] = [
      ['a write the informer has not reached', written, witness({ clusterroles: '99' }), false],
      ['a write the informer has reached', written, witness({ clusterroles: '100' }), true],
      ['a write the informer has passed', written, witness({ clusterroles: '1000' }), true],
      ["another resource's progress says nothing of it", written, witness({ roles: '1000' }), false],
      ['an informer that has not listed', written, witness({}), false],
      ['a deletion whose object the informer still holds', deleted, witness({}, { 'roles ns/r': 'u-1' }), false],
      ['a deletion whose object is gone', deleted, witness({}), true],
      ['a deletion whose name holds an object made since', deleted, witness({}, { 'roles ns/r': 'u-2' }), true],
    ];
    for (const [title, write, seen, expected] of cases) it(title, () => expect(isSeen(write, seen)).to.equal(expected));
  });

  describe('PendingRbacWrites', () => {
    it('holds a tenant until every write of its is seen, by resource, and then forgets it', () => {
      const pending = new PendingRbacWrites();
      pending.add('aaaaaa', [
        { resource: 'rolebindings', resourceVersion: '10' },
        { resource: 'clusterroles', resourceVersion: '20' },
      ]);
      const behind = witness({ rolebindings: '10', clusterroles: '19' });
      expect(pending.allSeen('aaaaaa', behind, 'rolebindings'), 'its RoleBindings are seen').to.equal(true);
      expect(pending.allSeen('aaaaaa', behind, 'clusterroles')).to.equal(false);
      expect(pending.allSeen('aaaaaa', behind), 'of every resource').to.equal(false);
      expect(pending.allSeen('bbbbbb', behind), 'another tenant wrote nothing').to.equal(true);
      expect(pending.size).to.equal(1);
      expect(pending.allSeen('aaaaaa', witness({ rolebindings: '10', clusterroles: '20' }))).to.equal(true);
      expect(pending.size).to.equal(0);
    });

    it('holds a write whose answer named nothing to wait for, of every resource, for a while', () => {
      let now = 1_000;
      const pending = new PendingRbacWrites(() => now);
      pending.add('aaaaaa', [undefined]);
      const all = witness({ roles: '9', rolebindings: '9', clusterroles: '9', clusterrolebindings: '9' });
      expect(pending.allSeen('aaaaaa', all, 'roles')).to.equal(false);
      now += UNKNOWN_WRITE_MS - 1;
      expect(pending.allSeen('aaaaaa', all, 'clusterroles')).to.equal(false);
      now += 1;
      expect(pending.allSeen('aaaaaa', all, 'roles')).to.equal(true);
      expect(pending.size).to.equal(0);
    });
  });
});
