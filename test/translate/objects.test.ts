import { expect } from 'chai';
import fc from 'fast-check';
import { tenantContext, TranslationError, type TenantContext } from '../../translate/context.js';
import { objectDown, objectUp, textDown } from '../../translate/objects.js';
import { kindScope } from '../support/kind-scope.js';
import { testSeed } from '../support/seed.js';

type Json = Record<string, any>;

const kinds = kindScope();
const A = tenantContext('aaaaaa', kinds);
const B = tenantContext('bbbbbb', kinds);

/** Every string in a JSON value, keys included. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([key, inner]) => [key, ...stringsIn(inner)]);
  return [];
}

/** What another tenant makes of an upstream object: nothing, or nothing that carries `owner`'s prefix. */
function expectNothingOf(owner: TenantContext, viewer: TenantContext, upstream: Json): void {
  const seen = objectDown(viewer, upstream);
  if (seen !== null) expect(stringsIn(seen).filter((text) => text.includes(owner.prefix))).to.deep.equal([]);
}

/** The path of every value inside a JSON value. */
function pathsIn(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((inner, index) => [index, inner])
    : Object.entries(value);
  return entries.flatMap(([key, inner]) => [[...path, key], ...pathsIn(inner, [...path, key])]);
}

function refusal(run: () => unknown): TranslationError {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(TranslationError);
    return error as TranslationError;
  }
  throw new Error('expected a TranslationError');
}

interface RoundTrip {
  title: string;
  tenant: Json;
  upstream: Json;
  /** Shared kinds: every tenant sees the same object. */
  shared?: boolean;
}

const WEBHOOK_REQUIREMENT = { key: 'kubezoo.io/tenant', operator: 'In', values: ['aaaaaa'] };

const workload = (apiVersion: string, kind: string, priorityClassName: string) => ({
  apiVersion,
  kind,
  metadata: { name: 'web', namespace: 'dev' },
  spec: {
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { priorityClassName, containers: [{ name: 'c', image: 'nginx' }] },
    },
  },
});

