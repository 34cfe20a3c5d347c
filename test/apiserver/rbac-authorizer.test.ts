import { expect } from 'chai';
import type { Attributes, UserInfo } from '../../apiserver/authorization/attributes.js';
import {
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  BOOTSTRAP_CLUSTER_ROLES,
} from '../../apiserver/authorization/bootstrap-policy.js';
import {
  aggregatedRules,
  forbiddenMessage,
  matchingSubjectIndex,
  RbacAuthorizer,
  ruleAllows,
  type PolicyRule,
  type RbacObjects,
  type RbacObjectSource,
  type Subject,
} from '../../apiserver/authorization/rbac-authorizer.js';
import { RbacIndex } from '../../apiserver/authorization/rbac-index.js';

// Tables ported from kubernetes plugin/pkg/auth/authorizer/rbac/rbac_test.go,
// pkg/registry/rbac/validation/rule_test.go, the clusterrole-aggregation controller's test and
// k8s.io/apiserver's responsewriters/errors_test.go; messages are kube-apiserver's.

function objects(partial: Partial<RbacObjects>): RbacObjects {
  return { roles: [], roleBindings: [], clusterRoles: [], clusterRoleBindings: [], ...partial };
}

function authorizerFor(partial: Partial<RbacObjects>): RbacAuthorizer {
  const fixed = RbacIndex.of(objects(partial));
  return new RbacAuthorizer(() => fixed);
}

/** rbac_test.go's newRule: each comma-separated field split as strings.Split does ("" is [""]). */
function splitRule(verbs: string, apiGroups: string, resources: string, nonResourceURLs: string): PolicyRule {
  return {
    verbs: verbs.split(','),
    apiGroups: apiGroups.split(','),
    resources: resources.split(','),
    nonResourceURLs: nonResourceURLs.split(','),
  };
}

function clusterRole(name: string, ...rules: PolicyRule[]) {
  return { metadata: { name }, rules };
}

function role(namespace: string, name: string, ...rules: PolicyRule[]) {
  return { metadata: { namespace, name }, rules };
}

/** "Kind:name" subjects, as rbac_test.go writes them; Users and Groups carry the RBAC API group. */
function subjects(specs: string[]): Subject[] {
  return specs.map((spec) => {
    const [kind, name] = [spec.slice(0, spec.indexOf(':')), spec.slice(spec.indexOf(':') + 1)];
    return kind === 'ServiceAccount' ? { kind, name } : { kind, apiGroup: 'rbac.authorization.k8s.io', name };
  });
}

function clusterRoleBinding(roleName: string, ...subjectSpecs: string[]) {
  return {
    metadata: { name: roleName },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
    subjects: subjects(subjectSpecs),
  };
}

function roleBinding(namespace: string, roleKind: 'Role' | 'ClusterRole', roleName: string, ...subjectSpecs: string[]) {
  return {
    metadata: { namespace, name: roleName },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName },
    subjects: subjects(subjectSpecs),
  };
}

function resourceRequest(user: UserInfo, verb: string, fields: Partial<Attributes> = {}): Attributes {
  return {
    user,
    verb,
    isResourceRequest: true,
    namespace: '',
    apiGroup: '',
    resource: '',
    subresource: '',
    name: '',
    path: '',
    ...fields,
  };
}

function nonResourceRequest(user: UserInfo, verb: string, path: string): Attributes {
  return {
    user,
    verb,
    isResourceRequest: false,
    namespace: '',
    apiGroup: '',
    resource: '',
    subresource: '',
    name: '',
    path,
  };
}

/** rbac_test.go's defaultAttributes: groups split on commas, no name. */
function defaultAttributes(
  user: string,
  groups: string,
  verb: string,
  resource: string,
  subresource: string,
  namespace: string,
  apiGroup: string,
): Attributes {
  return resourceRequest({ name: user, groups: groups.split(',') }, verb, {
    resource,
    subresource,
    namespace,
    apiGroup,
  });
}

const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };

function describeRequest(attributes: Attributes): string {
  const { user, verb, namespace, apiGroup, resource, subresource, name, path } = attributes;
  const target = attributes.isResourceRequest
    ? `${apiGroup}/${resource}${subresource ? `/${subresource}` : ''}${name ? ` ${name}` : ''} in ${JSON.stringify(namespace)}`
    : path;
  return `${user.name} [${user.groups.join(',')}] ${verb} ${target}`;
}

