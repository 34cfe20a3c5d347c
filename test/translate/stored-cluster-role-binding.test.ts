/**
 * Where a tenant's ClusterRoleBinding requests go upstream: the RoleBindings of its
 * `<tid>-kube-system` they are stored as (translate/kinds/stored-cluster-role-binding.ts).
 */
import { expect } from 'chai';
import { tenantPrefix } from '../../translate/context.js';
import { storedBindingsPathUp } from '../../translate/kinds/stored-cluster-role-binding.js';

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