const ROUND_TRIPS: RoundTrip[] = [
  {
    title:
      'Pod: namespace, owner in the same namespace, PriorityClass, RuntimeClass, StorageClass of an ephemeral volume',
    tenant: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web',
        namespace: 'default',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'u1', controller: true }],
      },
      spec: {
        nodeName: 'node-1',
        priorityClassName: 'high',
        runtimeClassName: 'gvisor',
        volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { storageClassName: 'fast' } } } }],
      },
    },
    upstream: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web',
        namespace: 'aaaaaa-default',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'u1', controller: true }],
      },
      spec: {
        nodeName: 'node-1',
        priorityClassName: 'aaaaaa-high',
        runtimeClassName: 'aaaaaa-gvisor',
        volumes: [
          { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { storageClassName: 'aaaaaa-fast' } } } },
        ],
      },
    },
  },
  {
    title: 'Pod owned by a Node (shared kind): the owner name stays',
    tenant: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'mirror',
        namespace: 'kube-system',
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'n' }],
      },
    },
    upstream: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'mirror',
        namespace: 'aaaaaa-kube-system',
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'n' }],
      },
    },
  },
  {
    title: 'Namespace: name prefixed, tenant label forced, metadata.name label follows the name',
    tenant: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'dev', labels: { team: 'x', 'kubernetes.io/metadata.name': 'dev' } },
      spec: { finalizers: ['kubernetes'] },
    },
    upstream: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'aaaaaa-dev',
        labels: { team: 'x', 'kubernetes.io/metadata.name': 'aaaaaa-dev', 'kubezoo.io/tenant': 'aaaaaa' },
      },
      spec: { finalizers: ['kubernetes'] },
    },
  },
  {
    title: 'Namespace without labels gets only the tenant label, which goes away down',
    tenant: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev' } },
    upstream: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'aaaaaa-dev', labels: { 'kubezoo.io/tenant': 'aaaaaa' } },
    },
  },
  {
    title: 'Namespace whose name starts with another tenant\u2019s prefix is simply prefixed',
    tenant: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bbbbbb-x' } },
    upstream: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'aaaaaa-bbbbbb-x', labels: { 'kubezoo.io/tenant': 'aaaaaa' } },
    },
  },
  {
    title: 'Node (shared): unchanged, and every tenant sees it',
    tenant: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { zone: 'a' } } },
    upstream: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { zone: 'a' } } },
    shared: true,
  },
  {
    title: 'ClusterRole: generateName prefixed, tenant CRD groups in rules prefixed, `*` and built-in groups kept',
    tenant: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { generateName: 'view-' },
      rules: [
        { apiGroups: ['', 'apps', 'stable.example.com'], resources: ['*'], verbs: ['get'] },
        { apiGroups: ['*'], resources: ['*'], verbs: ['list'] },
        { nonResourceURLs: ['/healthz'], verbs: ['get'] },
      ],
    },
    upstream: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { generateName: 'aaaaaa-view-', labels: { 'kubezoo.io/tenant': 'aaaaaa' } },
      rules: [
        { apiGroups: ['', 'apps', 'aaaaaa-stable.example.com'], resources: ['*'], verbs: ['get'] },
        { apiGroups: ['*'], resources: ['*'], verbs: ['list'] },
        { nonResourceURLs: ['/healthz'], verbs: ['get'] },
      ],
    },
  },
  {
    title: 'aggregated ClusterRole naming Namespaces: selectors narrowed to the tenant, names prefixed',
    tenant: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'agg', labels: { team: 'a' } },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { team: 'a' } }, {}] },
      rules: [{ apiGroups: [''], resources: ['namespaces'], resourceNames: ['dev'], verbs: ['get'] }],
    },
    upstream: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'aaaaaa-agg', labels: { team: 'a', 'kubezoo.io/tenant': 'aaaaaa' } },
      aggregationRule: {
        clusterRoleSelectors: [
          { matchLabels: { team: 'a' }, matchExpressions: [WEBHOOK_REQUIREMENT] },
          { matchExpressions: [WEBHOOK_REQUIREMENT] },
        ],
      },
      rules: [{ apiGroups: [''], resources: ['namespaces'], resourceNames: ['aaaaaa-dev'], verbs: ['get'] }],
    },
  },
  {
    title: 'Role in a namespace: rules the same way',
    tenant: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'r', namespace: 'dev' },
      rules: [{ apiGroups: ['stable.example.com'], resources: ['crontabs'], verbs: ['*'] }],
    },
    upstream: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'r', namespace: 'aaaaaa-dev' },
      rules: [{ apiGroups: ['aaaaaa-stable.example.com'], resources: ['crontabs'], verbs: ['*'] }],
    },
  },
  {
    title:
      'RoleBinding: User, Group, the tenant\u2019s own system: groups, service-account groups and users, ServiceAccount, roleRef to a ClusterRole',
    tenant: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb', namespace: 'dev' },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:authenticated' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:serviceaccounts' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:serviceaccounts:ci' },
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'system:serviceaccount:ci:bot' },
        { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    },
    upstream: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb', namespace: 'aaaaaa-dev' },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'aaaaaa-alice' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'aaaaaa-devs' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'aaaaaa-system:authenticated' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'aaaaaa-system:serviceaccounts' },
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:serviceaccounts:aaaaaa-ci' },
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'system:serviceaccount:aaaaaa-ci:bot' },
        { kind: 'ServiceAccount', name: 'builder', namespace: 'aaaaaa-ci' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'aaaaaa-view' },
    },
  },
  {
    title: 'RoleBinding to a Role: the roleRef stays',
    tenant: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb', namespace: 'dev' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
    },
    upstream: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb', namespace: 'aaaaaa-dev' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
    },
  },
  {
    title: 'ClusterRoleBinding: name, subjects and roleRef',
    tenant: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'admins' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'admin' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    },
    upstream: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'aaaaaa-admins', labels: { 'kubezoo.io/cluster-role-binding-of': 'aaaaaa' } },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'aaaaaa-admin' }],
      // Dormant upstream: the role `aaaaaa:…` never exists; grants in the tenant's namespaces carry the binding.
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'aaaaaa:cluster-admin' },
    },
  },
  {
    title: 'custom resource: apiVersion group, namespace, owner of a cluster-scoped custom kind',
    tenant: {
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
      metadata: {
        name: 'c',
        namespace: 'dev',
        ownerReferences: [{ apiVersion: 'stable.example.com/v1', kind: 'Widget', name: 'w', uid: 'u' }],
      },
      spec: { cronSpec: '* * * * */5' },
    },
    upstream: {
      apiVersion: 'aaaaaa-stable.example.com/v1',
      kind: 'CronTab',
      metadata: {
        name: 'c',
        namespace: 'aaaaaa-dev',
        ownerReferences: [{ apiVersion: 'aaaaaa-stable.example.com/v1', kind: 'Widget', name: 'aaaaaa-w', uid: 'u' }],
      },
      spec: { cronSpec: '* * * * */5' },
    },
  },
  {
    title: 'cluster-scoped custom resource: name prefixed',
    tenant: { apiVersion: 'stable.example.com/v1', kind: 'Widget', metadata: { name: 'w' } },
    upstream: { apiVersion: 'aaaaaa-stable.example.com/v1', kind: 'Widget', metadata: { name: 'aaaaaa-w' } },
  },
  {
    title: 'CustomResourceDefinition: name and spec.group, conversion webhook service; acceptedNames unchanged',
    tenant: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'crontabs.stable.example.com' },
      spec: {
        group: 'stable.example.com',
        names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab' },
        scope: 'Namespaced',
        conversion: {
          strategy: 'Webhook',
          webhook: {
            clientConfig: { service: { namespace: 'dev', name: 'conv', path: '/convert' } },
            conversionReviewVersions: ['v1'],
          },
        },
      },
      status: { acceptedNames: { plural: 'crontabs', kind: 'CronTab' }, storedVersions: ['v1'] },
    },
    upstream: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'crontabs.aaaaaa-stable.example.com' },
      spec: {
        group: 'aaaaaa-stable.example.com',
        names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab' },
        scope: 'Namespaced',
        conversion: {
          strategy: 'Webhook',
          webhook: {
            clientConfig: { service: { namespace: 'aaaaaa-dev', name: 'conv', path: '/convert' } },
            conversionReviewVersions: ['v1'],
          },
        },
      },
      status: { acceptedNames: { plural: 'crontabs', kind: 'CronTab' }, storedVersions: ['v1'] },
    },
  },
  {
    title:
      'core Event about a PersistentVolume: involvedObject name prefixed (cluster-scoped), related Pod by namespace',
    tenant: {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'pv1.17', namespace: 'default' },
      involvedObject: { apiVersion: 'v1', kind: 'PersistentVolume', name: 'pv1', uid: 'u' },
      related: { apiVersion: 'v1', kind: 'Pod', namespace: 'dev', name: 'web' },
      reason: 'Provisioned',
      message: 'volume provisioned',
      reportingComponent: 'pv-controller',
      source: { component: 'pv-controller' },
    },
    upstream: {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'pv1.17', namespace: 'aaaaaa-default' },
      involvedObject: { apiVersion: 'v1', kind: 'PersistentVolume', name: 'aaaaaa-pv1', uid: 'u' },
      related: { apiVersion: 'v1', kind: 'Pod', namespace: 'aaaaaa-dev', name: 'web' },
      reason: 'Provisioned',
      message: 'volume provisioned',
      reportingComponent: 'pv-controller',
      source: { component: 'pv-controller' },
    },
  },
  {
    title: 'events.k8s.io Event: regarding a custom resource, related Node unchanged',
    tenant: {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'dev' },
      regarding: { apiVersion: 'stable.example.com/v1', kind: 'CronTab', namespace: 'dev', name: 'c' },
      related: { apiVersion: 'v1', kind: 'Node', name: 'node-1' },
      note: 'scheduled',
      reportingController: 'x',
    },
    upstream: {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'aaaaaa-dev' },
      regarding: { apiVersion: 'aaaaaa-stable.example.com/v1', kind: 'CronTab', namespace: 'aaaaaa-dev', name: 'c' },
      related: { apiVersion: 'v1', kind: 'Node', name: 'node-1' },
      note: 'scheduled',
      reportingController: 'x',
    },
  },
  {
    title: 'Endpoints: targetRefs of ready and not-ready addresses',
    tenant: {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'svc', namespace: 'dev' },
      subsets: [
        {
          addresses: [{ ip: '10.0.0.1', targetRef: { kind: 'Pod', namespace: 'dev', name: 'a' } }],
          notReadyAddresses: [{ ip: '10.0.0.2', targetRef: { kind: 'Pod', namespace: 'dev', name: 'b' } }],
          ports: [{ port: 80 }],
        },
      ],
    },
    upstream: {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'svc', namespace: 'aaaaaa-dev' },
      subsets: [
        {
          addresses: [{ ip: '10.0.0.1', targetRef: { kind: 'Pod', namespace: 'aaaaaa-dev', name: 'a' } }],
          notReadyAddresses: [{ ip: '10.0.0.2', targetRef: { kind: 'Pod', namespace: 'aaaaaa-dev', name: 'b' } }],
          ports: [{ port: 80 }],
        },
      ],
    },
  },
  {
    title: 'EndpointSlice: endpoint targetRefs',
    tenant: {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'svc-1', namespace: 'dev' },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'], targetRef: { kind: 'Pod', namespace: 'dev', name: 'a' } }],
    },
    upstream: {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'svc-1', namespace: 'aaaaaa-dev' },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'], targetRef: { kind: 'Pod', namespace: 'aaaaaa-dev', name: 'a' } }],
    },
  },
  {
    title: 'PersistentVolume: name, claimRef namespace, StorageClass, CSI secret namespace',
    tenant: {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv1' },
      spec: {
        capacity: { storage: '1Gi' },
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'dev', name: 'data' },
        storageClassName: 'fast',
        csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { name: 's', namespace: 'dev' } },
      },
    },
    upstream: {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'aaaaaa-pv1' },
      spec: {
        capacity: { storage: '1Gi' },
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'aaaaaa-dev', name: 'data' },
        storageClassName: 'aaaaaa-fast',
        csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { name: 's', namespace: 'aaaaaa-dev' } },
      },
    },
  },
  {
    title: 'PersistentVolumeClaim: volumeName, StorageClass and its legacy annotation',
    tenant: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: 'dev', annotations: { 'volume.beta.kubernetes.io/storage-class': 'fast' } },
      spec: { volumeName: 'pv1', storageClassName: 'fast' },
    },
    upstream: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: 'data',
        namespace: 'aaaaaa-dev',
        annotations: { 'volume.beta.kubernetes.io/storage-class': 'aaaaaa-fast' },
      },
      spec: { volumeName: 'aaaaaa-pv1', storageClassName: 'aaaaaa-fast' },
    },
  },
  {
    title: 'PersistentVolumeClaim with storageClassName "" (no class) keeps it',
    tenant: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: 'dev' },
      spec: { storageClassName: '' },
    },
    upstream: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: 'aaaaaa-dev' },
      spec: { storageClassName: '' },
    },
  },
  {
    title: 'storage.k8s.io StorageClass: name prefixed',
    tenant: {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'fast' },
      provisioner: 'csi.example.com',
    },
    upstream: {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'aaaaaa-fast' },
      provisioner: 'csi.example.com',
    },
  },
  {
    title: 'PriorityClass: name prefixed',
    tenant: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000 },
    upstream: {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'aaaaaa-high' },
      value: 1000,
    },
  },
  ...[
    ['apps/v1', 'Deployment'],
    ['apps/v1', 'ReplicaSet'],
    ['apps/v1', 'DaemonSet'],
    ['batch/v1', 'Job'],
    ['v1', 'ReplicationController'],
  ].map(([apiVersion, kind]) => ({
    title: `${kind}: pod template priorityClassName`,
    tenant: workload(apiVersion, kind, 'high'),
    upstream: { ...workload(apiVersion, kind, 'aaaaaa-high'), metadata: { name: 'web', namespace: 'aaaaaa-dev' } },
  })),
  {
    title: 'StatefulSet: pod template and claim templates',
    tenant: {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'dev' },
      spec: {
        template: { spec: { priorityClassName: 'high' } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { storageClassName: 'fast' } }],
      },
    },
    upstream: {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'aaaaaa-dev' },
      spec: {
        template: { spec: { priorityClassName: 'aaaaaa-high' } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { storageClassName: 'aaaaaa-fast' } }],
      },
    },
  },
  {
    title: 'ControllerRevision: the recorded template pod spec',
    tenant: {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: 'db-5b7bc6bd9d', namespace: 'dev' },
      data: { spec: { template: { spec: { priorityClassName: 'high' }, $patch: 'replace' } } },
      revision: 1,
    },
    upstream: {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: 'db-5b7bc6bd9d', namespace: 'aaaaaa-dev' },
      data: { spec: { template: { spec: { priorityClassName: 'aaaaaa-high' }, $patch: 'replace' } } },
      revision: 1,
    },
  },
  {
    title: 'CronJob: job template pod spec',
    tenant: {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'c', namespace: 'dev' },
      spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { priorityClassName: 'low' } } } } },
    },
    upstream: {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'c', namespace: 'aaaaaa-dev' },
      spec: {
        schedule: '* * * * *',
        jobTemplate: { spec: { template: { spec: { priorityClassName: 'aaaaaa-low' } } } },
      },
    },
  },
  {
    title: 'PodTemplate: template pod spec',
    tenant: {
      apiVersion: 'v1',
      kind: 'PodTemplate',
      metadata: { name: 't', namespace: 'dev' },
      template: { spec: { priorityClassName: 'low' } },
    },
    upstream: {
      apiVersion: 'v1',
      kind: 'PodTemplate',
      metadata: { name: 't', namespace: 'aaaaaa-dev' },
      template: { spec: { priorityClassName: 'aaaaaa-low' } },
    },
  },
  {
    title: 'Ingress: ingressClassName',
    tenant: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'i', namespace: 'dev' },
      spec: { ingressClassName: 'nginx', rules: [{ host: 'a.example.com' }] },
    },
    upstream: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'i', namespace: 'aaaaaa-dev' },
      spec: { ingressClassName: 'aaaaaa-nginx', rules: [{ host: 'a.example.com' }] },
    },
  },
  {
    title:
      'MutatingWebhookConfiguration: name, service namespace, tenant requirement AND-ed in, rules scoped to namespaces',
    tenant: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'inject' },
      webhooks: [
        {
          name: 'inject.example.com',
          clientConfig: { service: { namespace: 'dev', name: 'injector', path: '/mutate' }, caBundle: 'Q0E=' },
          namespaceSelector: {
            matchLabels: { inject: 'yes' },
            matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }],
          },
          rules: [
            { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: 'Namespaced' },
          ],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    },
    upstream: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'aaaaaa-inject' },
      webhooks: [
        {
          name: 'inject.example.com',
          clientConfig: { service: { namespace: 'aaaaaa-dev', name: 'injector', path: '/mutate' }, caBundle: 'Q0E=' },
          namespaceSelector: {
            matchLabels: { inject: 'yes' },
            matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }, WEBHOOK_REQUIREMENT],
          },
          rules: [
            { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: 'Namespaced' },
          ],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    },
  },
  {
    title: 'ValidatingWebhookConfiguration with an empty namespaceSelector',
    tenant: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'v' },
      webhooks: [
        { name: 'v.example.com', clientConfig: { service: { namespace: 'dev', name: 'v' } }, namespaceSelector: {} },
      ],
    },
    upstream: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'aaaaaa-v' },
      webhooks: [
        {
          name: 'v.example.com',
          clientConfig: { service: { namespace: 'aaaaaa-dev', name: 'v' } },
          namespaceSelector: { matchExpressions: [WEBHOOK_REQUIREMENT] },
        },
      ],
    },
  },
  {
    title: 'SubjectAccessReview: user, groups, resource namespace and custom group; answer kept',
    tenant: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'alice',
        groups: ['devs', 'system:authenticated'],
        resourceAttributes: { namespace: 'dev', group: 'stable.example.com', resource: 'crontabs', verb: 'get' },
      },
      status: { allowed: true },
    },
    upstream: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'aaaaaa-alice',
        groups: ['aaaaaa-devs', 'aaaaaa-system:authenticated'],
        resourceAttributes: {
          namespace: 'aaaaaa-dev',
          group: 'aaaaaa-stable.example.com',
          resource: 'crontabs',
          verb: 'get',
        },
      },
      status: { allowed: true },
    },
  },
  {
    title: 'SubjectAccessReview about a cluster-scoped object: the name is prefixed',
    tenant: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'alice', resourceAttributes: { group: '', resource: 'namespaces', name: 'dev', verb: 'delete' } },
    },
    upstream: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'aaaaaa-alice',
        resourceAttributes: { group: '', resource: 'namespaces', name: 'aaaaaa-dev', verb: 'delete' },
      },
    },
  },
  {
    title: 'LocalSubjectAccessReview: metadata.namespace and the resource namespace',
    tenant: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'LocalSubjectAccessReview',
      metadata: { namespace: 'dev' },
      spec: { user: 'alice', resourceAttributes: { namespace: 'dev', resource: 'pods', verb: 'list' } },
    },
    upstream: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'LocalSubjectAccessReview',
      metadata: { namespace: 'aaaaaa-dev' },
      spec: { user: 'aaaaaa-alice', resourceAttributes: { namespace: 'aaaaaa-dev', resource: 'pods', verb: 'list' } },
    },
  },
  {
    title: 'SelfSubjectAccessReview: resource namespace and group (kubectl auth can-i)',
    tenant: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {
        resourceAttributes: { namespace: 'dev', group: 'stable.example.com', resource: 'crontabs', verb: 'create' },
      },
      status: { allowed: false },
    },
    upstream: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {
        resourceAttributes: {
          namespace: 'aaaaaa-dev',
          group: 'aaaaaa-stable.example.com',
          resource: 'crontabs',
          verb: 'create',
        },
      },
      status: { allowed: false },
    },
  },
  {
    title: 'SelfSubjectRulesReview: namespace and rule groups',
    tenant: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: 'dev' },
      status: {
        resourceRules: [{ verbs: ['get'], apiGroups: ['stable.example.com'], resources: ['crontabs'] }],
        incomplete: false,
      },
    },
    upstream: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: 'aaaaaa-dev' },
      status: {
        resourceRules: [{ verbs: ['get'], apiGroups: ['aaaaaa-stable.example.com'], resources: ['crontabs'] }],
        incomplete: false,
      },
    },
  },
  {
    title: 'PodList: items without kind and apiVersion convert as Pods',
    tenant: {
      apiVersion: 'v1',
      kind: 'PodList',
      metadata: { resourceVersion: '7' },
      items: [{ metadata: { name: 'a', namespace: 'dev' }, spec: { priorityClassName: 'high' } }],
    },
    upstream: {
      apiVersion: 'v1',
      kind: 'PodList',
      metadata: { resourceVersion: '7' },
      items: [{ metadata: { name: 'a', namespace: 'aaaaaa-dev' }, spec: { priorityClassName: 'aaaaaa-high' } }],
    },
  },
  {
    title: 'merge patch body for a Deployment: converts what is there and invents nothing',
    tenant: { apiVersion: 'apps/v1', kind: 'Deployment', spec: { template: { spec: { priorityClassName: 'high' } } } },
    upstream: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      spec: { template: { spec: { priorityClassName: 'aaaaaa-high' } } },
    },
  },
  {
    title: 'merge patch body for a PersistentVolume without metadata',
    tenant: { apiVersion: 'v1', kind: 'PersistentVolume', spec: { storageClassName: 'fast' } },
    upstream: { apiVersion: 'v1', kind: 'PersistentVolume', spec: { storageClassName: 'aaaaaa-fast' } },
  },
];

