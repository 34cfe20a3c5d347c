import { expect } from 'chai';
import { namespaceTenantId } from '../../translate/context.js';
import type { OwnerReference, OwnerResource } from '../../translate/owner-check.js';
import {
  collectorOwnerPlace,
  dropOwnerReferencesPatch,
  unresolvedOwnerReferences,
  type OwnerReferenceLookup,
} from '../../translate/owner-reference-heal.js';

const NS = 'bbbbbb-default';
const configMaps: OwnerResource = { resource: 'configmaps', namespaced: true };
const clusterRoles: OwnerResource = { resource: 'clusterroles', namespaced: false };

const ref = (fields: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name: 'owner',
  uid: 'u-1',
  blockOwnerDeletion: true,
  ...fields,
});
const object = (namespace: string | undefined, name = 'owner', uid = 'u-1') => ({
  metadata: { name, uid, ...(namespace === undefined ? {} : { namespace }) },
});

describe('translate: owner references the gateway drops from a dependent the cluster reported', () => {
  it('knows a tenant namespace by its prefix', () => {
    const cases: [string, string | undefined][] = [
      ['bbbbbb-default', 'bbbbbb'],
      ['bbbbbb-a-b', 'bbbbbb'],
      ['default', undefined],
      ['-x', undefined],
      ['bbbbbb-', undefined],
    ];
    for (const [namespace, want] of cases) expect(namespaceTenantId(namespace), namespace).to.equal(want);
  });

  it('looks where the collector looks: the dependent’s namespace for a namespaced kind, the cluster scope otherwise', () => {
    expect(collectorOwnerPlace(ref(), NS, configMaps)).to.deep.equal({
      group: '',
      version: 'v1',
      resource: 'configmaps',
      namespace: NS,
      name: 'owner',
    });
    expect(
      collectorOwnerPlace(ref({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' }), NS, clusterRoles),
    ).to.deep.equal({
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      resource: 'clusterroles',
      namespace: '',
      name: 'owner',
    });
    expect(collectorOwnerPlace(ref({ apiVersion: 'nope.io/v1', kind: 'Nope' }), NS, undefined)).to.equal(null);
  });

  it('drops each reference whose owner is not there with its name and uid, keeps the rest', () => {
    const found = (resource: OwnerResource | undefined, at: unknown): OwnerReferenceLookup => ({
      resource,
      found: at as never,
    });
    const cases: [string, OwnerReference, OwnerReferenceLookup | undefined, boolean][] = [
      ['the owner in the namespace, same uid', ref(), found(configMaps, object(NS)), false],
      [
        'a non-blocking reference to an owner there',
        ref({ blockOwnerDeletion: false }),
        found(configMaps, object(NS)),
        false,
      ],
      ['nothing of that name in the namespace (another tenant’s uid)', ref(), found(configMaps, undefined), true],
      ['another object of that name there (uid differs)', ref(), found(configMaps, object(NS, 'owner', 'u-2')), true],
      ['an answer from another namespace', ref(), found(configMaps, object('aaaaaa-default')), true],
      ['an answer under another name', ref(), found(configMaps, object(NS, 'other')), true],
      ['a non-blocking reference to nothing', ref({ blockOwnerDeletion: false }), found(configMaps, undefined), true],
      ['a kind the cluster does not serve', ref({ kind: 'Nope' }), found(undefined, undefined), true],
      [
        'a cluster-scoped owner there',
        ref({ kind: 'ClusterRole', apiVersion: 'rbac.authorization.k8s.io/v1' }),
        found(clusterRoles, object(undefined)),
        false,
      ],
      [
        'a cluster-scoped kind naming a namespaced object’s uid',
        ref({ kind: 'ClusterRole', apiVersion: 'rbac.authorization.k8s.io/v1' }),
        found(clusterRoles, undefined),
        true,
      ],
      ['an answer without metadata', ref(), found(configMaps, { kind: 'ConfigMap' }), true],
    ];
    for (const [what, reference, lookup, dropped] of cases)
      expect(unresolvedOwnerReferences([reference], NS, [lookup]), what).to.deep.equal(dropped ? [0] : []);
  });

  it('judges each reference by its own lookup, and leaves entries that are no reference alone', () => {
    const refs = [ref({ uid: 'mine' }), 'junk', ref({ uid: 'theirs' }), { ...ref(), uid: 7 }, ref({ uid: 'gone' })];
    const lookups: (OwnerReferenceLookup | undefined)[] = [
      { resource: configMaps, found: object(NS, 'owner', 'mine') },
      undefined,
      { resource: configMaps, found: undefined },
      undefined,
      { resource: configMaps, found: object(NS, 'owner', 'new') },
    ];
    expect(unresolvedOwnerReferences(refs, NS, lookups)).to.deep.equal([2, 4]);
  });

  it('patches only the version read, and writes back the references kept as they were', () => {
    const mine = ref({ uid: 'mine', controller: true } as Partial<OwnerReference>);
    const theirs = ref({ uid: 'theirs' });
    const dependent = { metadata: { name: 'd', resourceVersion: '42', ownerReferences: [mine, theirs] } };
    const cases: [string, number[], unknown][] = [
      ['one of two', [1], { op: 'replace', path: '/metadata/ownerReferences', value: [mine] }],
      ['the first of two', [0], { op: 'replace', path: '/metadata/ownerReferences', value: [theirs] }],
      ['all', [0, 1], { op: 'remove', path: '/metadata/ownerReferences' }],
    ];
    for (const [what, drop, change] of cases)
      expect(dropOwnerReferencesPatch(dependent, drop), what).to.deep.equal([
        { op: 'test', path: '/metadata/resourceVersion', value: '42' },
        change,
      ]);
  });
});
