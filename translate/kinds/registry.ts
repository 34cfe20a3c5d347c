/**
 * The one table of kind convertors, keyed `group/Kind` (group in the tenant's view). Metadata is
 * converted for every kind (metadata.ts); a kind is listed here only for fields of its own.
 * Adding a kind is one file and one line.
 */
import { crdConvertor } from './crd.js';
import { endpointSliceConvertor, endpointsConvertor } from './endpoints.js';
import { coreEventConvertor, eventsEventConvertor } from './event.js';
import { ingressConvertor } from './ingress.js';
import { namespaceConvertor } from './namespace.js';
import { cronJobConvertor, podConvertor, podTemplateConvertor, statefulSetConvertor, workloadConvertor } from './pod-spec.js';
import { bindingConvertor, clusterRoleConvertor, roleConvertor } from './rbac.js';
import { selfSubjectAccessReviewConvertor, selfSubjectReviewConvertor, selfSubjectRulesReviewConvertor, subjectAccessReviewConvertor, tokenReviewConvertor } from './reviews.js';
import { persistentVolumeClaimConvertor, persistentVolumeConvertor } from './storage.js';
import type { Transform } from './transform.js';
import { webhookConfigurationConvertor } from './webhook.js';

const CONVERTORS: ReadonlyMap<string, Transform> = new Map([
  ['/Namespace', namespaceConvertor],
  ['/Event', coreEventConvertor],
  ['events.k8s.io/Event', eventsEventConvertor],
  ['/Endpoints', endpointsConvertor],
  ['discovery.k8s.io/EndpointSlice', endpointSliceConvertor],
  ['/PersistentVolume', persistentVolumeConvertor],
  ['/PersistentVolumeClaim', persistentVolumeClaimConvertor],
  ['/Pod', podConvertor],
  ['/PodTemplate', podTemplateConvertor],
  ['/ReplicationController', workloadConvertor],
  ['apps/Deployment', workloadConvertor],
  ['apps/ReplicaSet', workloadConvertor],
  ['apps/DaemonSet', workloadConvertor],
  ['apps/StatefulSet', statefulSetConvertor],
  ['batch/Job', workloadConvertor],
  ['batch/CronJob', cronJobConvertor],
  ['networking.k8s.io/Ingress', ingressConvertor],
  ['rbac.authorization.k8s.io/Role', roleConvertor],
  ['rbac.authorization.k8s.io/ClusterRole', clusterRoleConvertor],
  ['rbac.authorization.k8s.io/RoleBinding', bindingConvertor],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', bindingConvertor],
  ['apiextensions.k8s.io/CustomResourceDefinition', crdConvertor],
  ['admissionregistration.k8s.io/MutatingWebhookConfiguration', webhookConfigurationConvertor],
  ['admissionregistration.k8s.io/ValidatingWebhookConfiguration', webhookConfigurationConvertor],
  ['authentication.k8s.io/TokenReview', tokenReviewConvertor],
  ['authentication.k8s.io/SelfSubjectReview', selfSubjectReviewConvertor],
  ['authorization.k8s.io/SubjectAccessReview', subjectAccessReviewConvertor],
  ['authorization.k8s.io/LocalSubjectAccessReview', subjectAccessReviewConvertor],
  ['authorization.k8s.io/SelfSubjectAccessReview', selfSubjectAccessReviewConvertor],
  ['authorization.k8s.io/SelfSubjectRulesReview', selfSubjectRulesReviewConvertor],
]);

export function convertorFor(group: string, kind: string): Transform | undefined {
  return CONVERTORS.get(`${group}/${kind}`);
}
