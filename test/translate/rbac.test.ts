import { expect } from 'chai';
import { tenantContext, TranslationError } from '../../translate/context.js';
import { objectDown, objectUp } from '../../translate/objects.js';
import { kindScope } from '../support/kind-scope.js';

type Json = Record<string, any>;

const A = tenantContext('aaaaaa', kindScope());
const B = tenantContext('bbbbbb', kindScope());

const RBAC = 'rbac.authorization.k8s.io/v1';
const TENANT_LABEL = { 'kubezoo.io/tenant': 'aaaaaa' };
const ONLY_A = { key: 'kubezoo.io/tenant', operator: 'In', values: ['aaaaaa'] };

const clusterRole = (metadata: Json, rest: Json = {}) => ({ apiVersion: RBAC, kind: 'ClusterRole', metadata, ...rest });
const role = (rules: Json[]) => ({ apiVersion: RBAC, kind: 'Role', metadata: { name: 'r', namespace: 'dev' }, rules });
const upstreamRole = (rules: Json[]) => ({
  apiVersion: RBAC,
  kind: 'Role',
  metadata: { name: 'r', namespace: 'aaaaaa-dev' },
  rules,
});
const binding = (subjects: Json[]) => ({
  apiVersion: RBAC,
  kind: 'ClusterRoleBinding',
  metadata: { name: 'b' },
  subjects,
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
});
const upstreamBinding = (subjects: Json[]) => ({
  apiVersion: RBAC,
  kind: 'ClusterRoleBinding',
  // The label that selects it among the RoleBindings it is stored as (stored-cluster-role-binding.ts).
  metadata: { name: 'aaaaaa-b', labels: { 'kubezoo.io/cluster-role-binding-of': 'aaaaaa' } },
  subjects,
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'aaaaaa:view' },
});
const group = (name: string) => ({ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name });
const user = (name: string) => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name });