describe('RBAC authorizer', () => {
  describe('TestAuthorizer', () => {
    const cases: { name: string; objects: Partial<RbacObjects>; shouldPass: Attributes[]; shouldFail: Attributes[] }[] =
      [
        {
          name: 'a RoleBinding to a ClusterRole grants in its namespace only',
          objects: {
            clusterRoles: [clusterRole('admin', splitRule('*', '*', '*', '*'))],
            roleBindings: [roleBinding('ns1', 'ClusterRole', 'admin', 'User:admin', 'Group:admins')],
          },
          shouldPass: [
            defaultAttributes('admin', '', 'get', 'Pods', '', 'ns1', ''),
            defaultAttributes('admin', '', 'watch', 'Pods', '', 'ns1', ''),
            defaultAttributes('admin', 'group1', 'watch', 'Foobar', '', 'ns1', ''),
            defaultAttributes('joe', 'admins', 'watch', 'Foobar', '', 'ns1', ''),
            defaultAttributes('joe', 'group1,admins', 'watch', 'Foobar', '', 'ns1', ''),
          ],
          shouldFail: [
            defaultAttributes('admin', '', 'GET', 'Pods', '', 'ns2', ''),
            defaultAttributes('admin', '', 'GET', 'Nodes', '', '', ''),
            defaultAttributes('admin', 'admins', 'GET', 'Pods', '', 'ns2', ''),
            defaultAttributes('admin', 'admins', 'GET', 'Nodes', '', '', ''),
          ],
        },
        {
          name: 'non-resource URLs, exact and prefixed',
          objects: {
            clusterRoles: [
              clusterRole('non-resource-url-getter', splitRule('get', '', '', '/apis')),
              clusterRole('non-resource-url', splitRule('*', '', '', '/apis')),
              clusterRole('non-resource-url-prefix', splitRule('get', '', '', '/apis/*')),
            ],
            clusterRoleBindings: [
              clusterRoleBinding('non-resource-url-getter', 'User:foo', 'Group:bar'),
              clusterRoleBinding('non-resource-url', 'User:admin', 'Group:admin'),
              clusterRoleBinding('non-resource-url-prefix', 'User:prefixed', 'Group:prefixed'),
            ],
          },
          shouldPass: [
            nonResourceRequest({ name: 'foo', groups: [] }, 'get', '/apis'),
            nonResourceRequest({ name: '', groups: ['bar'] }, 'get', '/apis'),
            nonResourceRequest({ name: 'admin', groups: [] }, 'get', '/apis'),
            nonResourceRequest({ name: '', groups: ['admin'] }, 'get', '/apis'),
            nonResourceRequest({ name: 'admin', groups: [] }, 'watch', '/apis'),
            nonResourceRequest({ name: '', groups: ['admin'] }, 'watch', '/apis'),
            nonResourceRequest({ name: 'prefixed', groups: [] }, 'get', '/apis/v1'),
            nonResourceRequest({ name: '', groups: ['prefixed'] }, 'get', '/apis/v1'),
            nonResourceRequest({ name: 'prefixed', groups: [] }, 'get', '/apis/v1/foobar'),
            nonResourceRequest({ name: '', groups: ['prefixed'] }, 'get', '/apis/v1/foorbar'),
          ],
          shouldFail: [
            // wrong verb
            nonResourceRequest({ name: 'foo', groups: [] }, 'watch', '/apis'),
            nonResourceRequest({ name: '', groups: ['bar'] }, 'watch', '/apis'),
            // wrong path
            nonResourceRequest({ name: 'foo', groups: [] }, 'get', '/api/v1'),
            nonResourceRequest({ name: '', groups: ['bar'] }, 'get', '/api/v1'),
            nonResourceRequest({ name: 'admin', groups: [] }, 'get', '/api/v1'),
            nonResourceRequest({ name: '', groups: ['admin'] }, 'get', '/api/v1'),
            // not covered by the prefix
            nonResourceRequest({ name: 'prefixed', groups: [] }, 'get', '/api/v1'),
            nonResourceRequest({ name: '', groups: ['prefixed'] }, 'get', '/api/v1'),
          ],
        },
        {
          name: 'a resource does not grant its subresources',
          objects: {
            clusterRoles: [clusterRole('admin', splitRule('*', '*', 'pods', '*'))],
            roleBindings: [roleBinding('ns1', 'ClusterRole', 'admin', 'User:admin', 'Group:admins')],
          },
          shouldPass: [defaultAttributes('admin', '', 'get', 'pods', '', 'ns1', '')],
          shouldFail: [defaultAttributes('admin', '', 'get', 'pods', 'status', 'ns1', '')],
        },
        {
          name: 'a subresource does not grant its resource',
          objects: {
            clusterRoles: [clusterRole('admin', splitRule('*', '*', 'pods/status', '*'))],
            roleBindings: [roleBinding('ns1', 'ClusterRole', 'admin', 'User:admin', 'Group:admins')],
          },
          shouldPass: [defaultAttributes('admin', '', 'get', 'pods', 'status', 'ns1', '')],
          shouldFail: [defaultAttributes('admin', '', 'get', 'pods', '', 'ns1', '')],
        },
      ];
    for (const { name, objects: partial, shouldPass, shouldFail } of cases) {
      describe(name, () => {
        const authorizer = authorizerFor(partial);
        for (const attributes of shouldPass) {
          it(`allows ${describeRequest(attributes)}`, () =>
            expect(authorizer.authorize(attributes).allowed).to.equal(true));
        }
        for (const attributes of shouldFail) {
          it(`denies ${describeRequest(attributes)}`, () =>
            expect(authorizer.authorize(attributes).allowed).to.equal(false));
        }
      });
    }
  });

  describe('TestRuleMatches', () => {
    const anyone: UserInfo = { name: '', groups: [] };
    const resource = (verb: string, apiGroup: string, resourceName: string, subresource = '') =>
      resourceRequest(anyone, verb, { apiGroup, resource: resourceName, subresource });
    const url = (verb: string, path: string) => nonResourceRequest(anyone, verb, path);
    const cases: { name: string; rule: PolicyRule; expected: [Attributes, boolean][] }[] = [
      {
        name: 'star verb, exact match other',
        rule: { verbs: ['*'], apiGroups: ['group1'], resources: ['resource1'] },
        expected: [
          [resource('verb1', 'group1', 'resource1'), true],
          [resource('verb1', 'group2', 'resource1'), false],
          [resource('verb1', 'group1', 'resource2'), false],
          [resource('verb1', 'group2', 'resource2'), false],
          [resource('verb2', 'group1', 'resource1'), true],
          [resource('verb2', 'group2', 'resource1'), false],
          [resource('verb2', 'group1', 'resource2'), false],
          [resource('verb2', 'group2', 'resource2'), false],
        ],
      },
      {
        name: 'star group, exact match other',
        rule: { verbs: ['verb1'], apiGroups: ['*'], resources: ['resource1'] },
        expected: [
          [resource('verb1', 'group1', 'resource1'), true],
          [resource('verb1', 'group2', 'resource1'), true],
          [resource('verb1', 'group1', 'resource2'), false],
          [resource('verb1', 'group2', 'resource2'), false],
          [resource('verb2', 'group1', 'resource1'), false],
          [resource('verb2', 'group2', 'resource1'), false],
          [resource('verb2', 'group1', 'resource2'), false],
          [resource('verb2', 'group2', 'resource2'), false],
        ],
      },
      {
        name: 'star resource, exact match other',
        rule: { verbs: ['verb1'], apiGroups: ['group1'], resources: ['*'] },
        expected: [
          [resource('verb1', 'group1', 'resource1'), true],
          [resource('verb1', 'group2', 'resource1'), false],
          [resource('verb1', 'group1', 'resource2'), true],
          [resource('verb1', 'group2', 'resource2'), false],
          [resource('verb2', 'group1', 'resource1'), false],
          [resource('verb2', 'group2', 'resource1'), false],
          [resource('verb2', 'group1', 'resource2'), false],
          [resource('verb2', 'group2', 'resource2'), false],
        ],
      },
      {
        name: 'tuple expansion',
        rule: { verbs: ['verb1', 'verb2'], apiGroups: ['group1', 'group2'], resources: ['resource1', 'resource2'] },
        expected: [
          [resource('verb1', 'group1', 'resource1'), true],
          [resource('verb1', 'group2', 'resource1'), true],
          [resource('verb1', 'group1', 'resource2'), true],
          [resource('verb1', 'group2', 'resource2'), true],
          [resource('verb2', 'group1', 'resource1'), true],
          [resource('verb2', 'group2', 'resource1'), true],
          [resource('verb2', 'group1', 'resource2'), true],
          [resource('verb2', 'group2', 'resource2'), true],
        ],
      },
      {
        name: 'subresource expansion',
        rule: { verbs: ['*'], apiGroups: ['*'], resources: ['resource1/subresource1'] },
        expected: [
          [resource('verb1', 'group1', 'resource1', 'subresource1'), true],
          [resource('verb1', 'group2', 'resource1', 'subresource2'), false],
          [resource('verb1', 'group1', 'resource2', 'subresource1'), false],
          [resource('verb1', 'group2', 'resource2', 'subresource1'), false],
          [resource('verb2', 'group1', 'resource1', 'subresource1'), true],
          [resource('verb2', 'group2', 'resource1', 'subresource2'), false],
          [resource('verb2', 'group1', 'resource2', 'subresource1'), false],
          [resource('verb2', 'group2', 'resource2', 'subresource1'), false],
        ],
      },
      {
        name: 'star nonresource, exact match other',
        rule: { verbs: ['verb1'], nonResourceURLs: ['*'] },
        expected: [
          [url('verb1', '/foo'), true],
          [url('verb1', '/foo/bar'), true],
          [url('verb1', '/foo/baz'), true],
          [url('verb1', '/foo/bar/one'), true],
          [url('verb1', '/foo/baz/one'), true],
          [url('verb2', '/foo'), false],
          [url('verb2', '/foo/bar'), false],
          [url('verb2', '/foo/baz'), false],
          [url('verb2', '/foo/bar/one'), false],
          [url('verb2', '/foo/baz/one'), false],
        ],
      },
      {
        name: 'star nonresource subpath',
        rule: { verbs: ['verb1'], nonResourceURLs: ['/foo/*'] },
        expected: [
          [url('verb1', '/foo'), false],
          [url('verb1', '/foo/bar'), true],
          [url('verb1', '/foo/baz'), true],
          [url('verb1', '/foo/bar/one'), true],
          [url('verb1', '/foo/baz/one'), true],
          [url('verb1', '/notfoo'), false],
          [url('verb1', '/notfoo/bar'), false],
          [url('verb1', '/notfoo/baz'), false],
          [url('verb1', '/notfoo/bar/one'), false],
          [url('verb1', '/notfoo/baz/one'), false],
        ],
      },
      {
        name: 'star verb, exact nonresource',
        rule: { verbs: ['*'], nonResourceURLs: ['/foo', '/foo/bar/one'] },
        expected: [
          [url('verb1', '/foo'), true],
          [url('verb1', '/foo/bar'), false],
          [url('verb1', '/foo/baz'), false],
          [url('verb1', '/foo/bar/one'), true],
          [url('verb1', '/foo/baz/one'), false],
          [url('verb2', '/foo'), true],
          [url('verb2', '/foo/bar'), false],
          [url('verb2', '/foo/baz'), false],
          [url('verb2', '/foo/bar/one'), true],
          [url('verb2', '/foo/baz/one'), false],
        ],
      },
    ];
    for (const { name, rule, expected } of cases) {
      describe(name, () => {
        for (const [attributes, allowed] of expected) {
          it(`${allowed ? 'allows' : 'denies'} ${describeRequest(attributes)}`, () =>
            expect(ruleAllows(attributes, rule)).to.equal(allowed));
        }
      });
    }
  });

  describe('rule forms beyond the ported tables', () => {
    const rule = (fields: PolicyRule) => ({ verbs: ['*'], apiGroups: ['*'], ...fields });
    const cases: { name: string; rule: PolicyRule; attributes: Attributes; allowed: boolean }[] = [
      {
        name: '*/scale covers any resource’s scale',
        rule: rule({ resources: ['*/scale'] }),
        attributes: resourceRequest(alice, 'update', {
          apiGroup: 'apps',
          resource: 'deployments',
          subresource: 'scale',
        }),
        allowed: true,
      },
      {
        name: '*/scale does not cover the resource itself',
        rule: rule({ resources: ['*/scale'] }),
        attributes: resourceRequest(alice, 'update', { apiGroup: 'apps', resource: 'deployments' }),
        allowed: false,
      },
      {
        name: '*/scale does not cover another subresource',
        rule: rule({ resources: ['*/scale'] }),
        attributes: resourceRequest(alice, 'get', { resource: 'pods', subresource: 'status' }),
        allowed: false,
      },
      {
        name: 'pods/log covers the log',
        rule: rule({ resources: ['pods/log'] }),
        attributes: resourceRequest(alice, 'get', { resource: 'pods', subresource: 'log', name: 'web' }),
        allowed: true,
      },
      // kube deliberately has no resource/* wildcard (kubernetes/enhancements#4961).
      {
        name: 'pods/* is not a wildcard for pods/log',
        rule: rule({ resources: ['pods/*'] }),
        attributes: resourceRequest(alice, 'get', { resource: 'pods', subresource: 'log' }),
        allowed: false,
      },
      {
        name: 'pods/* is not a wildcard for pods',
        rule: rule({ resources: ['pods/*'] }),
        attributes: resourceRequest(alice, 'get', { resource: 'pods' }),
        allowed: false,
      },
      {
        name: 'resourceNames allow a named get',
        rule: rule({ resources: ['configmaps'], resourceNames: ['settings'] }),
        attributes: resourceRequest(alice, 'get', { resource: 'configmaps', name: 'settings' }),
        allowed: true,
      },
      {
        name: 'resourceNames refuse another name',
        rule: rule({ resources: ['configmaps'], resourceNames: ['settings'] }),
        attributes: resourceRequest(alice, 'get', { resource: 'configmaps', name: 'secrets' }),
        allowed: false,
      },
      {
        name: 'resourceNames refuse a list, which has no name',
        rule: rule({ resources: ['configmaps'], resourceNames: ['settings'] }),
        attributes: resourceRequest(alice, 'list', { resource: 'configmaps' }),
        allowed: false,
      },
      {
        name: 'resourceNames refuse a create, whose name is empty',
        rule: rule({ resources: ['configmaps'], resourceNames: ['settings'] }),
        attributes: resourceRequest(alice, 'create', { resource: 'configmaps' }),
        allowed: false,
      },
      {
        name: 'empty resourceNames restrict nothing',
        rule: rule({ resources: ['configmaps'], resourceNames: [] }),
        attributes: resourceRequest(alice, 'create', { resource: 'configmaps' }),
        allowed: true,
      },
      {
        name: '/healthz/* covers a named check',
        rule: { verbs: ['get'], nonResourceURLs: ['/healthz/*'] },
        attributes: nonResourceRequest(alice, 'get', '/healthz/etcd'),
        allowed: true,
      },
      {
        name: '/healthz/* does not cover /healthz',
        rule: { verbs: ['get'], nonResourceURLs: ['/healthz/*'] },
        attributes: nonResourceRequest(alice, 'get', '/healthz'),
        allowed: false,
      },
      {
        name: 'a resource rule never allows a path',
        rule: rule({ resources: ['*'] }),
        attributes: nonResourceRequest(alice, 'get', '/healthz'),
        allowed: false,
      },
      {
        name: 'a path rule never allows a resource',
        rule: { verbs: ['*'], nonResourceURLs: ['*'] },
        attributes: resourceRequest(alice, 'get', { resource: 'pods' }),
        allowed: false,
      },
      {
        name: 'the core group is "", not "*" spelled otherwise',
        rule: { verbs: ['get'], apiGroups: [''], resources: ['deployments'] },
        attributes: resourceRequest(alice, 'get', { apiGroup: 'apps', resource: 'deployments' }),
        allowed: false,
      },
    ];
    for (const { name, rule: policyRule, attributes, allowed } of cases) {
      it(name, () => expect(ruleAllows(attributes, policyRule)).to.equal(allowed));
    }
  });

  describe('TestAppliesTo: which subject of a binding is the user', () => {
    const cases: { name: string; subjects: Subject[]; user: UserInfo; namespace: string; index: number }[] = [
      {
        name: 'single subject that matches username',
        subjects: [{ kind: 'User', name: 'foobar' }],
        user: { name: 'foobar', groups: [] },
        namespace: '',
        index: 0,
      },
      {
        name: 'multiple subjects, one that matches username',
        subjects: [
          { kind: 'User', name: 'barfoo' },
          { kind: 'User', name: 'foobar' },
        ],
        user: { name: 'foobar', groups: [] },
        namespace: '',
        index: 1,
      },
      {
        name: 'multiple subjects, none that match username',
        subjects: [
          { kind: 'User', name: 'barfoo' },
          { kind: 'User', name: 'foobar' },
        ],
        user: { name: 'zimzam', groups: [] },
        namespace: '',
        index: -1,
      },
      {
        name: 'multiple subjects, one that match group',
        subjects: [
          { kind: 'User', name: 'barfoo' },
          { kind: 'Group', name: 'foobar' },
        ],
        user: { name: 'zimzam', groups: ['foobar'] },
        namespace: '',
        index: 1,
      },
      {
        name: 'multiple subjects, one that match group, should ignore namespace',
        subjects: [
          { kind: 'User', name: 'barfoo' },
          { kind: 'Group', name: 'foobar' },
        ],
        user: { name: 'zimzam', groups: ['foobar'] },
        namespace: 'namespace1',
        index: 1,
      },
      {
        name: 'multiple subjects with a service account that matches',
        subjects: [
          { kind: 'User', name: 'barfoo' },
          { kind: 'Group', name: 'foobar' },
          { kind: 'ServiceAccount', namespace: 'kube-system', name: 'default' },
        ],
        user: { name: 'system:serviceaccount:kube-system:default', groups: [] },
        namespace: 'default',
        index: 2,
      },
      {
        name: "* user subject name doesn't match all users",
        subjects: [{ kind: 'User', name: '*' }],
        user: { name: 'foobar', groups: [] },
        namespace: 'default',
        index: -1,
      },
      {
        name: 'binding to all authenticated and unauthenticated subjects matches authenticated user',
        subjects: [
          { kind: 'Group', name: 'system:authenticated' },
          { kind: 'Group', name: 'system:unauthenticated' },
        ],
        user: { name: 'foobar', groups: ['system:authenticated'] },
        namespace: 'default',
        index: 0,
      },
      {
        name: 'binding to all authenticated and unauthenticated subjects matches anonymous user',
        subjects: [
          { kind: 'Group', name: 'system:authenticated' },
          { kind: 'Group', name: 'system:unauthenticated' },
        ],
        user: { name: 'system:anonymous', groups: ['system:unauthenticated'] },
        namespace: 'default',
        index: 1,
      },
      // Beyond kube's table: a ServiceAccount subject without a namespace is one in the binding's.
      {
        name: 'a service account without a namespace is one in the binding’s namespace',
        subjects: [{ kind: 'ServiceAccount', name: 'builder' }],
        user: { name: 'system:serviceaccount:ci:builder', groups: [] },
        namespace: 'ci',
        index: 0,
      },
      {
        name: 'a service account without a namespace is no one in a ClusterRoleBinding',
        subjects: [{ kind: 'ServiceAccount', name: 'builder' }],
        user: { name: 'system:serviceaccount::builder', groups: [] },
        namespace: '',
        index: -1,
      },
      {
        name: 'a service account of another namespace does not match',
        subjects: [{ kind: 'ServiceAccount', namespace: 'prod', name: 'builder' }],
        user: { name: 'system:serviceaccount:ci:builder', groups: [] },
        namespace: 'ci',
        index: -1,
      },
      {
        name: 'a user subject does not match a group of that name',
        subjects: [{ kind: 'User', name: 'admins' }],
        user: { name: 'joe', groups: ['admins'] },
        namespace: '',
        index: -1,
      },
      {
        name: 'an unknown subject kind matches no one',
        subjects: [{ kind: 'Robot', name: 'joe' }],
        user: { name: 'joe', groups: [] },
        namespace: '',
        index: -1,
      },
    ];
    for (const { name, subjects: bindingSubjects, user, namespace, index } of cases) {
      it(name, () => expect(matchingSubjectIndex(user, bindingSubjects, namespace)).to.equal(index));
    }
  });

  describe('TestDefaultRuleResolver: rulesFor', () => {
    const ruleReadPods = { verbs: ['GET', 'WATCH'], apiGroups: ['v1'], resources: ['pods'] };
    const ruleReadServices = { verbs: ['GET', 'WATCH'], apiGroups: ['v1'], resources: ['services'] };
    const ruleWriteNodes = { verbs: ['PUT', 'CREATE', 'UPDATE'], apiGroups: ['v1'], resources: ['nodes'] };
    const ruleAdmin = { verbs: ['*'], apiGroups: ['*'], resources: ['*'] };
    const authorizer = authorizerFor({
      roles: [role('namespace1', 'readthings', ruleReadPods, ruleReadServices)],
      clusterRoles: [clusterRole('cluster-admin', ruleAdmin), clusterRole('write-nodes', ruleWriteNodes)],
      roleBindings: [
        {
          metadata: { namespace: 'namespace1' },
          subjects: [
            { kind: 'User', name: 'foobar' },
            { kind: 'Group', name: 'group1' },
          ],
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'readthings' },
        },
      ],
      clusterRoleBindings: [
        {
          subjects: [
            { kind: 'User', name: 'admin' },
            { kind: 'Group', name: 'admin' },
          ],
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        },
      ],
    });
    const cases: { name: string; user: UserInfo; namespace: string; rules: PolicyRule[] }[] = [
      {
        name: 'a Role bound in the namespace',
        user: { name: 'foobar', groups: [] },
        namespace: 'namespace1',
        rules: [ruleReadPods, ruleReadServices],
      },
      {
        name: 'nothing in another namespace',
        user: { name: 'foobar', groups: [] },
        namespace: 'namespace2',
        rules: [],
      },
      {
        name: 'only cluster rules without a namespace',
        user: { name: 'foobar', groups: ['admin'] },
        namespace: '',
        rules: [ruleAdmin],
      },
      { name: 'nothing for a user bound to nothing', user: { name: '', groups: [] }, namespace: '', rules: [] },
    ];
    for (const { name, user, namespace, rules } of cases) {
      it(name, () => {
        expect(authorizer.rulesFor(user, namespace)).to.deep.equal({
          resourceRules: rules,
          nonResourceRules: [],
          incomplete: false,
        });
      });
    }

    it('splits rules into resource and non-resource rules, leaving out empty lists', () => {
      const review = authorizerFor({
        clusterRoles: [
          clusterRole(
            'mixed',
            { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] },
            { verbs: ['get'], nonResourceURLs: ['/healthz'] },
          ),
        ],
        clusterRoleBindings: [clusterRoleBinding('mixed', 'User:alice')],
      }).rulesFor(alice, 'default');
      expect(review).to.deep.equal({
        resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] }],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        incomplete: false,
      });
    });

    it('names the role references it could not resolve, and still answers the rules it found', () => {
      const review = authorizerFor({
        clusterRoles: [clusterRole('reader', { verbs: ['get'], apiGroups: [''], resources: ['pods'] })],
        clusterRoleBindings: [clusterRoleBinding('reader', 'User:alice'), clusterRoleBinding('gone', 'User:alice')],
      }).rulesFor(alice, '');
      expect(review).to.deep.equal({
        resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
        nonResourceRules: [],
        incomplete: false,
        evaluationError: 'clusterrole.rbac.authorization.k8s.io "gone" not found',
      });
    });
  });

  describe('bindings and the rules they grant', () => {
    const podReader = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] };
    const getPods = (user: UserInfo, namespace: string) =>
      resourceRequest(user, 'get', { resource: 'pods', namespace, name: 'web' });

    it('a RoleBinding to a Role in its namespace grants there, and says which binding did', () => {
      const authorizer = authorizerFor({
        roles: [role('default', 'pod-reader', podReader)],
        roleBindings: [roleBinding('default', 'Role', 'pod-reader', 'User:alice')],
      });
      expect(authorizer.authorize(getPods(alice, 'default'))).to.deep.equal({
        allowed: true,
        reason: 'RBAC: allowed by RoleBinding "pod-reader/default" of Role "pod-reader" to User "alice"',
      });
      expect(authorizer.authorize(getPods(alice, 'other')).allowed).to.equal(false);
    });

    it('a RoleBinding does not reach a Role of the same name in another namespace', () => {
      const authorizer = authorizerFor({
        roles: [role('other', 'pod-reader', podReader)],
        roleBindings: [roleBinding('default', 'Role', 'pod-reader', 'User:alice')],
      });
      expect(authorizer.authorize(getPods(alice, 'default'))).to.include({
        allowed: false,
        reason: 'RBAC: role.rbac.authorization.k8s.io "pod-reader" not found',
      });
    });

    it('a RoleBinding does not grant at the cluster scope', () => {
      const authorizer = authorizerFor({
        clusterRoles: [clusterRole('reader', splitRule('*', '*', '*', '*'))],
        roleBindings: [roleBinding('default', 'ClusterRole', 'reader', 'User:alice')],
      });
      expect(authorizer.authorize(resourceRequest(alice, 'list', { resource: 'nodes' })).allowed).to.equal(false);
      expect(authorizer.authorize(nonResourceRequest(alice, 'get', '/metrics')).allowed).to.equal(false);
    });

    it('a ClusterRoleBinding grants in every namespace and at the cluster scope', () => {
      const authorizer = authorizerFor({
        clusterRoles: [clusterRole('pod-reader', podReader)],
        clusterRoleBindings: [clusterRoleBinding('pod-reader', 'Group:readers')],
      });
      const reader: UserInfo = { name: 'bob', groups: ['readers', 'system:authenticated'] };
      expect(authorizer.authorize(getPods(reader, 'a')).allowed).to.equal(true);
      expect(authorizer.authorize(getPods(reader, 'b')).allowed).to.equal(true);
      expect(authorizer.authorize(resourceRequest(reader, 'list', { resource: 'pods' }))).to.deep.equal({
        allowed: true,
        reason: 'RBAC: allowed by ClusterRoleBinding "pod-reader" of ClusterRole "pod-reader" to Group "readers"',
      });
    });

    it('a service account is bound by namespace and name', () => {
      const builder: UserInfo = {
        name: 'system:serviceaccount:ci:builder',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated'],
      };
      const authorizer = authorizerFor({
        roles: [role('ci', 'pod-reader', podReader)],
        roleBindings: [roleBinding('ci', 'Role', 'pod-reader', 'ServiceAccount:builder')],
      });
      expect(authorizer.authorize(getPods(builder, 'ci'))).to.deep.equal({
        allowed: true,
        reason: 'RBAC: allowed by RoleBinding "pod-reader/ci" of Role "pod-reader" to ServiceAccount "builder/ci"',
      });
      expect(
        authorizer.authorize(getPods({ ...builder, name: 'system:serviceaccount:ci:other' }, 'ci')).allowed,
      ).to.equal(false);
    });

    it('decides with the objects as they are at each decision', () => {
      const current = objects({ clusterRoles: [clusterRole('pod-reader', podReader)] });
      const authorizer = new RbacAuthorizer(() => RbacIndex.of(current));
      expect(authorizer.authorize(getPods(alice, 'default')).allowed).to.equal(false);
      current.clusterRoleBindings.push(clusterRoleBinding('pod-reader', 'User:alice'));
      expect(authorizer.authorize(getPods(alice, 'default')).allowed).to.equal(true);
    });

    it('reports every binding it could not resolve when nothing else allows', () => {
      const authorizer = authorizerFor({
        clusterRoleBindings: [
          clusterRoleBinding('gone', 'User:alice'),
          {
            metadata: { name: 'odd' },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Policy', name: 'x' },
            subjects: subjects(['User:alice']),
          },
          clusterRoleBinding('gone', 'User:alice'),
        ],
        roleBindings: [roleBinding('default', 'Role', 'missing', 'User:alice')],
      });
      expect(authorizer.authorize(getPods(alice, 'default')).reason).to.equal(
        'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, unsupported role reference kind: "Policy", role.rbac.authorization.k8s.io "missing" not found]',
      );
    });

    it('a binding that cannot be resolved does not stop another from allowing', () => {
      const authorizer = authorizerFor({
        clusterRoles: [clusterRole('pod-reader', podReader)],
        clusterRoleBindings: [clusterRoleBinding('gone', 'User:alice'), clusterRoleBinding('pod-reader', 'User:alice')],
      });
      expect(authorizer.authorize(getPods(alice, 'default'))).to.include({ allowed: true });
    });
  });

  describe("namespace isolation: a request reads its own namespace's RoleBindings only", () => {
    const everything = splitRule('*', '*', '*', '*');
    /** An index that records which namespaces' RoleBindings each decision read. */
    const recording = (partial: Partial<RbacObjects>) => {
      const index = RbacIndex.of(objects(partial));
      const read: string[] = [];
      const source: RbacObjectSource = {
        clusterRoleBindings: () => index.clusterRoleBindings(),
        roleBindings: (namespace) => (read.push(namespace), index.roleBindings(namespace)),
        role: (namespace, name) => index.role(namespace, name),
        clusterRoleRules: (name) => index.clusterRoleRules(name),
      };
      return { authorizer: new RbacAuthorizer(() => source), read };
    };
    const bindings = {
      roles: [role('a', 'all', everything), role('b', 'all', everything)],
      clusterRoles: [clusterRole('all', everything)],
      roleBindings: [
        roleBinding('a', 'Role', 'all', 'User:alice'),
        roleBinding('a', 'ClusterRole', 'all', 'Group:system:authenticated'),
      ],
    };
    const requests = (namespace: string): Attributes[] =>
      ['get', 'list', 'create', 'delete', 'watch'].map((verb) =>
        resourceRequest(alice, verb, { namespace, resource: 'pods', name: verb === 'get' ? 'web' : '' }),
      );

    it('a RoleBinding in namespace a grants in a, never in b or a namespace named like it', () => {
      const { authorizer } = recording(bindings);
      for (const request of requests('a')) expect(authorizer.authorize(request).allowed).to.equal(true);
      for (const namespace of ['b', 'a2', 'A', ' a', ''])
        for (const request of requests(namespace))
          expect(authorizer.authorize(request), describeRequest(request)).to.include({ allowed: false, reason: '' });
    });

    it('a rules review in b lists none of the rules a RoleBinding in a grants', () => {
      const { authorizer } = recording(bindings);
      expect(authorizer.rulesFor(alice, 'a').resourceRules).to.have.length(2);
      expect(authorizer.rulesFor(alice, 'b')).to.deep.equal({
        resourceRules: [],
        nonResourceRules: [],
        incomplete: false,
      });
    });

    it('a decision in namespace b reads the RoleBindings of b only', () => {
      const { authorizer, read } = recording(bindings);
      authorizer.authorize(requests('b')[0]);
      authorizer.rulesFor(alice, 'b');
      expect(read).to.deep.equal(['b', 'b']);
    });

    it('a cluster-scoped request, resource or not, reads no RoleBinding', () => {
      const { authorizer, read } = recording(bindings);
      expect(authorizer.authorize(resourceRequest(alice, 'list', { resource: 'nodes' })).allowed).to.equal(false);
      expect(authorizer.authorize(resourceRequest(alice, 'list', { resource: 'pods' })).allowed).to.equal(false);
      expect(authorizer.authorize(nonResourceRequest(alice, 'get', '/metrics')).allowed).to.equal(false);
      authorizer.rulesFor(alice, '');
      expect(read).to.deep.equal([]);
    });

    it('a ClusterRoleBinding that allows stops the decision before any RoleBinding is read', () => {
      const { authorizer, read } = recording({
        ...bindings,
        clusterRoleBindings: [clusterRoleBinding('all', 'User:alice')],
      });
      expect(authorizer.authorize(requests('b')[0]).allowed).to.equal(true);
      expect(read).to.deep.equal([]);
    });
  });

  describe('superuser', () => {
    it('system:masters is allowed everything with no RBAC objects at all, and RBAC gives no reason', () => {
      const authorizer = authorizerFor({});
      const master: UserInfo = { name: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
      expect(authorizer.authorize(resourceRequest(master, 'delete', { resource: 'nodes', name: 'n1' }))).to.deep.equal({
        allowed: true,
        reason: '',
      });
      expect(authorizer.authorize(nonResourceRequest(master, 'get', '/metrics')).allowed).to.equal(true);
    });

    it('a user named system:masters is not in the group', () => {
      const authorizer = authorizerFor({});
      expect(
        authorizer.authorize(resourceRequest({ name: 'system:masters', groups: [] }, 'get', { resource: 'pods' }))
          .allowed,
      ).to.equal(false);
    });
  });

  describe('TestSyncClusterRole: aggregated rules', () => {
    const hammerRules: PolicyRule[] = [
      { verbs: ['hammer'], resources: ['nails'] },
      { verbs: ['hammer'], resources: ['wedges'] },
    ];
    const chiselRules: PolicyRule[] = [{ verbs: ['chisel'], resources: ['mortises'] }];
    const sawRules: PolicyRule[] = [{ verbs: ['saw'], resources: ['boards'] }];
    const labelled = (name: string, labels: Record<string, string>, rules: PolicyRule[]) => ({
      metadata: { name, labels },
      rules,
    });
    const combined = (selectors: Record<string, string>[], rules: PolicyRule[] = []) => ({
      metadata: { name: 'combined' },
      aggregationRule: { clusterRoleSelectors: selectors.map((matchLabels) => ({ matchLabels })) },
      rules,
    });
    const cases: { name: string; clusterRoles: any[]; expected: PolicyRule[] }[] = [
      {
        name: 'remove dead rules',
        clusterRoles: [labelled('hammer', { foo: 'bar' }, hammerRules), combined([{ foo: 'bar' }], sawRules)],
        expected: hammerRules,
      },
      {
        name: 'strip rules',
        clusterRoles: [labelled('hammer', { foo: 'not-bar' }, hammerRules), combined([{ foo: 'bar' }], hammerRules)],
        expected: [],
      },
      {
        name: 'select properly and put in order',
        clusterRoles: [
          labelled('hammer', { foo: 'bar' }, hammerRules),
          labelled('chisel', { foo: 'bar' }, chiselRules),
          labelled('saw', { foo: 'not-bar' }, sawRules),
          combined([{ foo: 'bar' }]),
        ],
        expected: [...chiselRules, ...hammerRules],
      },
      {
        name: 'select properly with multiple selectors',
        clusterRoles: [
          labelled('hammer', { foo: 'bar' }, hammerRules),
          labelled('chisel', { foo: 'bar' }, chiselRules),
          labelled('saw', { foo: 'not-bar' }, sawRules),
          combined([{ foo: 'bar' }, { foo: 'not-bar' }]),
        ],
        expected: [...chiselRules, ...hammerRules, ...sawRules],
      },
      {
        name: 'select properly remove duplicates',
        clusterRoles: [
          labelled('hammer', { foo: 'bar' }, hammerRules),
          labelled('chisel', { foo: 'bar' }, chiselRules),
          labelled('saw', { foo: 'bar' }, sawRules),
          labelled('other-saw', { foo: 'not-bar' }, sawRules),
          combined([{ foo: 'bar' }, { foo: 'not-bar' }]),
        ],
        expected: [...chiselRules, ...hammerRules, ...sawRules],
      },
      {
        name: 'no diff skip',
        clusterRoles: [labelled('hammer', { foo: 'bar' }, hammerRules), combined([{ foo: 'bar' }], hammerRules)],
        expected: hammerRules,
      },
      {
        name: 'a rule with a missing list repeats one with an empty list',
        clusterRoles: [
          labelled('a', { foo: 'bar' }, [{ verbs: ['get'], resources: ['pods'] }]),
          labelled('b', { foo: 'bar' }, [{ verbs: ['get'], apiGroups: [], resources: ['pods'] }]),
          combined([{ foo: 'bar' }]),
        ],
        expected: [{ verbs: ['get'], resources: ['pods'] }],
      },
      {
        name: 'the aggregated role is not its own source even when its labels match',
        clusterRoles: [
          labelled('hammer', { foo: 'bar' }, hammerRules),
          { ...combined([{ foo: 'bar' }], sawRules), metadata: { name: 'combined', labels: { foo: 'bar' } } },
        ],
        expected: hammerRules,
      },
      {
        name: 'a selected aggregated role contributes what it aggregates',
        clusterRoles: [
          labelled('saw', { tool: 'saw' }, sawRules),
          {
            metadata: { name: 'inner', labels: { foo: 'bar' } },
            aggregationRule: { clusterRoleSelectors: [{ matchLabels: { tool: 'saw' } }] },
          },
          labelled('hammer', { foo: 'bar' }, hammerRules),
          combined([{ foo: 'bar' }]),
        ],
        expected: [...hammerRules, ...sawRules],
      },
      {
        name: 'matchExpressions select too',
        clusterRoles: [
          labelled('hammer', { tool: 'hammer' }, hammerRules),
          labelled('saw', { tool: 'saw' }, sawRules),
          {
            metadata: { name: 'combined' },
            aggregationRule: {
              clusterRoleSelectors: [{ matchExpressions: [{ key: 'tool', operator: 'In', values: ['saw'] }] }],
            },
          },
        ],
        expected: sawRules,
      },
    ];
    for (const { name, clusterRoles, expected } of cases) {
      it(name, () => {
        const target = clusterRoles.find((candidate) => candidate.metadata.name === 'combined');
        expect(aggregatedRules(target, clusterRoles)).to.deep.equal(expected);
      });
    }

    it('a role without an aggregationRule keeps its own rules', () => {
      const plain = labelled('hammer', { foo: 'bar' }, hammerRules);
      expect(aggregatedRules(plain, [plain])).to.deep.equal(hammerRules);
    });

    it('aggregated roles selecting each other end', () => {
      const a = {
        metadata: { name: 'a', labels: { side: 'a' } },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { side: 'b' } }] },
      };
      const b = {
        metadata: { name: 'b', labels: { side: 'b' } },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { side: 'a' } }] },
      };
      const saw = labelled('saw', { side: 'b' }, sawRules);
      expect(aggregatedRules(a, [a, b, saw])).to.deep.equal(sawRules);
    });

    it('the authorizer grants what an aggregated ClusterRole aggregates at the time of the decision', () => {
      const current = objects({
        clusterRoles: [combined([{ foo: 'bar' }], [{ verbs: ['saw'], apiGroups: [''], resources: ['boards'] }])],
        roleBindings: [roleBinding('shop', 'ClusterRole', 'combined', 'User:alice')],
      });
      const authorizer = new RbacAuthorizer(() => RbacIndex.of(current));
      const hammerNails = resourceRequest(alice, 'hammer', { namespace: 'shop', resource: 'nails' });
      const sawBoards = resourceRequest(alice, 'saw', { namespace: 'shop', resource: 'boards' });
      // The stored rules of an aggregated role count for nothing: the controller would replace them.
      expect(authorizer.authorize(sawBoards).allowed).to.equal(false);
      current.clusterRoles.push(
        labelled('hammer', { foo: 'bar' }, [{ verbs: ['hammer'], apiGroups: [''], resources: ['nails'] }]),
      );
      expect(authorizer.authorize(hammerNails).allowed).to.equal(true);
    });
  });

  describe('bootstrap policy', () => {
    const bootstrap = (partial: Partial<RbacObjects> = {}) =>
      authorizerFor({
        ...partial,
        clusterRoles: [...BOOTSTRAP_CLUSTER_ROLES, ...(partial.clusterRoles ?? [])],
        clusterRoleBindings: [...BOOTSTRAP_CLUSTER_ROLE_BINDINGS, ...(partial.clusterRoleBindings ?? [])],
      });
    const anonymous: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

    describe('an authenticated user bound to nothing else', () => {
      const authorizer = bootstrap();
      for (const path of [
        '/api',
        '/api/v1',
        '/apis',
        '/apis/apps/v1',
        '/openapi/v2',
        '/openapi/v3/api/v1',
        '/version',
        '/version/',
        '/healthz',
        '/livez',
        '/readyz',
      ]) {
        it(`may get ${path}`, () =>
          expect(authorizer.authorize(nonResourceRequest(alice, 'get', path)).allowed).to.equal(true));
      }
      for (const path of ['/metrics', '/healthz/etcd', '/logs', '/']) {
        it(`may not get ${path}`, () =>
          expect(authorizer.authorize(nonResourceRequest(alice, 'get', path)).allowed).to.equal(false));
      }
      it('may not post to a discovery path', () =>
        expect(authorizer.authorize(nonResourceRequest(alice, 'post', '/api')).allowed).to.equal(false));
      for (const [apiGroup, resource] of [
        ['authorization.k8s.io', 'selfsubjectaccessreviews'],
        ['authorization.k8s.io', 'selfsubjectrulesreviews'],
        ['authentication.k8s.io', 'selfsubjectreviews'],
      ] as const) {
        it(`may create ${resource}`, () =>
          expect(authorizer.authorize(resourceRequest(alice, 'create', { apiGroup, resource })).allowed).to.equal(
            true,
          ));
      }
      it('may not create subjectaccessreviews', () => {
        expect(
          authorizer.authorize(
            resourceRequest(alice, 'create', { apiGroup: 'authorization.k8s.io', resource: 'subjectaccessreviews' }),
          ).allowed,
        ).to.equal(false);
      });
      it('may not list pods', () =>
        expect(
          authorizer.authorize(resourceRequest(alice, 'list', { namespace: 'default', resource: 'pods' })).allowed,
        ).to.equal(false));
      it('is told its discovery and self-review rules by a rules review', () => {
        const review = authorizer.rulesFor(alice, 'default');
        expect(review.incomplete).to.equal(false);
        expect(review.resourceRules).to.deep.equal([
          {
            verbs: ['create'],
            apiGroups: ['authorization.k8s.io'],
            resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
          },
          { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
        ]);
        expect(review.nonResourceRules).to.deep.equal([
          {
            verbs: ['get'],
            nonResourceURLs: [
              '/api',
              '/api/*',
              '/apis',
              '/apis/*',
              '/healthz',
              '/livez',
              '/openapi',
              '/openapi/*',
              '/readyz',
              '/version',
              '/version/',
            ],
          },
          { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] },
        ]);
      });
    });

    describe('an unauthenticated user', () => {
      const authorizer = bootstrap();
      for (const path of ['/healthz', '/version']) {
        it(`may get ${path}`, () =>
          expect(authorizer.authorize(nonResourceRequest(anonymous, 'get', path)).allowed).to.equal(true));
      }
      it('may not discover the API', () =>
        expect(authorizer.authorize(nonResourceRequest(anonymous, 'get', '/apis')).allowed).to.equal(false));
      it('may not create selfsubjectaccessreviews', () => {
        expect(
          authorizer.authorize(
            resourceRequest(anonymous, 'create', {
              apiGroup: 'authorization.k8s.io',
              resource: 'selfsubjectaccessreviews',
            }),
          ).allowed,
        ).to.equal(false);
      });
    });

    it('cluster-admin is bound to system:masters', () => {
      const master: UserInfo = { name: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
      const review = bootstrap().rulesFor(master, 'default');
      expect(review.resourceRules).to.deep.include({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] });
      expect(review.nonResourceRules).to.deep.include({ verbs: ['*'], nonResourceURLs: ['*'] });
    });

    describe('admin, edit and view bound in a namespace', () => {
      const authorizer = bootstrap({
        roleBindings: [
          roleBinding('team', 'ClusterRole', 'view', 'User:viewer'),
          roleBinding('team', 'ClusterRole', 'edit', 'User:editor'),
          roleBinding('team', 'ClusterRole', 'admin', 'User:admin'),
        ],
      });
      const user = (name: string): UserInfo => ({ name, groups: ['system:authenticated'] });
      const cases: [string, string, Partial<Attributes>, boolean][] = [
        ['viewer', 'list', { resource: 'pods' }, true],
        ['viewer', 'get', { resource: 'pods', subresource: 'log', name: 'web' }, true],
        ['viewer', 'get', { resource: 'secrets', name: 'token' }, false],
        ['viewer', 'create', { resource: 'pods' }, false],
        ['viewer', 'watch', { apiGroup: 'apps', resource: 'deployments' }, true],
        ['editor', 'create', { apiGroup: 'apps', resource: 'deployments' }, true],
        ['editor', 'patch', { apiGroup: 'apps', resource: 'deployments', subresource: 'scale', name: 'web' }, true],
        // edit reads pods through view, which it aggregates.
        ['editor', 'list', { resource: 'pods' }, true],
        ['editor', 'get', { resource: 'secrets', name: 'token' }, true],
        ['editor', 'create', { resource: 'pods', subresource: 'exec', name: 'web' }, true],
        ['editor', 'create', { apiGroup: 'rbac.authorization.k8s.io', resource: 'rolebindings' }, false],
        // admin has everything edit has, through edit, which it aggregates.
        ['admin', 'create', { apiGroup: 'rbac.authorization.k8s.io', resource: 'rolebindings' }, true],
        ['admin', 'delete', { apiGroup: 'apps', resource: 'deployments', name: 'web' }, true],
        ['admin', 'list', { resource: 'pods' }, true],
        ['admin', 'update', { resource: 'resourcequotas', name: 'quota' }, false],
      ];
      for (const [name, verb, fields, allowed] of cases) {
        const attributes = resourceRequest(user(name), verb, { namespace: 'team', ...fields });
        it(`${allowed ? 'allows' : 'denies'} ${describeRequest(attributes)}`, () =>
          expect(authorizer.authorize(attributes).allowed).to.equal(allowed));
      }
      it('grants nothing outside the namespace', () => {
        expect(
          authorizer.authorize(resourceRequest(user('admin'), 'list', { namespace: 'elsewhere', resource: 'pods' }))
            .allowed,
        ).to.equal(false);
      });
      it('view picks up a ClusterRole labelled to aggregate to it', () => {
        const crontabViewer = {
          metadata: { name: 'crontabs-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
          rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: ['stable.example.com'], resources: ['crontabs'] }],
        };
        const withCrontabs = bootstrap({
          clusterRoles: [crontabViewer],
          roleBindings: [roleBinding('team', 'ClusterRole', 'admin', 'User:admin')],
        });
        expect(
          withCrontabs.authorize(
            resourceRequest(user('admin'), 'list', {
              namespace: 'team',
              apiGroup: 'stable.example.com',
              resource: 'crontabs',
            }),
          ).allowed,
        ).to.equal(true);
      });
    });

    it('every bootstrap object is labelled and annotated as kube’s defaults are', () => {
      for (const object of [...BOOTSTRAP_CLUSTER_ROLES, ...BOOTSTRAP_CLUSTER_ROLE_BINDINGS]) {
        expect(object.metadata.labels, object.metadata.name).to.include({
          'kubernetes.io/bootstrapping': 'rbac-defaults',
        });
        expect(object.metadata.annotations, object.metadata.name).to.deep.equal({
          'rbac.authorization.kubernetes.io/autoupdate': 'true',
        });
      }
    });

    it('admin, edit and view are aggregated and chained by their labels', () => {
      const byName = new Map(
        BOOTSTRAP_CLUSTER_ROLES.map((clusterRoleObject) => [clusterRoleObject.metadata.name, clusterRoleObject]),
      );
      expect(byName.get('admin').aggregationRule).to.deep.equal({
        clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } }],
      });
      expect(byName.get('edit').metadata.labels).to.include({ 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' });
      expect(byName.get('view').metadata.labels).to.include({ 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' });
      expect(byName.get('view')).to.not.have.property('rules');
    });
  });

  describe('forbidden messages', () => {
    const name = (userName: string): UserInfo => ({ name: userName, groups: [] });
    const cases: [string, Attributes, string][] = [
      [
        'a named get in a namespace',
        resourceRequest(alice, 'get', { namespace: 'default', resource: 'pods', name: 'x' }),
        'pods "x" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "default"',
      ],
      [
        'a list in a namespace',
        resourceRequest(alice, 'list', { namespace: 'default', resource: 'pods' }),
        'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"',
      ],
      [
        'a resource of a named group',
        resourceRequest(alice, 'list', { namespace: 'default', apiGroup: 'apps', resource: 'deployments' }),
        'deployments.apps is forbidden: User "alice" cannot list resource "deployments" in API group "apps" in the namespace "default"',
      ],
      [
        'a subresource',
        resourceRequest(alice, 'get', { namespace: 'default', resource: 'pods', subresource: 'log', name: 'web' }),
        'pods "web" is forbidden: User "alice" cannot get resource "pods/log" in API group "" in the namespace "default"',
      ],
      [
        'the cluster scope',
        resourceRequest(alice, 'list', { resource: 'nodes' }),
        'nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope',
      ],
      ['a path', nonResourceRequest(alice, 'get', '/metrics'), 'forbidden: User "alice" cannot get path "/metrics"'],
      // errors_test.go's TestForbidden
      [
        'errors_test: a path',
        nonResourceRequest(name('NAME'), 'GET', '/whatever'),
        'forbidden: User "NAME" cannot GET path "/whatever"',
      ],
      [
        'errors_test: markup in a path is escaped',
        nonResourceRequest(name('NAME'), 'GET', '/<script>'),
        'forbidden: User "NAME" cannot GET path "/&lt;script&gt;"',
      ],
      [
        'errors_test: a resource',
        resourceRequest(name('NAME'), 'get', { resource: 'pod' }),
        'pod is forbidden: User "NAME" cannot get resource "pod" in API group "" at the cluster scope',
      ],
      [
        'errors_test: a named resource',
        resourceRequest(name('NAME'), 'get', { resource: 'pod', name: 'mypod' }),
        'pod "mypod" is forbidden: User "NAME" cannot get resource "pod" in API group "" at the cluster scope',
      ],
      [
        'errors_test: a subresource in a group',
        resourceRequest(name('NAME'), 'get', {
          namespace: 'test',
          apiGroup: 'v2',
          resource: 'pod',
          subresource: 'quota',
        }),
        'pod.v2 is forbidden: User "NAME" cannot get resource "pod/quota" in API group "v2" in the namespace "test"',
      ],
      [
        'a user name that needs quoting',
        resourceRequest(name('o"brien\\x'), 'list', { resource: 'nodes' }),
        'nodes is forbidden: User "o\\"brien\\\\x" cannot list resource "nodes" in API group "" at the cluster scope',
      ],
    ];
    for (const [title, attributes, message] of cases) {
      it(title, () => expect(forbiddenMessage(attributes)).to.equal(message));
    }

    it('a reason follows the message after a colon, unescaped', () => {
      expect(forbiddenMessage(nonResourceRequest(alice, 'get', '/metrics'), 'RBAC: <why>')).to.equal(
        'forbidden: User "alice" cannot get path "/metrics": RBAC: <why>',
      );
    });

    it('a denial carries the message, with RBAC’s reason when it could not resolve a binding', () => {
      const authorizer = authorizerFor({ roleBindings: [roleBinding('default', 'Role', 'missing', 'User:alice')] });
      expect(
        authorizer.authorize(resourceRequest(alice, 'get', { namespace: 'default', resource: 'pods', name: 'x' })),
      ).to.deep.equal({
        allowed: false,
        reason: 'RBAC: role.rbac.authorization.k8s.io "missing" not found',
        message:
          'pods "x" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "default": RBAC: role.rbac.authorization.k8s.io "missing" not found',
      });
    });

    it('a plain denial has no reason and the bare message', () => {
      expect(
        authorizerFor({}).authorize(
          resourceRequest(alice, 'list', { namespace: 'default', apiGroup: 'apps', resource: 'deployments' }),
        ),
      ).to.deep.equal({
        allowed: false,
        reason: '',
        message:
          'deployments.apps is forbidden: User "alice" cannot list resource "deployments" in API group "apps" in the namespace "default"',
      });
    });
  });
});
