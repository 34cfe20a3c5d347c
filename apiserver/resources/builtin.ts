/**
 * The built-in resources, as kube-apiserver 1.32 advertises them in discovery: kinds, verbs,
 * short names, categories and subresources. Groups are in the order of its legacy `/apis`
 * list (APIService group priority), resources and subresources in its alphabetical order.
 */
import type { ResourceInfo, SubresourceInfo } from './resource-info.js';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const CREATE_ONLY = ['create'];
const GET_PATCH_UPDATE = ['get', 'patch', 'update'];
const CONNECT_GET_POST = ['create', 'get'];
const PROXY_VERBS = ['create', 'delete', 'get', 'patch', 'update'];

/**
 * The resources whose storage in kube 1.32 sets `ReturnDeletedObject` (pkg/registry/<group>/<resource>/storage):
 * a DELETE answers the deleted object. Every other built-in resource answers a Success Status, and
 * so do custom resources (apiextensions' customresource storage leaves it unset).
 */
const RETURNS_DELETED_OBJECT = new Set([
  '/namespaces',
  '/persistentvolumeclaims',
  '/persistentvolumes',
  '/pods',
  '/podtemplates',
  '/resourcequotas',
  '/serviceaccounts',
  '/services',
  'storage.k8s.io/storageclasses',
]);

interface Spec {
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: SubresourceInfo[];
}

function groupVersion(group: string, version: string, specs: Spec[]): ResourceInfo[] {
  return specs.map((s) => ({
    group,
    version,
    resource: s.resource,
    kind: s.kind,
    listKind: `${s.kind}List`,
    singular: s.kind.toLowerCase(),
    namespaced: s.namespaced,
    // Copies, so that no two resources share an array a caller could change.
    verbs: [...(s.verbs ?? ALL_VERBS)],
    shortNames: s.shortNames ?? [],
    categories: s.categories ?? [],
    subresources: (s.subresources ?? []).map((sub) => ({ ...sub, verbs: [...sub.verbs] })),
    builtin: true,
    ...(RETURNS_DELETED_OBJECT.has(`${group}/${s.resource}`) ? { returnsDeletedObject: true as const } : {}),
  }));
}

const status = (kind: string): SubresourceInfo => ({ name: 'status', kind, verbs: GET_PATCH_UPDATE });
const scale: SubresourceInfo = {
  name: 'scale',
  kind: 'Scale',
  group: 'autoscaling',
  version: 'v1',
  verbs: GET_PATCH_UPDATE,
};

