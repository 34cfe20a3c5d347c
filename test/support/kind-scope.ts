import type { KindScope } from '../../translate/context.js';

/** (group, kind, resource, namespaced): the kinds the translation tests use, as a discovery cache would know them. */
export const TEST_KINDS: [string, string, string, boolean][] = [
  ['', 'Namespace', 'namespaces', false],
  ['', 'Node', 'nodes', false],
  ['', 'Pod', 'pods', true],
  ['', 'ConfigMap', 'configmaps', true],
  ['', 'Event', 'events', true],
  ['', 'Endpoints', 'endpoints', true],
  ['', 'PersistentVolume', 'persistentvolumes', false],
  ['', 'PersistentVolumeClaim', 'persistentvolumeclaims', true],
  ['', 'PodTemplate', 'podtemplates', true],
  ['', 'ReplicationController', 'replicationcontrollers', true],
  ['apps', 'Deployment', 'deployments', true],
  ['apps', 'ReplicaSet', 'replicasets', true],
  ['apps', 'StatefulSet', 'statefulsets', true],
  ['apps', 'DaemonSet', 'daemonsets', true],
  ['batch', 'Job', 'jobs', true],
  ['batch', 'CronJob', 'cronjobs', true],
  ['rbac.authorization.k8s.io', 'Role', 'roles', true],
  ['rbac.authorization.k8s.io', 'RoleBinding', 'rolebindings', true],
  ['rbac.authorization.k8s.io', 'ClusterRole', 'clusterroles', false],
  ['rbac.authorization.k8s.io', 'ClusterRoleBinding', 'clusterrolebindings', false],
  ['storage.k8s.io', 'StorageClass', 'storageclasses', false],
  ['scheduling.k8s.io', 'PriorityClass', 'priorityclasses', false],
  ['networking.k8s.io', 'Ingress', 'ingresses', true],
  ['networking.k8s.io', 'IngressClass', 'ingressclasses', false],
  ['discovery.k8s.io', 'EndpointSlice', 'endpointslices', true],
  ['events.k8s.io', 'Event', 'events', true],
  ['apiextensions.k8s.io', 'CustomResourceDefinition', 'customresourcedefinitions', false],
  ['admissionregistration.k8s.io', 'MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', false],
  ['admissionregistration.k8s.io', 'ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', false],
  ['authentication.k8s.io', 'TokenReview', 'tokenreviews', false],
  ['authentication.k8s.io', 'SelfSubjectReview', 'selfsubjectreviews', false],
  ['authorization.k8s.io', 'SubjectAccessReview', 'subjectaccessreviews', false],
  ['authorization.k8s.io', 'LocalSubjectAccessReview', 'localsubjectaccessreviews', true],
  ['authorization.k8s.io', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', false],
  ['authorization.k8s.io', 'SelfSubjectRulesReview', 'selfsubjectrulesreviews', false],
  ['stable.example.com', 'CronTab', 'crontabs', true],
  ['stable.example.com', 'Widget', 'widgets', false],
  ['', 'Secret', 'secrets', true],
  ['', 'ServiceAccount', 'serviceaccounts', true],
  ['', 'Service', 'services', true],
  ['', 'ResourceQuota', 'resourcequotas', true],
  ['policy', 'PodDisruptionBudget', 'poddisruptionbudgets', true],
];

/** A KindScope over such rows, as the gateway builds one from the cluster's discovery. */
export function kindScope(rows: [string, string, string, boolean][] = TEST_KINDS): KindScope {
  const byKind = new Map(rows.map(([group, kind, , namespaced]) => [`${group}/${kind}`, namespaced]));
  const byResource = new Map(
    rows.map(([group, kind, resource, namespaced]) => [`${group}/${resource}`, { kind, namespaced }]),
  );
  return {
    kindIsNamespaced: (group, kind) => byKind.get(`${group}/${kind}`),
    resourceIsNamespaced: (group, resource) => byResource.get(`${group}/${resource}`)?.namespaced,
    kindOf: (group, resource) => byResource.get(`${group}/${resource}`)?.kind,
  };
}
