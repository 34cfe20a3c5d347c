/**
 * The default ClusterRoles and ClusterRoleBindings kube-apiserver creates at start-up
 * (plugin/pkg/auth/authorizer/rbac/bootstrappolicy) that a kubectl user meets: cluster-admin for
 * `system:masters`; discovery, health, version and the self reviews for every authenticated user;
 * and the user-facing admin, edit and view roles. admin, edit and view are aggregated and carry
 * no rules of their own, as kube creates them; their rules come from the `system:aggregate-to-*`
 * roles (and each other) through `aggregatedRules`. Rule lists are sorted, as kube's rule
 * builder sorts them. Feature-gated rules (dynamic resource allocation) are left out.
 */
import type { PolicyRule } from './rbac-authorizer.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const READ_WRITE = [...READ, ...WRITE];

const AGGREGATE_TO_ADMIN = 'rbac.authorization.k8s.io/aggregate-to-admin';
const AGGREGATE_TO_EDIT = 'rbac.authorization.k8s.io/aggregate-to-edit';
const AGGREGATE_TO_VIEW = 'rbac.authorization.k8s.io/aggregate-to-view';

function resourceRule(verbs: string[], apiGroups: string[], resources: string[]): PolicyRule {
  return { verbs: [...verbs].sort(), apiGroups: [...apiGroups].sort(), resources: [...resources].sort() };
}

function urlRule(verbs: string[], nonResourceURLs: string[]): PolicyRule {
  return { verbs: [...verbs].sort(), nonResourceURLs: [...nonResourceURLs].sort() };
}

/** Every bootstrap object is labelled as such and reconciled by kube-apiserver on start-up. */
function bootstrapMetadata(name: string, labels: Record<string, string> = {}) {
  return {
    name,
    labels: { ...labels, 'kubernetes.io/bootstrapping': 'rbac-defaults' },
    annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
  };
}

function clusterRole(name: string, rules: PolicyRule[], labels?: Record<string, string>) {
  return { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: bootstrapMetadata(name, labels), rules };
}

function aggregatedClusterRole(name: string, aggregateLabel: string, labels?: Record<string, string>) {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    metadata: bootstrapMetadata(name, labels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregateLabel]: 'true' } }] },
  };
}

function groupsBinding(roleName: string, groups: string[]) {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: bootstrapMetadata(roleName),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: roleName },
    subjects: groups.map((name) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name })),
  };
}

export const BOOTSTRAP_CLUSTER_ROLES: any[] = [
  clusterRole('cluster-admin', [resourceRule(['*'], ['*'], ['*']), urlRule(['*'], ['*'])]),
  clusterRole('system:discovery', [
    urlRule(
      ['get'],
      [
        '/livez',
        '/readyz',
        '/healthz',
        '/version',
        '/version/',
        '/openapi',
        '/openapi/*',
        '/api',
        '/api/*',
        '/apis',
        '/apis/*',
      ],
    ),
  ]),
  clusterRole('system:basic-user', [
    resourceRule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
    resourceRule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
  ]),
  clusterRole('system:public-info-viewer', [
    urlRule(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/']),
  ]),
  aggregatedClusterRole('admin', AGGREGATE_TO_ADMIN),
  aggregatedClusterRole('edit', AGGREGATE_TO_EDIT, { [AGGREGATE_TO_ADMIN]: 'true' }),
  aggregatedClusterRole('view', AGGREGATE_TO_VIEW, { [AGGREGATE_TO_EDIT]: 'true' }),
  clusterRole(
    'system:aggregate-to-admin',
    [
      resourceRule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
      resourceRule(READ_WRITE, [RBAC_GROUP], ['roles', 'rolebindings']),
    ],
    { [AGGREGATE_TO_ADMIN]: 'true' },
  ),
  clusterRole(
    'system:aggregate-to-edit',
    [
      resourceRule(
        READ,
        [''],
        ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy'],
      ),
      resourceRule(['impersonate'], [''], ['serviceaccounts']),
      resourceRule(WRITE, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      resourceRule(['create'], [''], ['pods/eviction']),
      resourceRule(
        WRITE,
        [''],
        [
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'serviceaccounts',
          'services',
          'services/proxy',
          'persistentvolumeclaims',
          'configmaps',
          'secrets',
        ],
      ),
      resourceRule(['create'], [''], ['serviceaccounts/token']),
      resourceRule(WRITE, ['', 'events.k8s.io'], ['events']),
      resourceRule(
        WRITE,
        ['apps'],
        [
          'statefulsets',
          'statefulsets/scale',
          'daemonsets',
          'deployments',
          'deployments/scale',
          'deployments/rollback',
          'replicasets',
          'replicasets/scale',
        ],
      ),
      resourceRule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
      resourceRule(WRITE, ['batch'], ['jobs', 'cronjobs']),
      resourceRule(
        WRITE,
        ['extensions'],
        [
          'daemonsets',
          'deployments',
          'deployments/scale',
          'deployments/rollback',
          'ingresses',
          'replicasets',
          'replicasets/scale',
          'replicationcontrollers/scale',
          'networkpolicies',
        ],
      ),
      resourceRule(WRITE, ['policy'], ['poddisruptionbudgets']),
      resourceRule(WRITE, ['networking.k8s.io'], ['networkpolicies', 'ingresses']),
      resourceRule(READ_WRITE, ['coordination.k8s.io'], ['leases']),
    ],
    { [AGGREGATE_TO_EDIT]: 'true' },
  ),
  clusterRole(
    'system:aggregate-to-view',
    [
      resourceRule(
        READ,
        [''],
        [
          'pods',
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'serviceaccounts',
          'services',
          'services/status',
          'endpoints',
          'persistentvolumeclaims',
          'persistentvolumeclaims/status',
          'configmaps',
        ],
      ),
      resourceRule(
        READ,
        [''],
        [
          'limitranges',
          'resourcequotas',
          'bindings',
          'pods/status',
          'resourcequotas/status',
          'namespaces/status',
          'replicationcontrollers/status',
          'pods/log',
        ],
      ),
      // Reading namespaces at namespace scope lets a user read the namespace the binding is in.
      resourceRule(READ, [''], ['namespaces']),
      resourceRule(READ, ['', 'events.k8s.io'], ['events']),
      resourceRule(READ, ['discovery.k8s.io'], ['endpointslices']),
      resourceRule(
        READ,
        ['apps'],
        [
          'controllerrevisions',
          'statefulsets',
          'statefulsets/status',
          'statefulsets/scale',
          'daemonsets',
          'daemonsets/status',
          'deployments',
          'deployments/status',
          'deployments/scale',
          'replicasets',
          'replicasets/status',
          'replicasets/scale',
        ],
      ),
      resourceRule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      resourceRule(READ, ['batch'], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
      resourceRule(
        READ,
        ['extensions'],
        [
          'daemonsets',
          'daemonsets/status',
          'deployments',
          'deployments/scale',
          'deployments/status',
          'ingresses',
          'ingresses/status',
          'replicasets',
          'replicasets/scale',
          'replicasets/status',
          'replicationcontrollers/scale',
          'networkpolicies',
        ],
      ),
      resourceRule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      resourceRule(READ, ['networking.k8s.io'], ['networkpolicies', 'ingresses', 'ingresses/status']),
    ],
    { [AGGREGATE_TO_VIEW]: 'true' },
  ),
];

export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: any[] = [
  groupsBinding('cluster-admin', ['system:masters']),
  groupsBinding('system:discovery', ['system:authenticated']),
  groupsBinding('system:basic-user', ['system:authenticated']),
  groupsBinding('system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
];