interface DownOnly {
  title: string;
  upstream: Json;
  /** What tenant aaaaaa sees; null when the object is foreign. */
  tenant: Json | null;
}

const DOWN_ONLY: DownOnly[] = [
  {
    title:
      'RoleBinding listing subjects that are not the tenant\u2019s (another tenant\u2019s, the cluster\u2019s own system: identities): converts, without them',
    upstream: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb', namespace: 'aaaaaa-dev' },
      subjects: [
        { kind: 'User', name: 'aaaaaa-alice' },
        { kind: 'User', name: 'bob' },
        { kind: 'Group', name: 'bbbbbb-devs' },
        { kind: 'Group', name: 'system:serviceaccounts:bbbbbb-ci' },
        { kind: 'User', name: 'system:serviceaccount:bbbbbb-ci:bot' },
        { kind: 'ServiceAccount', name: 'x', namespace: 'kube-system' },
        { kind: 'Group', name: 'system:masters' },
        { kind: 'Group', name: 'system:authenticated' },
        { kind: 'Group', name: 'bbbbbb-system:authenticated' },
        { kind: 'Group', name: 'aaaaaa-system:masters' },
        { kind: 'User', name: 'system:kube-scheduler' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
    },
    tenant: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb', namespace: 'dev' },
      subjects: [{ kind: 'User', name: 'alice' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
    },
  },
  {
    title: 'RoleBinding to a ClusterRole that is not the tenant\u2019s is foreign',
    upstream: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb', namespace: 'aaaaaa-dev' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
    },
    tenant: null,
  },
  {
    title: 'ClusterRole aggregating another tenant\u2019s rules: foreign groups and emptied rules dropped',
    upstream: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'aaaaaa-agg' },
      rules: [
        { apiGroups: ['bbbbbb-stable.example.com'], resources: ['*'], verbs: ['*'] },
        { apiGroups: ['apps', 'bbbbbb-x.io', 'aaaaaa-stable.example.com'], resources: ['*'], verbs: ['get'] },
      ],
    },
    tenant: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'agg' },
      rules: [{ apiGroups: ['apps', 'stable.example.com'], resources: ['*'], verbs: ['get'] }],
    },
  },
  {
    title: 'Pod: owner references that are not the tenant\u2019s are dropped, foreign class names left out',
    upstream: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        namespace: 'aaaaaa-dev',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: '1' },
          { apiVersion: 'bbbbbb-stable.example.com/v1', kind: 'CronTab', name: 'c', uid: '2' },
          { apiVersion: 'aaaaaa-stable.example.com/v1', kind: 'Widget', name: 'bbbbbb-w', uid: '3' },
        ],
      },
      spec: { priorityClassName: 'system-node-critical', runtimeClassName: 'bbbbbb-gvisor' },
    },
    tenant: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        namespace: 'dev',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: '1' }],
      },
      spec: {},
    },
  },
  {
    title: 'PersistentVolume of another tenant is foreign',
    upstream: {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'bbbbbb-pv1' },
      spec: { claimRef: { namespace: 'bbbbbb-dev', name: 'data' } },
    },
    tenant: null,
  },
  {
    title: 'PersistentVolume bound to a claim that is not the tenant\u2019s: claimRef and StorageClass left out',
    upstream: {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'aaaaaa-pv1' },
      spec: {
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'bbbbbb-dev', name: 'data' },
        storageClassName: 'standard',
      },
    },
    tenant: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' }, spec: {} },
  },
  {
    title: 'PersistentVolumeClaim bound to a dynamically provisioned (unprefixed) volume: volumeName left out',
    upstream: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: 'aaaaaa-dev' },
      spec: { volumeName: 'pvc-1234', storageClassName: 'aaaaaa-fast' },
    },
    tenant: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: 'dev' },
      spec: { storageClassName: 'fast' },
    },
  },
  {
    title: 'Ingress naming an IngressClass that is not the tenant\u2019s: left out',
    upstream: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'i', namespace: 'aaaaaa-dev' },
      spec: { ingressClassName: 'nginx' },
    },
    tenant: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'i', namespace: 'dev' },
      spec: {},
    },
  },
  {
    title: 'core Event: message loses the prefix, a foreign involvedObject is left out',
    upstream: {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'aaaaaa-dev' },
      involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: 'bbbbbb-dev', name: 'web' },
      message: 'Successfully assigned aaaaaa-dev/web to node-1',
    },
    tenant: {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'dev' },
      message: 'Successfully assigned dev/web to node-1',
    },
  },
  {
    title: 'events.k8s.io Event: note loses the prefix',
    upstream: {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'aaaaaa-dev' },
      regarding: { kind: 'Namespace', apiVersion: 'v1', name: 'aaaaaa-dev' },
      note: 'namespace aaaaaa-dev is terminating',
    },
    tenant: {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'dev' },
      regarding: { kind: 'Namespace', apiVersion: 'v1', name: 'dev' },
      note: 'namespace dev is terminating',
    },
  },
  {
    title: 'Endpoints: a targetRef into a foreign namespace is left out, the address kept',
    upstream: {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 's', namespace: 'aaaaaa-dev' },
      subsets: [{ addresses: [{ ip: '10.0.0.1', targetRef: { kind: 'Pod', namespace: 'bbbbbb-dev', name: 'a' } }] }],
    },
    tenant: {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 's', namespace: 'dev' },
      subsets: [{ addresses: [{ ip: '10.0.0.1' }] }],
    },
  },
  {
    title: 'Namespace without the prefix (the admin\u2019s) is foreign',
    upstream: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } },
    tenant: null,
  },
  {
    title: 'Namespace of another tenant is foreign',
    upstream: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'bbbbbb-dev', labels: { 'kubezoo.io/tenant': 'bbbbbb' } },
    },
    tenant: null,
  },
  {
    title: 'ConfigMap in another tenant\u2019s namespace is foreign',
    upstream: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'bbbbbb-dev' } },
    tenant: null,
  },
  {
    title: 'custom resource of another tenant\u2019s group is foreign, even in this tenant\u2019s namespace',
    upstream: {
      apiVersion: 'bbbbbb-stable.example.com/v1',
      kind: 'CronTab',
      metadata: { name: 'c', namespace: 'aaaaaa-dev' },
    },
    tenant: null,
  },
  {
    title: 'CRD of another tenant is foreign',
    upstream: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'crontabs.bbbbbb-stable.example.com' },
      spec: { group: 'bbbbbb-stable.example.com' },
    },
    tenant: null,
  },
  {
    title: 'CRD of the admin is foreign',
    upstream: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'tenants.tenant.kubezoo.io' },
      spec: { group: 'tenant.kubezoo.io' },
    },
    tenant: null,
  },
  {
    title: 'webhook configuration of the admin is foreign',
    upstream: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'policy' },
      webhooks: [],
    },
    tenant: null,
  },
  {
    title: 'TokenReview: the user and groups lose the prefix',
    upstream: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token: 't' },
      status: {
        authenticated: true,
        user: {
          username: 'aaaaaa-alice',
          groups: ['aaaaaa-devs', 'system:authenticated', 'system:serviceaccounts:aaaaaa-ci', 'bbbbbb-devs'],
        },
      },
    },
    tenant: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token: 't' },
      status: {
        authenticated: true,
        user: { username: 'alice', groups: ['devs', 'system:authenticated', 'system:serviceaccounts:ci'] },
      },
    },
  },
  {
    title: 'TokenReview of another tenant\u2019s token authenticates no one the tenant may know',
    upstream: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token: 't' },
      status: { authenticated: true, user: { username: 'bbbbbb-bob', groups: ['system:authenticated'] } },
    },
    tenant: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token: 't' },
      status: { authenticated: false },
    },
  },
  {
    title: 'SelfSubjectReview (kubectl auth whoami): user info loses the prefix',
    upstream: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
      status: { userInfo: { username: 'aaaaaa-admin', groups: ['system:authenticated'] } },
    },
    tenant: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
      status: { userInfo: { username: 'admin', groups: ['system:authenticated'] } },
    },
  },
  {
    title: 'SubjectAccessReview: the reason loses the prefix',
    upstream: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'aaaaaa-alice' },
      status: {
        allowed: true,
        reason:
          'RBAC: allowed by ClusterRoleBinding "aaaaaa-admins" of ClusterRole "aaaaaa-cluster-admin" to User "aaaaaa-alice"',
      },
    },
    tenant: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'alice' },
      status: {
        allowed: true,
        reason: 'RBAC: allowed by ClusterRoleBinding "admins" of ClusterRole "cluster-admin" to User "alice"',
      },
    },
  },
  {
    title: 'List: foreign items dropped, the list itself kept',
    upstream: {
      apiVersion: 'v1',
      kind: 'List',
      metadata: {},
      items: [
        {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: 'aaaaaa-dev', labels: { 'kubezoo.io/tenant': 'aaaaaa' } },
        },
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bbbbbb-dev' } },
        {
          apiVersion: 'bbbbbb-stable.example.com/v1',
          kind: 'CronTab',
          metadata: { name: 'c', namespace: 'aaaaaa-dev' },
        },
        { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } },
      ],
    },
    tenant: {
      apiVersion: 'v1',
      kind: 'List',
      metadata: {},
      items: [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev' } },
        { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } },
      ],
    },
  },
  {
    title: 'typed list of another tenant\u2019s custom resources is foreign as a whole',
    upstream: { apiVersion: 'bbbbbb-stable.example.com/v1', kind: 'CronTabList', metadata: {}, items: [] },
    tenant: null,
  },
];