/** Up gives `upstream`, down gives `tenant` back. */
const ROUND_TRIPS: { title: string; tenant: Json; upstream: Json }[] = [
  {
    title:
      'aggregating ClusterRole selecting everything (`[{}]`): the selector selects only the tenant\u2019s ClusterRoles',
    tenant: clusterRole({ name: 'everything' }, { aggregationRule: { clusterRoleSelectors: [{}] }, rules: [] }),
    upstream: clusterRole(
      { name: 'aaaaaa-everything', labels: TENANT_LABEL },
      { aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [ONLY_A] }] }, rules: [] },
    ),
  },
  {
    // kube's docs: "monitoring" aggregates every ClusterRole labelled rbac.example.com/aggregate-to-monitoring.
    title:
      'kube\u2019s aggregated "monitoring" role: each selector keeps its labels and expressions and gains the tenant requirement',
    tenant: clusterRole(
      { name: 'monitoring' },
      {
        aggregationRule: {
          clusterRoleSelectors: [
            { matchLabels: { 'rbac.example.com/aggregate-to-monitoring': 'true' } },
            { matchExpressions: [{ key: 'tier', operator: 'In', values: ['ops'] }] },
          ],
        },
      },
    ),
    upstream: clusterRole(
      { name: 'aaaaaa-monitoring', labels: TENANT_LABEL },
      {
        aggregationRule: {
          clusterRoleSelectors: [
            { matchLabels: { 'rbac.example.com/aggregate-to-monitoring': 'true' }, matchExpressions: [ONLY_A] },
            { matchExpressions: [{ key: 'tier', operator: 'In', values: ['ops'] }, ONLY_A] },
          ],
        },
      },
    ),
  },
  {
    title: 'a selector that already asks for the tenant label keeps it: only the gateway\u2019s copy is removed down',
    tenant: clusterRole(
      { name: 'own', labels: { team: 'a' } },
      { aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [ONLY_A] }] } },
    ),
    upstream: clusterRole(
      { name: 'aaaaaa-own', labels: { team: 'a', ...TENANT_LABEL } },
      { aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [ONLY_A, ONLY_A] }] } },
    ),
  },
  {
    // kube's aggregate-to-* pattern: the labelled role the aggregating one picks up.
    title: 'ClusterRole aggregated into another: carries its own labels and the tenant label',
    tenant: clusterRole(
      { name: 'monitoring-endpoints', labels: { 'rbac.example.com/aggregate-to-monitoring': 'true' } },
      {
        rules: [
          { apiGroups: [''], resources: ['services', 'endpointslices', 'pods'], verbs: ['get', 'list', 'watch'] },
        ],
      },
    ),
    upstream: clusterRole(
      {
        name: 'aaaaaa-monitoring-endpoints',
        labels: { 'rbac.example.com/aggregate-to-monitoring': 'true', ...TENANT_LABEL },
      },
      {
        rules: [
          { apiGroups: [''], resources: ['services', 'endpointslices', 'pods'], verbs: ['get', 'list', 'watch'] },
        ],
      },
    ),
  },
  {
    title:
      'resourceNames of Namespaces, ClusterRoles, PersistentVolumes and StorageClasses are prefixed (subresources too)',
    tenant: clusterRole(
      { name: 'named' },
      {
        rules: [
          {
            apiGroups: [''],
            resources: ['namespaces', 'namespaces/status'],
            resourceNames: ['dev', 'prod'],
            verbs: ['get'],
          },
          {
            apiGroups: ['rbac.authorization.k8s.io'],
            resources: ['clusterroles'],
            resourceNames: ['view'],
            verbs: ['bind', 'escalate'],
          },
          { apiGroups: [''], resources: ['persistentvolumes'], resourceNames: ['pv1'], verbs: ['delete'] },
          { apiGroups: ['storage.k8s.io'], resources: ['storageclasses'], resourceNames: ['fast'], verbs: ['get'] },
        ],
      },
    ),
    upstream: clusterRole(
      { name: 'aaaaaa-named', labels: TENANT_LABEL },
      {
        rules: [
          {
            apiGroups: [''],
            resources: ['namespaces', 'namespaces/status'],
            resourceNames: ['aaaaaa-dev', 'aaaaaa-prod'],
            verbs: ['get'],
          },
          {
            apiGroups: ['rbac.authorization.k8s.io'],
            resources: ['clusterroles'],
            resourceNames: ['aaaaaa-view'],
            verbs: ['bind', 'escalate'],
          },
          { apiGroups: [''], resources: ['persistentvolumes'], resourceNames: ['aaaaaa-pv1'], verbs: ['delete'] },
          {
            apiGroups: ['storage.k8s.io'],
            resources: ['storageclasses'],
            resourceNames: ['aaaaaa-fast'],
            verbs: ['get'],
          },
        ],
      },
    ),
  },
  {
    title: 'resourceNames of CRDs follow the CRD name rule; of a cluster-scoped custom resource, the prefix',
    tenant: clusterRole(
      { name: 'crds' },
      {
        rules: [
          {
            apiGroups: ['apiextensions.k8s.io'],
            resources: ['customresourcedefinitions'],
            resourceNames: ['crontabs.stable.example.com'],
            verbs: ['get'],
          },
          { apiGroups: ['stable.example.com'], resources: ['widgets'], resourceNames: ['w1'], verbs: ['get'] },
        ],
      },
    ),
    upstream: clusterRole(
      { name: 'aaaaaa-crds', labels: TENANT_LABEL },
      {
        rules: [
          {
            apiGroups: ['apiextensions.k8s.io'],
            resources: ['customresourcedefinitions'],
            resourceNames: ['crontabs.aaaaaa-stable.example.com'],
            verbs: ['get'],
          },
          {
            apiGroups: ['aaaaaa-stable.example.com'],
            resources: ['widgets'],
            resourceNames: ['aaaaaa-w1'],
            verbs: ['get'],
          },
        ],
      },
    ),
  },
  {
    title: 'resourceNames of namespaced, shared (Nodes) and unknown resources are kept',
    tenant: role([
      { apiGroups: [''], resources: ['configmaps', 'secrets'], resourceNames: ['settings'], verbs: ['get'] },
      { apiGroups: [''], resources: ['nodes', 'nodes/proxy'], resourceNames: ['node-1'], verbs: ['get'] },
      { apiGroups: ['stable.example.com'], resources: ['gadgets'], resourceNames: ['g'], verbs: ['get'] },
    ]),
    upstream: upstreamRole([
      { apiGroups: [''], resources: ['configmaps', 'secrets'], resourceNames: ['settings'], verbs: ['get'] },
      { apiGroups: [''], resources: ['nodes', 'nodes/proxy'], resourceNames: ['node-1'], verbs: ['get'] },
      { apiGroups: ['aaaaaa-stable.example.com'], resources: ['gadgets'], resourceNames: ['g'], verbs: ['get'] },
    ]),
  },
  {
    title: 'a Role names Namespaces the same way',
    tenant: role([{ apiGroups: [''], resources: ['namespaces'], resourceNames: ['dev'], verbs: ['get'] }]),
    upstream: upstreamRole([
      { apiGroups: [''], resources: ['namespaces'], resourceNames: ['aaaaaa-dev'], verbs: ['get'] },
    ]),
  },
  {
    title:
      'system:authenticated and system:serviceaccounts become the tenant\u2019s own groups; system:serviceaccounts:<ns> its namespace',
    tenant: binding([
      group('system:authenticated'),
      group('system:serviceaccounts'),
      group('system:serviceaccounts:ci'),
      user('system:serviceaccount:ci:bot'),
    ]),
    upstream: upstreamBinding([
      group('aaaaaa-system:authenticated'),
      group('aaaaaa-system:serviceaccounts'),
      group('system:serviceaccounts:aaaaaa-ci'),
      user('system:serviceaccount:aaaaaa-ci:bot'),
    ]),
  },
  {
    title: 'SubjectAccessReview asking about system:authenticated asks about the tenant\u2019s',
    tenant: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'alice',
        groups: ['system:authenticated', 'system:serviceaccounts'],
        resourceAttributes: { resource: 'namespaces', name: 'dev', verb: 'get' },
      },
    },
    upstream: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'aaaaaa-alice',
        groups: ['aaaaaa-system:authenticated', 'aaaaaa-system:serviceaccounts'],
        resourceAttributes: { resource: 'namespaces', name: 'aaaaaa-dev', verb: 'get' },
      },
    },
  },
];

