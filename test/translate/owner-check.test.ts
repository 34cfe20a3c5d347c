import { expect } from 'chai';
import { tenantContext, TranslationError } from '../../translate/context.js';
import {
  blockingOwnerReferences,
  isNamedOwner,
  newlyBlocking,
  ownerPlace,
  ownerReferenceRefused,
  type OwnerReference,
  type OwnerResource,
} from '../../translate/owner-check.js';
import { kindScope } from '../support/kind-scope.js';

const A = tenantContext('aaaaaa', kindScope());
const P = A.prefix;

const ref = (fields: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name: 'owner',
  uid: 'u-1',
  blockOwnerDeletion: true,
  ...fields,
});
const withRefs = (...ownerReferences: unknown[]) => ({ metadata: { name: 'x', ownerReferences } });

describe('translate: owner references that block must name the tenant\u2019s own objects', () => {
  it('only references that set blockOwnerDeletion are judged', () => {
    const blocking = ref();
    const cases: [unknown[], OwnerReference[]][] = [
      [[blocking], [blocking]],
      [[ref({ blockOwnerDeletion: false })], []],
      [[{ ...ref(), blockOwnerDeletion: undefined }], []],
      [[ref({ uid: 'u-2' }), { ...ref(), uid: 7 }, 'junk', null], [ref({ uid: 'u-2' })]],
    ];
    for (const [refs, want] of cases)
      expect(blockingOwnerReferences(withRefs(...refs)), JSON.stringify(refs)).to.deep.equal(want);
    expect(blockingOwnerReferences({ metadata: {} })).to.deep.equal([]);
    expect(blockingOwnerReferences({})).to.deep.equal([]);
  });

  it('a reference already blocking on the stored object (by uid) is not new; one made blocking now is', () => {
    const [one, two] = [ref({ uid: 'u-1' }), ref({ uid: 'u-2' })];
    const cases: [string, unknown, OwnerReference[]][] = [
      ['create: everything is new', undefined, [one, two]],
      ['both stored blocking', withRefs(one, two), []],
      ['one stored blocking', withRefs(two), [one]],
      ['stored, not blocking then', withRefs(ref({ uid: 'u-1', blockOwnerDeletion: false }), two), [one]],
      ['stored under another name, same uid', withRefs(ref({ uid: 'u-1', name: 'renamed' }), two), []],
    ];
    for (const [what, stored, want] of cases)
      expect(newlyBlocking([one, two], stored as never), what).to.deep.equal(want);
  });

  it("places the owner where the tenant's would be, or nowhere", () => {
    const configMaps: OwnerResource = { resource: 'configmaps', namespaced: true };
    const clusterRoles: OwnerResource = { resource: 'clusterroles', namespaced: false };
    const nodes: OwnerResource = { resource: 'nodes', namespaced: false };
    const namespaces: OwnerResource = { resource: 'namespaces', namespaced: false };
    const rbac = 'rbac.authorization.k8s.io/v1';
    const cases: [string, OwnerReference, string, OwnerResource | undefined, unknown][] = [
      [
        "namespaced: in the dependent's namespace, upstream",
        ref(),
        'default',
        configMaps,
        { group: '', version: 'v1', resource: 'configmaps', namespace: `${P}default`, name: 'owner' },
      ],
      ['a namespaced owner of a cluster-scoped dependent', ref(), '', configMaps, null],
      ['a kind the cluster does not serve', ref({ kind: 'Nothing' }), 'default', undefined, null],
      [
        "cluster-scoped under the tenant's prefix",
        ref({ apiVersion: rbac, kind: 'ClusterRole', name: `${P}reader` }),
        'default',
        clusterRoles,
        {
          group: 'rbac.authorization.k8s.io',
          version: 'v1',
          resource: 'clusterroles',
          namespace: '',
          name: `${P}reader`,
        },
      ],
      [
        'cluster-scoped, another tenant\u2019s name',
        ref({ apiVersion: rbac, kind: 'ClusterRole', name: 'bbbbbb-reader' }),
        'default',
        clusterRoles,
        null,
      ],
      [
        'cluster-scoped, the cluster\u2019s own',
        ref({ apiVersion: rbac, kind: 'ClusterRole', name: 'admin' }),
        '',
        clusterRoles,
        null,
      ],
      ['a kind every tenant shares', ref({ kind: 'Node', name: `${P}node` }), 'default', nodes, null],
      [
        "the tenant's namespace",
        ref({ kind: 'Namespace', name: `${P}dev` }),
        'default',
        namespaces,
        { group: '', version: 'v1', resource: 'namespaces', namespace: '', name: `${P}dev` },
      ],
      [
        "a custom kind of the tenant's group",
        ref({ apiVersion: `${P}example.com/v1`, kind: 'Widget', name: `${P}w` }),
        '',
        { resource: 'widgets', namespaced: false },
        { group: `${P}example.com`, version: 'v1', resource: 'widgets', namespace: '', name: `${P}w` },
      ],
      [
        'a custom kind of another tenant\u2019s group',
        ref({ apiVersion: 'bbbbbb-example.com/v1', kind: 'Widget', name: `${P}w` }),
        '',
        { resource: 'widgets', namespaced: false },
        null,
      ],
    ];
    for (const [what, owner, namespace, resource, want] of cases)
      expect(ownerPlace(A, owner, namespace, resource), what).to.deep.equal(want);
  });

  it('the object found is the owner only with the uid the reference names', () => {
    expect(isNamedOwner(ref(), { metadata: { uid: 'u-1' } })).to.equal(true);
    expect(isNamedOwner(ref(), { metadata: { uid: 'u-2' } })).to.equal(false);
    expect(isNamedOwner(ref(), undefined)).to.equal(false);
  });

  it("refuses with kube's shape of a forbidden write", () => {
    const refused = ownerReferenceRefused({ group: '', kind: 'ConfigMap', name: 'hostage' }, ref());
    expect(refused).to.be.instanceOf(TranslationError);
    expect(refused).to.include({ code: 403, reason: 'Forbidden' });
    expect(refused.message).to.equal(
      'ConfigMap "hostage" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to an object that is not the tenant\'s (ConfigMap with uid u-1)',
    );
    expect(refused.details).to.deep.equal({ name: 'hostage', group: '', kind: 'ConfigMap' });
  });
});