interface Refusal {
  title: string;
  object: Json;
  code: number;
  reason: string;
  message: string;
  details?: Json;
}

const REFUSALS: Refusal[] = [
  {
    title: 'Namespace labelled for another tenant',
    object: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'dev', labels: { 'kubezoo.io/tenant': 'bbbbbb' } },
    },
    code: 403,
    reason: 'Forbidden',
    message: 'the label kubezoo.io/tenant is set by the gateway and must be "aaaaaa" or absent',
  },
  {
    title: 'Namespace name over 56 characters',
    object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n'.repeat(57) } },
    code: 422,
    reason: 'Invalid',
    message: `Namespace "${'n'.repeat(57)}" is invalid: metadata.name: Invalid value: "${'n'.repeat(57)}": must be no more than 56 characters`,
    details: {
      name: 'n'.repeat(57),
      kind: 'Namespace',
      group: '',
      causes: [
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.name',
          message: `Invalid value: "${'n'.repeat(57)}": must be no more than 56 characters`,
        },
      ],
    },
  },
  {
    title: 'ClusterRole name over 246 characters',
    object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r'.repeat(247) } },
    code: 422,
    reason: 'Invalid',
    message: `ClusterRole "${'r'.repeat(247)}" is invalid: metadata.name: Invalid value: "${'r'.repeat(247)}": must be no more than 246 characters`,
    details: {
      name: 'r'.repeat(247),
      kind: 'ClusterRole',
      group: 'rbac.authorization.k8s.io',
      causes: [
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.name',
          message: `Invalid value: "${'r'.repeat(247)}": must be no more than 246 characters`,
        },
      ],
    },
  },
  {
    title: 'CRD group over 246 characters',
    object: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'xs.example.com' },
      spec: { group: `${'g'.repeat(235)}.example.com` },
    },
    code: 422,
    reason: 'Invalid',
    message: `CustomResourceDefinition "xs.example.com" is invalid: spec.group: Invalid value: "${'g'.repeat(235)}.example.com": must be no more than 246 characters`,
  },
  {
    title: 'CRD in a built-in group',
    object: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.apps' },
      spec: { group: 'apps' },
    },
    code: 403,
    reason: 'Forbidden',
    message: 'CustomResourceDefinitions in the built-in API group "apps" are not allowed for tenants',
  },
  {
    title: 'webhook by URL',
    object: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'v' },
      webhooks: [{ name: 'v.example.com', clientConfig: { url: 'https://10.0.0.1/validate' } }],
    },
    code: 403,
    reason: 'Forbidden',
    message: 'webhooks by URL are not allowed for tenants',
  },
  {
    title: 'CRD conversion webhook by URL',
    object: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'crontabs.stable.example.com' },
      spec: {
        group: 'stable.example.com',
        conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://10.0.0.1/convert' } } },
      },
    },
    code: 403,
    reason: 'Forbidden',
    message: 'webhooks by URL are not allowed for tenants',
  },
  {
    title: 'object of an admin-only group',
    object: { apiVersion: 'tenant.kubezoo.io/v1alpha1', kind: 'Tenant', metadata: { name: 'bbbbbb' } },
    code: 403,
    reason: 'Forbidden',
    message: 'the API group "tenant.kubezoo.io" is not available to tenants',
  },
];

