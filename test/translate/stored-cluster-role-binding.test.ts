/**
 * Where a tenant's ClusterRoleBinding requests go upstream: the RoleBindings of its
 * `<tid>-kube-system` they are stored as (translate/kinds/stored-cluster-role-binding.ts).
 */
import { expect } from 'chai';
import { tenantPrefix } from '../../translate/context.js';
import {
  storedBindingBodyUp,
  storedBindingDown,
  storedBindingsAnswerDown,
  storedBindingsPathUp,
  storedBindingUp,
} from '../../translate/kinds/stored-cluster-role-binding.js';

const A = tenantPrefix('aaaaaa');
const CRBS = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings';
const STORED = '/apis/rbac.authorization.k8s.io/v1/namespaces/aaaaaa-kube-system/rolebindings';
const OWN = 'labelSelector=kubezoo.io%2Fcluster-role-binding-of%3Daaaaaa';

describe('translate: where stored ClusterRoleBindings are asked for upstream', () => {
  const cases: [string, string, string | undefined][] = [
    ['another resource', '/api/v1/namespaces/aaaaaa-default/pods', undefined],
    ['a path that only starts alike', `${CRBS}x`, undefined],
    ['the collection: the tenant’s own by label', CRBS, `${STORED}?${OWN}`],
    [
      'a label selector keeps its terms',
      `${CRBS}?labelSelector=team%3Dx`,
      `${STORED}?labelSelector=team%3Dx%2C${OWN.split('=').slice(1).join('=')}`,
    ],
    ['one by name', `${CRBS}/aaaaaa-admins`, `${STORED}/paddock.clusterrolebinding%3Aadmins`],
    [
      'a name of no tenant’s form names no stored binding',
      `${CRBS}/other`,
      `${STORED}/paddock.clusterrolebinding%3A%2F`,
    ],
    // A malformed escape is kept as sent, as kube's router keeps it: the request is answered, not thrown.
    ['a malformed escape in the name', `${CRBS}/aaaaaa-%ZZ`, `${STORED}/paddock.clusterrolebinding%3A%25ZZ`],
  ];
  for (const [title, path, expected] of cases)
    it(title, () => {
      expect(storedBindingsPathUp(A, path)).to.equal(expected);
    });
});

/** The collection's path upstream with a field selector (as written, unescaped), and the tenant's label. */
const withFields = (fields: string) =>
  `${STORED}?${new URLSearchParams({ fieldSelector: fields, labelSelector: 'kubezoo.io/cluster-role-binding-of=aaaaaa' }).toString()}`;

describe('translate: field selectors on stored ClusterRoleBindings', () => {
  // The conversion (request.ts) made names upstream (`aaaaaa-x`) and the namespace "" `aaaaaa-`.
  const cases: [string, string, string][] = [
    ['a name: the stored one', 'metadata.name=aaaaaa-admins', 'metadata.name=paddock.clusterrolebinding:admins'],
    ['a name excluded', 'metadata.name!=aaaaaa-admins', 'metadata.name!=paddock.clusterrolebinding:admins'],
    ['a name with ==', 'metadata.name==aaaaaa-admins', 'metadata.name==paddock.clusterrolebinding:admins'],
    [
      'a name of no tenant form matches no stored binding',
      'metadata.name=other',
      'metadata.name=paddock.clusterrolebinding:/',
    ],
    ['the namespace "": the storing one', 'metadata.namespace=aaaaaa-', 'metadata.namespace=aaaaaa-kube-system'],
    ['not the namespace "": none', 'metadata.namespace!=aaaaaa-', 'metadata.namespace!=aaaaaa-kube-system'],
    ['any other namespace: one no object is in', 'metadata.namespace=other', 'metadata.namespace=other/'],
    [
      'an escaped comma and equals stay escaped, in one term',
      'metadata.name=aaaaaa-a\\,b\\=c',
      'metadata.name=paddock.clusterrolebinding:a\\,b\\=c',
    ],
    [
      'every term of several; other fields as they are',
      'roleRef.name=aaaaaa-view,metadata.name=aaaaaa-x',
      'roleRef.name=aaaaaa-view,metadata.name=paddock.clusterrolebinding:x',
    ],
  ];
  for (const [title, fields, stored] of cases)
    it(title, () => {
      expect(storedBindingsPathUp(A, `${CRBS}?${new URLSearchParams({ fieldSelector: fields }).toString()}`)).to.equal(
        withFields(stored),
      );
    });
});