/** What tenant aaaaaa sees of an upstream object. */
const DOWN: { title: string; upstream: Json; tenant: Json | null }[] = [
  {
    title:
      'aggregated rules upstream filled in: foreign groups and names dropped, a rule left without its names dropped whole',
    upstream: clusterRole(
      { name: 'aaaaaa-everything', labels: TENANT_LABEL },
      {
        aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [ONLY_A] }] },
        rules: [
          { apiGroups: [''], resources: ['secrets'], resourceNames: ['db-password'], verbs: ['get'] },
          {
            apiGroups: [''],
            resources: ['namespaces'],
            resourceNames: ['bbbbbb-prod', 'aaaaaa-dev', 'kube-system'],
            verbs: ['get'],
          },
          { apiGroups: [''], resources: ['namespaces'], resourceNames: ['bbbbbb-prod'], verbs: ['delete'] },
          { apiGroups: ['bbbbbb-stable.example.com'], resources: ['crontabs'], verbs: ['*'] },
        ],
      },
    ),
    tenant: clusterRole(
      { name: 'everything' },
      {
        aggregationRule: { clusterRoleSelectors: [{}] },
        rules: [
          { apiGroups: [''], resources: ['secrets'], resourceNames: ['db-password'], verbs: ['get'] },
          { apiGroups: [''], resources: ['namespaces'], resourceNames: ['dev'], verbs: ['get'] },
        ],
      },
    ),
  },
  {
    title: 'rules whose names have no single conversion (both scopes, a wildcard) are not the tenant\u2019s',
    upstream: upstreamRole([
      { apiGroups: [''], resources: ['pods', 'namespaces'], resourceNames: ['aaaaaa-dev'], verbs: ['get'] },
      { apiGroups: ['*'], resources: ['namespaces'], resourceNames: ['aaaaaa-dev'], verbs: ['get'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
    ]),
    tenant: role([{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }]),
  },
  {
    title:
      'SelfSubjectRulesReview: names of cluster-scoped objects lose the prefix, other tenants\u2019 rules are gone',
    upstream: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: 'aaaaaa-dev' },
      status: {
        resourceRules: [
          { verbs: ['get'], apiGroups: [''], resources: ['namespaces'], resourceNames: ['aaaaaa-dev'] },
          { verbs: ['get'], apiGroups: [''], resources: ['namespaces'], resourceNames: ['bbbbbb-dev'] },
          { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['token'] },
        ],
        nonResourceRules: [],
        incomplete: false,
      },
    },
    tenant: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: 'dev' },
      status: {
        resourceRules: [
          { verbs: ['get'], apiGroups: [''], resources: ['namespaces'], resourceNames: ['dev'] },
          { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['token'] },
        ],
        nonResourceRules: [],
        incomplete: false,
      },
    },
  },
  {
    title:
      'subjects: the tenant\u2019s system groups come back, the cluster\u2019s and other tenants\u2019 are dropped',
    upstream: upstreamBinding([
      group('aaaaaa-system:authenticated'),
      group('system:authenticated'),
      group('bbbbbb-system:authenticated'),
      group('system:masters'),
      group('aaaaaa-system:masters'),
      user('system:anonymous'),
      user('aaaaaa-system:admin'),
    ]),
    tenant: binding([group('system:authenticated')]),
  },
  {
    title:
      'TokenReview of a service account: upstream\u2019s own system:authenticated and system:serviceaccounts are true of it, once each',
    upstream: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      status: {
        authenticated: true,
        user: {
          username: 'system:serviceaccount:aaaaaa-ci:bot',
          groups: [
            'system:serviceaccounts',
            'system:serviceaccounts:aaaaaa-ci',
            'system:authenticated',
            'aaaaaa-system:authenticated',
          ],
        },
      },
    },
    tenant: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      status: {
        authenticated: true,
        user: {
          username: 'system:serviceaccount:ci:bot',
          groups: ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated'],
        },
      },
    },
  },
];