describe('translate: objects', () => {
  describe('round trips: up gives the upstream object, down gives the tenant\u2019s back, another tenant sees nothing of it', () => {
    for (const trip of ROUND_TRIPS) {
      it(trip.title, () => {
        const sent = structuredClone(trip.tenant);
        expect(objectUp(A, trip.tenant)).to.deep.equal(trip.upstream);
        expect(trip.tenant, 'input left as it was').to.deep.equal(sent);
        expect(objectDown(A, trip.upstream)).to.deep.equal(trip.tenant);
        if (trip.shared) expect(objectDown(B, trip.upstream)).to.deep.equal(trip.tenant);
        else expectNothingOf(A, B, trip.upstream);
      });
    }
  });

  describe('down', () => {
    for (const { title, upstream, tenant } of DOWN_ONLY) {
      it(title, () => {
        const received = structuredClone(upstream);
        expect(objectDown(A, upstream)).to.deep.equal(tenant);
        expect(upstream, 'input left as it was').to.deep.equal(received);
      });
    }
  });

  describe('refused up', () => {
    for (const { title, object, code, reason, message, details } of REFUSALS) {
      it(title, () => {
        const error = refusal(() => objectUp(A, object));
        expect({ code: error.code, reason: error.reason, message: error.message }).to.deep.equal({
          code,
          reason,
          message,
        });
        if (details) expect(error.details).to.deep.equal(details);
      });
    }

    it('accepts a Namespace the tenant labels with its own id', () => {
      const upstream = objectUp(A, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'dev', labels: { 'kubezoo.io/tenant': 'aaaaaa', a: 'b' } },
      });
      expect(upstream.metadata.labels).to.deep.equal({ 'kubezoo.io/tenant': 'aaaaaa', a: 'b' });
    });

    it('accepts names at exactly the limit', () => {
      expect(
        objectUp(A, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n'.repeat(56) } }).metadata.name,
      ).to.equal(`aaaaaa-${'n'.repeat(56)}`);
      expect(
        objectUp(A, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 's'.repeat(246) } })
          .metadata.name,
      ).to.have.length(253);
    });
  });

  describe('tenants whose names look alike', () => {
    it('a PersistentVolume one tenant creates round-trips, and another tenant sees it as foreign', () => {
      const pv = {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'pv1' },
        spec: { storageClassName: 'fast' },
      };
      const upstream = objectUp(A, pv);
      expect(objectDown(A, upstream)).to.deep.equal(pv);
      expect(objectDown(B, upstream)).to.equal(null);
    });

    it('a namespace named with another tenant\u2019s prefix never becomes that tenant\u2019s', () => {
      const upstream = objectUp(A, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bbbbbb-x' } });
      expect(upstream.metadata.name).to.equal('aaaaaa-bbbbbb-x');
      expect(objectDown(B, upstream)).to.equal(null);
      expect(objectDown(A, upstream)?.metadata.name).to.equal('bbbbbb-x');
    });

    it('a ConfigMap in such a namespace stays the first tenant\u2019s', () => {
      const upstream = objectUp(A, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'c', namespace: 'bbbbbb-x' },
      });
      expect(objectDown(B, upstream)).to.equal(null);
      expect(objectDown(A, upstream)?.metadata.namespace).to.equal('bbbbbb-x');
    });
  });

  describe('textDown', () => {
    const cases: [string, string][] = [
      ['namespaces "aaaaaa-dev" not found', 'namespaces "dev" not found'],
      [
        'User "aaaaaa-alice" cannot list resource "pods" in API group "" in the namespace "aaaaaa-dev"',
        'User "alice" cannot list resource "pods" in API group "" in the namespace "dev"',
      ],
      ['system:serviceaccount:aaaaaa-ci:bot', 'system:serviceaccount:ci:bot'],
      ['crontabs.aaaaaa-stable.example.com "c" not found', 'crontabs.stable.example.com "c" not found'],
      ['aaaaaa-aaaaaa-x', 'aaaaaa-x'],
      ['xaaaaaa-y and bbbbbb-z', 'xaaaaaa-y and bbbbbb-z'],
    ];
    for (const [upstream, tenant] of cases) {
      it(`${JSON.stringify(upstream)} → ${JSON.stringify(tenant)}`, () =>
        expect(textDown(A, upstream)).to.equal(tenant));
    }
  });

  describe('properties', () => {
    const tenantId = fc.stringMatching(/^[a-z0-9]{6}$/);
    const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,18}[a-z0-9])?$/);
    const tenants = fc.tuple(tenantId, tenantId).filter(([one, other]) => one !== other);

    /** A name, sometimes starting with another tenant's prefix. */
    const name = (other: string) =>
      fc.oneof(
        label,
        label.map((base) => `${other}-${base}`),
      );

    const validObject = (other: string): fc.Arbitrary<Json> =>
      fc.oneof(
        fc.record({
          apiVersion: fc.constant('v1'),
          kind: fc.constant('ConfigMap'),
          metadata: fc.record({ name: name(other), namespace: name(other) }),
          data: fc.dictionary(label, fc.string()),
        }),
        fc.record({
          apiVersion: fc.constant('v1'),
          kind: fc.constant('Namespace'),
          metadata: fc.record(
            { name: name(other), labels: fc.dictionary(label, label, { minKeys: 1 }) },
            { requiredKeys: ['name'] },
          ),
        }),
        fc.record({
          apiVersion: fc.constant('storage.k8s.io/v1'),
          kind: fc.constant('StorageClass'),
          metadata: fc.record({ name: name(other) }),
          provisioner: label,
        }),
        fc.record({
          apiVersion: fc.constant('v1'),
          kind: fc.constant('PersistentVolume'),
          metadata: fc.record({ name: name(other) }),
          spec: fc.record(
            {
              storageClassName: name(other),
              claimRef: fc.record({
                kind: fc.constant('PersistentVolumeClaim'),
                namespace: name(other),
                name: name(other),
              }),
            },
            { requiredKeys: [] },
          ),
        }),
        fc.record({
          apiVersion: fc.constant('v1'),
          kind: fc.constant('Pod'),
          metadata: fc.record({ name: name(other), namespace: name(other) }),
          spec: fc.record({ priorityClassName: name(other), nodeName: label }, { requiredKeys: [] }),
        }),
        fc.record({
          apiVersion: fc.constant('rbac.authorization.k8s.io/v1'),
          kind: fc.constant('RoleBinding'),
          metadata: fc.record({ name: name(other), namespace: name(other) }),
          subjects: fc.array(
            fc.oneof(
              fc.record({
                kind: fc.constant('User'),
                name: fc.oneof(
                  name(other),
                  fc
                    .tuple(name(other), label)
                    .map(([namespace, account]) => `system:serviceaccount:${namespace}:${account}`),
                ),
              }),
              fc.record({
                kind: fc.constant('Group'),
                name: fc.oneof(
                  name(other),
                  name(other).map((namespace) => `system:serviceaccounts:${namespace}`),
                  fc.constantFrom('system:authenticated', 'system:serviceaccounts'),
                ),
              }),
              fc.record({ kind: fc.constant('ServiceAccount'), name: label, namespace: name(other) }),
            ),
            { maxLength: 4 },
          ),
          roleRef: fc.record({
            apiGroup: fc.constant('rbac.authorization.k8s.io'),
            kind: fc.constantFrom('Role', 'ClusterRole'),
            name: name(other),
          }),
        }),
        fc.record({
          apiVersion: fc.constant('rbac.authorization.k8s.io/v1'),
          kind: fc.constant('ClusterRole'),
          metadata: fc.record({ name: name(other) }),
          rules: fc.array(
            fc.record({
              apiGroups: fc.array(fc.constantFrom('', 'apps', '*', 'stable.example.com', 'x.io'), {
                minLength: 1,
                maxLength: 3,
              }),
              verbs: fc.constant(['get']),
            }),
            { maxLength: 3 },
          ),
        }),
        fc.record({
          apiVersion: fc.constant('stable.example.com/v1'),
          kind: fc.constant('CronTab'),
          metadata: fc.record({ name: name(other), namespace: name(other) }),
        }),
        label.map((plural) => ({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: `${plural}.stable.example.com` },
          spec: { group: 'stable.example.com' },
        })),
      );

    const scenario = tenants.chain(([one, other]) =>
      fc.tuple(fc.constant(one), fc.constant(other), validObject(other)),
    );

    it('objectDown(ctx, objectUp(ctx, x)) is x', () => {
      fc.assert(
        fc.property(scenario, ([one, , object]) => {
          const ctx = tenantContext(one, kinds);
          expect(objectDown(ctx, objectUp(ctx, object))).to.deep.equal(object);
        }),
        { seed: testSeed(import.meta.url).seed },
      );
    });

    it('malformed bodies (any field of a known object replaced by any JSON): up refuses only with a TranslationError, down never throws', () => {
      const samples = [
        ...ROUND_TRIPS.flatMap((trip) => [trip.tenant, trip.upstream]),
        ...DOWN_ONLY.map((entry) => entry.upstream),
      ];
      const malformed = fc
        .tuple(fc.constantFrom(...samples), fc.nat(), fc.jsonValue({ maxDepth: 2 }))
        .map(([sample, pick, value]) => {
          const object = structuredClone(sample);
          const paths = pathsIn(object).filter((path) => path[0] !== 'apiVersion' && path[0] !== 'kind');
          const path = paths[pick % paths.length];
          const holder = path.slice(0, -1).reduce((node: any, key) => node[key], object);
          holder[path[path.length - 1]] = value;
          return object;
        });
      fc.assert(
        fc.property(malformed, (object) => {
          try {
            objectDown(A, objectUp(A, object));
          } catch (error) {
            expect(error).to.be.instanceOf(TranslationError);
          }
          objectDown(A, object);
        }),
        { seed: testSeed(import.meta.url).seed, numRuns: 3000 },
      );
    });

    it('another tenant sees nothing of it: null, or no string with the owner\u2019s prefix', () => {
      fc.assert(
        fc.property(scenario, ([one, other, object]) => {
          expectNothingOf(
            tenantContext(one, kinds),
            tenantContext(other, kinds),
            objectUp(tenantContext(one, kinds), object),
          );
        }),
        { seed: testSeed(import.meta.url).seed },
      );
    });
  });
});