describe('translate: a ClusterRoleBinding and the RoleBinding it is stored as', () => {
  const binding = () => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'aaaaaa-admins', labels: { team: 'x' }, resourceVersion: '7' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'aaaaaa:admin' },
    subjects: [{ kind: 'User', name: 'aaaaaa-alice' }],
  });
  const stored = () => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: {
      name: 'paddock.clusterrolebinding:admins',
      namespace: 'aaaaaa-kube-system',
      labels: { team: 'x', 'kubezoo.io/cluster-role-binding-of': 'aaaaaa' },
      resourceVersion: '7',
    },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'aaaaaa:admin' },
    subjects: [{ kind: 'User', name: 'aaaaaa-alice' }],
  });

  it('up: a RoleBinding in the tenant’s kube-system, named and labelled as stored; the binding sent is not changed', () => {
    const sent = binding();
    expect(storedBindingUp(A, sent)).to.deep.equal(stored());
    expect(sent).to.deep.equal(binding());
  });

  it('up: generateName is stored too', () => {
    const made = storedBindingUp(A, { kind: 'ClusterRoleBinding', metadata: { generateName: 'aaaaaa-gen-' } });
    expect(made.metadata.generateName).to.equal('paddock.clusterrolebinding:gen-');
  });

  it('down: the ClusterRoleBinding again, without a namespace (the label is the conversion’s to hide)', () => {
    const down = storedBindingDown(A, stored());
    expect(down).to.deep.equal({
      ...binding(),
      metadata: { ...binding().metadata, labels: { team: 'x', 'kubezoo.io/cluster-role-binding-of': 'aaaaaa' } },
    });
  });

  const none: [string, Record<string, unknown>][] = [
    ['a RoleBinding of no stored name', { ...stored(), metadata: { ...stored().metadata, name: 'paddock:admins' } }],
    [
      'a stored name in another namespace (another tenant’s kube-system)',
      { ...stored(), metadata: { ...stored().metadata, namespace: 'bbbbbb-kube-system' } },
    ],
  ];
  for (const [title, object] of none)
    it(`down: none for ${title}`, () => expect(storedBindingDown(A, object)).to.equal(null));

  it('down: an object without a name (a bookmark) only changes its kind', () => {
    expect(storedBindingDown(A, { kind: 'RoleBinding', metadata: { resourceVersion: '9' } })).to.deep.equal({
      kind: 'ClusterRoleBinding',
      metadata: { resourceVersion: '9' },
    });
  });
});

describe('translate: bodies sent to stored ClusterRoleBindings', () => {
  const cases: [string, unknown, unknown][] = [
    [
      'a JSON patch: a name it sets is the stored one, other operations as they are',
      [
        { op: 'replace', path: '/metadata/name', value: 'aaaaaa-x' },
        { op: 'add', path: '/subjects/-', value: { kind: 'User', name: 'aaaaaa-bob' } },
      ],
      [
        { op: 'replace', path: '/metadata/name', value: 'paddock.clusterrolebinding:x' },
        { op: 'add', path: '/subjects/-', value: { kind: 'User', name: 'aaaaaa-bob' } },
      ],
    ],
    [
      'a merge patch: its name only, no namespace added',
      { metadata: { name: 'aaaaaa-x', labels: { a: 'b' } } },
      { metadata: { name: 'paddock.clusterrolebinding:x', labels: { a: 'b' } } },
    ],
    ['a merge patch without a name: as it is', { subjects: [] }, { subjects: [] }],
    [
      'DeleteOptions: as they are',
      { kind: 'DeleteOptions', propagationPolicy: 'Background' },
      { kind: 'DeleteOptions', propagationPolicy: 'Background' },
    ],
    [
      'a whole binding: stored',
      { kind: 'ClusterRoleBinding', metadata: { name: 'aaaaaa-x' } },
      {
        kind: 'RoleBinding',
        metadata: {
          name: 'paddock.clusterrolebinding:x',
          namespace: 'aaaaaa-kube-system',
          labels: { 'kubezoo.io/cluster-role-binding-of': 'aaaaaa' },
        },
      },
    ],
  ];
  for (const [title, body, expected] of cases)
    it(title, () => expect(storedBindingBodyUp(A, body)).to.deep.equal(expected));
});

describe('translate: answers of stored ClusterRoleBindings', () => {
  it('a Status names the ClusterRoleBinding, in its message, details and causes', () => {
    const status = {
      kind: 'Status',
      status: 'Failure',
      reason: 'AlreadyExists',
      message: 'rolebindings.rbac.authorization.k8s.io "paddock.clusterrolebinding:x" already exists',
      details: {
        name: 'paddock.clusterrolebinding:x',
        group: 'rbac.authorization.k8s.io',
        kind: 'rolebindings',
        causes: [{ message: 'RoleBinding.rbac.authorization.k8s.io "paddock.clusterrolebinding:x" is invalid' }],
      },
    };
    expect(storedBindingsAnswerDown(A, status)).to.deep.equal({
      ...status,
      message: 'clusterrolebindings.rbac.authorization.k8s.io "aaaaaa-x" already exists',
      details: {
        name: 'aaaaaa-x',
        group: 'rbac.authorization.k8s.io',
        kind: 'clusterrolebindings',
        causes: [{ message: 'ClusterRoleBinding.rbac.authorization.k8s.io "aaaaaa-x" is invalid' }],
      },
    });
  });

  it('a list keeps only the tenant’s stored bindings (never a grant beside them)', () => {
    const list = storedBindingsAnswerDown(A, {
      kind: 'RoleBindingList',
      items: [
        { metadata: { name: 'paddock.clusterrolebinding:x', namespace: 'aaaaaa-kube-system' } },
        { metadata: { name: 'paddock:x', namespace: 'aaaaaa-kube-system' } },
      ],
    });
    expect(list).to.deep.equal({ kind: 'ClusterRoleBindingList', items: [{ metadata: { name: 'aaaaaa-x' } }] });
  });

  it('a watch event of no stored binding is dropped; one of a stored binding is converted', () => {
    expect(
      storedBindingsAnswerDown(A, {
        type: 'ADDED',
        object: { kind: 'RoleBinding', metadata: { name: 'paddock:x', namespace: 'aaaaaa-kube-system' } },
      }),
    ).to.equal(null);
    expect(
      storedBindingsAnswerDown(A, {
        type: 'DELETED',
        object: {
          kind: 'RoleBinding',
          metadata: { name: 'paddock.clusterrolebinding:x', namespace: 'aaaaaa-kube-system' },
        },
      }),
    ).to.deep.equal({ type: 'DELETED', object: { kind: 'ClusterRoleBinding', metadata: { name: 'aaaaaa-x' } } });
  });
});