const core = groupVersion('', 'v1', [
  { resource: 'bindings', kind: 'Binding', namespaced: true, verbs: CREATE_ONLY },
  {
    resource: 'componentstatuses',
    kind: 'ComponentStatus',
    namespaced: false,
    verbs: ['get', 'list'],
    shortNames: ['cs'],
  },
  { resource: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] },
  { resource: 'endpoints', kind: 'Endpoints', namespaced: true, shortNames: ['ep'] },
  { resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'] },
  { resource: 'limitranges', kind: 'LimitRange', namespaced: true, shortNames: ['limits'] },
  {
    resource: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['ns'],
    subresources: [{ name: 'finalize', kind: 'Namespace', verbs: ['update'] }, status('Namespace')],
  },
  {
    resource: 'nodes',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    subresources: [{ name: 'proxy', kind: 'NodeProxyOptions', verbs: PROXY_VERBS }, status('Node')],
  },
  {
    resource: 'persistentvolumeclaims',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    shortNames: ['pvc'],
    subresources: [status('PersistentVolumeClaim')],
  },
  {
    resource: 'persistentvolumes',
    kind: 'PersistentVolume',
    namespaced: false,
    shortNames: ['pv'],
    subresources: [status('PersistentVolume')],
  },
  {
    resource: 'pods',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    subresources: [
      { name: 'attach', kind: 'PodAttachOptions', verbs: CONNECT_GET_POST },
      { name: 'binding', kind: 'Binding', verbs: CREATE_ONLY },
      { name: 'ephemeralcontainers', kind: 'Pod', verbs: GET_PATCH_UPDATE },
      { name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: CREATE_ONLY },
      { name: 'exec', kind: 'PodExecOptions', verbs: CONNECT_GET_POST },
      { name: 'log', kind: 'Pod', verbs: ['get'] },
      { name: 'portforward', kind: 'PodPortForwardOptions', verbs: CONNECT_GET_POST },
      { name: 'proxy', kind: 'PodProxyOptions', verbs: PROXY_VERBS },
      status('Pod'),
    ],
  },
  { resource: 'podtemplates', kind: 'PodTemplate', namespaced: true },
  {
    resource: 'replicationcontrollers',
    kind: 'ReplicationController',
    namespaced: true,
    shortNames: ['rc'],
    categories: ['all'],
    subresources: [scale, status('ReplicationController')],
  },
  {
    resource: 'resourcequotas',
    kind: 'ResourceQuota',
    namespaced: true,
    shortNames: ['quota'],
    subresources: [status('ResourceQuota')],
  },
  { resource: 'secrets', kind: 'Secret', namespaced: true },
  {
    resource: 'serviceaccounts',
    kind: 'ServiceAccount',
    namespaced: true,
    shortNames: ['sa'],
    subresources: [
      { name: 'token', kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1', verbs: CREATE_ONLY },
    ],
  },
  {
    resource: 'services',
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    subresources: [{ name: 'proxy', kind: 'ServiceProxyOptions', verbs: PROXY_VERBS }, status('Service')],
  },
]);

const apps = groupVersion('apps', 'v1', [
  { resource: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true },
  {
    resource: 'daemonsets',
    kind: 'DaemonSet',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    subresources: [status('DaemonSet')],
  },
  {
    resource: 'deployments',
    kind: 'Deployment',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: [scale, status('Deployment')],
  },
  {
    resource: 'replicasets',
    kind: 'ReplicaSet',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    subresources: [scale, status('ReplicaSet')],
  },
  {
    resource: 'statefulsets',
    kind: 'StatefulSet',
    namespaced: true,
    shortNames: ['sts'],
    categories: ['all'],
    subresources: [scale, status('StatefulSet')],
  },
]);

const events = groupVersion('events.k8s.io', 'v1', [
  { resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'] },
]);

const authentication = groupVersion('authentication.k8s.io', 'v1', [
  { resource: 'selfsubjectreviews', kind: 'SelfSubjectReview', namespaced: false, verbs: CREATE_ONLY },
  { resource: 'tokenreviews', kind: 'TokenReview', namespaced: false, verbs: CREATE_ONLY },
]);

const authorization = groupVersion('authorization.k8s.io', 'v1', [
  { resource: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview', namespaced: true, verbs: CREATE_ONLY },
  { resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false, verbs: CREATE_ONLY },
  { resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', namespaced: false, verbs: CREATE_ONLY },
  { resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false, verbs: CREATE_ONLY },
]);

/** One kind at two versions of different shapes (apiserver/conversion/), v2 first: kube's preferred version. */
const autoscaling = ['v2', 'v1'].flatMap((version) =>
  groupVersion('autoscaling', version, [
    {
      resource: 'horizontalpodautoscalers',
      kind: 'HorizontalPodAutoscaler',
      namespaced: true,
      shortNames: ['hpa'],
      categories: ['all'],
      subresources: [status('HorizontalPodAutoscaler')],
    },
  ]),
);

const batch = groupVersion('batch', 'v1', [
  {
    resource: 'cronjobs',
    kind: 'CronJob',
    namespaced: true,
    shortNames: ['cj'],
    categories: ['all'],
    subresources: [status('CronJob')],
  },
  { resource: 'jobs', kind: 'Job', namespaced: true, categories: ['all'], subresources: [status('Job')] },
]);

const networking = groupVersion('networking.k8s.io', 'v1', [
  { resource: 'ingressclasses', kind: 'IngressClass', namespaced: false },
  { resource: 'ingresses', kind: 'Ingress', namespaced: true, shortNames: ['ing'], subresources: [status('Ingress')] },
  { resource: 'networkpolicies', kind: 'NetworkPolicy', namespaced: true, shortNames: ['netpol'] },
]);

const policy = groupVersion('policy', 'v1', [
  {
    resource: 'poddisruptionbudgets',
    kind: 'PodDisruptionBudget',
    namespaced: true,
    shortNames: ['pdb'],
    subresources: [status('PodDisruptionBudget')],
  },
]);

const rbac = groupVersion('rbac.authorization.k8s.io', 'v1', [
  { resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false },
  { resource: 'clusterroles', kind: 'ClusterRole', namespaced: false },
  { resource: 'rolebindings', kind: 'RoleBinding', namespaced: true },
  { resource: 'roles', kind: 'Role', namespaced: true },
]);

const storage = groupVersion('storage.k8s.io', 'v1', [
  { resource: 'storageclasses', kind: 'StorageClass', namespaced: false, shortNames: ['sc'] },
]);

const admissionRegistration = groupVersion('admissionregistration.k8s.io', 'v1', [
  {
    resource: 'mutatingwebhookconfigurations',
    kind: 'MutatingWebhookConfiguration',
    namespaced: false,
    categories: ['api-extensions'],
  },
  {
    resource: 'validatingwebhookconfigurations',
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
    categories: ['api-extensions'],
  },
]);

const apiExtensions = groupVersion('apiextensions.k8s.io', 'v1', [
  {
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: [status('CustomResourceDefinition')],
  },
]);

const scheduling = groupVersion('scheduling.k8s.io', 'v1', [
  { resource: 'priorityclasses', kind: 'PriorityClass', namespaced: false, shortNames: ['pc'] },
]);

const coordination = groupVersion('coordination.k8s.io', 'v1', [
  { resource: 'leases', kind: 'Lease', namespaced: true },
]);

const discovery = groupVersion('discovery.k8s.io', 'v1', [
  { resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true },
]);

export const BUILTIN_RESOURCES: readonly ResourceInfo[] = [
  ...core,
  ...apps,
  ...events,
  ...authentication,
  ...authorization,
  ...autoscaling,
  ...batch,
  ...networking,
  ...policy,
  ...rbac,
  ...storage,
  ...admissionRegistration,
  ...apiExtensions,
  ...scheduling,
  ...coordination,
  ...discovery,
];
