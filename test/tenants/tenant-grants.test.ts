import { expect } from 'chai';
import { desiredGrants } from '../../tenants/tenant-grants.js';

const binding = (name: string, subjects: Record<string, string>[]) => ({
  metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'aaaaaa:view' },
  subjects,
});
const alice = { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'aaaaaa-alice' };

describe("tenants: the grants of a tenant's dormant bindings", () => {
  it('grants the tenant-view binding in each namespace, to the real role under the prefix', () => {
    const grants = desiredGrants('aaaaaa', [binding('aaaaaa-readers', [alice])], ['aaaaaa-dev']);
    expect([...grants.keys()]).to.deep.equal(['aaaaaa-dev/paddock:readers']);
    expect(grants.get('aaaaaa-dev/paddock:readers')).to.deep.include({
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'aaaaaa-view' },
      subjects: [alice],
    });
  });

  it('takes a name that is the bare prefix for no binding of the tenant, as its view of names does', () => {
    // `aaaaaa-` (a valid RBAC name) reads as no name in the tenant's view, so it is not the tenant's binding.
    expect([...desiredGrants('aaaaaa', [binding('aaaaaa-', [alice])], ['aaaaaa-dev']).keys()]).to.deep.equal([]);
  });

  it("adds the namespace's ServiceAccounts for the tenant's own system:serviceaccounts group", () => {
    const group = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'aaaaaa-system:serviceaccounts' };
    const grants = desiredGrants('aaaaaa', [binding('aaaaaa-bots', [group])], ['aaaaaa-dev']);
    expect(grants.get('aaaaaa-dev/paddock:bots')?.subjects).to.deep.equal([
      group,
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:serviceaccounts:aaaaaa-dev' },
    ]);
  });
});