const REFUSALS: { title: string; object: Json; code: number; message: string }[] = [
  {
    title: 'a rule naming namespaced and cluster-scoped resources together with resourceNames',
    object: clusterRole(
      { name: 'mixed' },
      { rules: [{ apiGroups: [''], resources: ['pods', 'namespaces'], resourceNames: ['dev'], verbs: ['get'] }] },
    ),
    code: 422,
    message: `ClusterRole "mixed" is invalid: rules[0].resourceNames: Invalid value: ["dev"]: the rule's resources (pods, namespaces) mix namespaced or shared kinds and cluster-scoped ones, whose names the gateway converts differently (cluster-scoped names carry the tenant prefix upstream): split the rule into one for the namespaced and one for the cluster-scoped resources`,
  },
  {
    title: 'a rule naming a shared and a tenant cluster-scoped resource together',
    object: role([
      { apiGroups: [''], resources: ['nodes', 'persistentvolumes'], resourceNames: ['x'], verbs: ['get'] },
    ]),
    code: 422,
    message: `Role "r" is invalid: rules[0].resourceNames: Invalid value: ["x"]: the rule's resources (nodes, persistentvolumes) mix namespaced or shared kinds and cluster-scoped ones, whose names the gateway converts differently (cluster-scoped names carry the tenant prefix upstream): split the rule into one for the namespaced and one for the cluster-scoped resources`,
  },
  {
    title: 'resourceNames with a wildcard resource',
    object: clusterRole(
      { name: 'wild' },
      { rules: [{ apiGroups: [''], resources: ['*'], resourceNames: ['dev'], verbs: ['get'] }] },
    ),
    code: 422,
    message:
      'ClusterRole "wild" is invalid: rules[0].resourceNames: Invalid value: ["dev"]: resourceNames cannot go with a wildcard in apiGroups or resources through the gateway, which must know whether they name cluster-scoped objects (those carry the tenant prefix upstream): name the API groups and resources',
  },
  {
    title: 'resourceNames without the rule\u2019s resources (a JSON patch into the rule)',
    object: clusterRole({ name: 'part' }, { rules: [{ resourceNames: ['dev'] }] }),
    code: 422,
    message:
      'ClusterRole "part" is invalid: rules[0].resources: Invalid value: null: resourceNames can only be converted together with the rule\'s resources',
  },
  {
    title: 'a ClusterRole labelled for another tenant',
    object: clusterRole({ name: 'x', labels: { 'kubezoo.io/tenant': 'bbbbbb' } }),
    code: 403,
    message: 'the label kubezoo.io/tenant is set by the gateway and must be "aaaaaa" or absent',
  },
  ...['system:masters', 'system:unauthenticated', 'system:nodes'].map((name) => ({
    title: `a binding to the group ${name}`,
    object: binding([group(name)]),
    code: 403,
    message: `the group "${name}" is one of the cluster's own identities, which tenants cannot name (only system:authenticated, system:serviceaccounts, system:serviceaccounts:<namespace> and system:serviceaccount:<namespace>:<name> stand for the tenant's own)`,
  })),
  ...['system:anonymous', 'system:kube-scheduler', 'system:node:node-1'].map((name) => ({
    title: `a binding to the user ${name}`,
    object: binding([user(name)]),
    code: 403,
    message: `the user "${name}" is one of the cluster's own identities, which tenants cannot name (only system:authenticated, system:serviceaccounts, system:serviceaccounts:<namespace> and system:serviceaccount:<namespace>:<name> stand for the tenant's own)`,
  })),
  {
    title: 'a SubjectAccessReview about the group system:masters',
    object: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'alice', groups: ['system:masters'], resourceAttributes: { resource: 'secrets', verb: 'get' } },
    },
    code: 403,
    message:
      'the group "system:masters" is one of the cluster\'s own identities, which tenants cannot name (only system:authenticated, system:serviceaccounts, system:serviceaccounts:<namespace> and system:serviceaccount:<namespace>:<name> stand for the tenant\'s own)',
  },
];

describe('translate: RBAC objects stay inside the tenant', () => {
  describe('round trips', () => {
    for (const trip of ROUND_TRIPS) {
      it(trip.title, () => {
        expect(objectUp(A, trip.tenant)).to.deep.equal(trip.upstream);
        expect(objectDown(A, trip.upstream)).to.deep.equal(trip.tenant);
        const seen = objectDown(B, trip.upstream);
        if (seen !== null) expect(JSON.stringify(seen)).to.not.contain('aaaaaa');
      });
    }
  });

  describe('down', () => {
    for (const { title, upstream, tenant } of DOWN)
      it(title, () => expect(objectDown(A, upstream)).to.deep.equal(tenant));
  });

  describe('refused up', () => {
    for (const { title, object, code, message } of REFUSALS) {
      it(title, () => {
        let error: unknown;
        try {
          objectUp(A, object);
        } catch (caught) {
          error = caught;
        }
        expect(error).to.be.instanceOf(TranslationError);
        expect([(error as TranslationError).code, (error as TranslationError).message]).to.deep.equal([code, message]);
      });
    }
  });
});
