import { expect } from 'chai';
import { RbacIndex } from '../../apiserver/authorization/rbac-index.js';

const binding = (namespace: string, name: string, role = name) => ({
  metadata: { namespace, name },
  roleRef: { kind: 'Role', name: role },
  subjects: [{ kind: 'User', name: 'alice' }],
});
const names = (objects: Iterable<any>) => [...objects].map((object) => object.metadata.name);
const rule = (verb: string) => ({ verbs: [verb], apiGroups: [''], resources: ['pods'] });

describe('RBAC index', () => {
  it('holds RoleBindings by namespace, in the order first put, an update keeping its place', () => {
    const index = new RbacIndex();
    index.set('/rb/a/one', 'roleBindings', binding('a', 'one'));
    index.set('/rb/b/two', 'roleBindings', binding('b', 'two'));
    index.set('/rb/a/three', 'roleBindings', binding('a', 'three'));
    index.set('/rb/a/one', 'roleBindings', binding('a', 'one', 'changed'));
    expect(names(index.roleBindings('a'))).to.deep.equal(['one', 'three']);
    expect([...index.roleBindings('a')][0].roleRef.name).to.equal('changed');
    expect(names(index.roleBindings('b'))).to.deep.equal(['two']);
    expect(names(index.roleBindings('c'))).to.deep.equal([]);
    expect(names(index.roleBindings(''))).to.deep.equal([]);
  });

  it('a delete by key removes the object from its namespace, and an unknown key changes nothing', () => {
    const index = new RbacIndex();
    index.set('/rb/a/one', 'roleBindings', binding('a', 'one'));
    index.set('/r/a/one', 'roles', { metadata: { namespace: 'a', name: 'one' }, rules: [] });
    index.delete('/rb/a/one');
    index.delete('/nothing');
    expect(names(index.roleBindings('a'))).to.deep.equal([]);
    expect(index.role('a', 'one')).to.not.equal(undefined);
    index.delete('/r/a/one');
    expect(index.role('a', 'one')).to.equal(undefined);
  });

  it('an object whose namespace changes under the same key moves to its new namespace', () => {
    const index = new RbacIndex();
    index.set('k', 'roleBindings', binding('a', 'one'));
    index.set('k', 'roleBindings', binding('b', 'one'));
    expect(names(index.roleBindings('a'))).to.deep.equal([]);
    expect(names(index.roleBindings('b'))).to.deep.equal(['one']);
  });

  it("finds Roles by namespace and name, never another namespace's of the same name", () => {
    const index = RbacIndex.of({
      roles: [{ metadata: { namespace: 'a', name: 'r' }, rules: [rule('get')] }],
      roleBindings: [],
      clusterRoles: [],
      clusterRoleBindings: [],
    });
    expect(index.role('a', 'r').rules).to.deep.equal([rule('get')]);
    expect(index.role('b', 'r')).to.equal(undefined);
    expect(index.role('', 'r')).to.equal(undefined);
  });

  it('of plain lists: the first object of a repeated name is the one found, and every binding is kept', () => {
    const index = RbacIndex.of({
      roles: [
        { metadata: { namespace: 'a', name: 'r' }, rules: [rule('get')] },
        { metadata: { namespace: 'a', name: 'r' }, rules: [rule('list')] },
      ],
      roleBindings: [binding('a', 'same'), binding('a', 'same')],
      clusterRoles: [
        { metadata: { name: 'c' }, rules: [rule('get')] },
        { metadata: { name: 'c' }, rules: [rule('list')] },
      ],
      clusterRoleBindings: [{ metadata: { name: 'x' } }, { metadata: { name: 'x' } }],
    });
    expect(index.role('a', 'r').rules).to.deep.equal([rule('get')]);
    expect(index.clusterRoleRules('c')).to.deep.equal([rule('get')]);
    expect(names(index.roleBindings('a'))).to.deep.equal(['same', 'same']);
    expect(names(index.clusterRoleBindings())).to.deep.equal(['x', 'x']);
  });

  it("an aggregated ClusterRole's rules follow every change of the ClusterRoles it selects", () => {
    const index = new RbacIndex();
    index.set('combined', 'clusterRoles', {
      metadata: { name: 'combined' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { part: 'yes' } }] },
    });
    const part = (verb: string) => ({ metadata: { name: 'part', labels: { part: 'yes' } }, rules: [rule(verb)] });
    expect(index.clusterRoleRules('combined')).to.deep.equal([]);
    index.set('part', 'clusterRoles', part('get'));
    expect(index.clusterRoleRules('combined')).to.deep.equal([rule('get')]);
    index.set('part', 'clusterRoles', part('list'));
    expect(index.clusterRoleRules('combined')).to.deep.equal([rule('list')]);
    index.delete('part');
    expect(index.clusterRoleRules('combined')).to.deep.equal([]);
    expect(index.clusterRoleRules('part')).to.equal(undefined);
  });

  it('clear empties every kind', () => {
    const index = new RbacIndex();
    index.set('rb', 'roleBindings', binding('a', 'one'));
    index.set('crb', 'clusterRoleBindings', { metadata: { name: 'x' } });
    index.set('cr', 'clusterRoles', { metadata: { name: 'c' }, rules: [] });
    index.set('r', 'roles', { metadata: { namespace: 'a', name: 'r' } });
    index.clear();
    expect(names(index.roleBindings('a'))).to.deep.equal([]);
    expect(names(index.clusterRoleBindings())).to.deep.equal([]);
    expect(index.clusterRoleRules('c')).to.equal(undefined);
    expect(index.role('a', 'r')).to.equal(undefined);
    index.set('rb', 'roleBindings', binding('a', 'again'));
    expect(names(index.roleBindings('a'))).to.deep.equal(['again']);
  });
});
