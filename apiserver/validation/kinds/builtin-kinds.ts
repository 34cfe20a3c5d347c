/**
 * Which built-in kinds kube-apiserver validates beyond their metadata, here, keyed `group/Kind`:
 * the devcluster's strategies run them after defaulting, on create and update. Kinds not listed
 * are checked for their metadata and unknown fields only.
 */
import type { ApiObject } from '../../registry/object-store.js';
import type { Cause } from '../cause.js';
import { validateHorizontalPodAutoscaler } from './horizontal-pod-autoscaler.js';
import { validatePersistentVolumeClaim } from './persistent-volume-claim.js';
import { validatePod } from './pod.js';
import { validatePodDisruptionBudget } from './pod-disruption-budget.js';
import { validateClusterRole, validateClusterRoleBinding, validateRole, validateRoleBinding } from './rbac.js';
import { validateService } from './service.js';
import { validateDaemonSet, validateDeployment, validateReplicaSet, validateStatefulSet } from './workloads.js';

export type KindValidator = (object: ApiObject, previous?: ApiObject, subresource?: string) => Cause[];

const VALIDATORS: ReadonlyMap<string, KindValidator> = new Map<string, KindValidator>([
  ['/Pod', validatePod],
  ['/Service', validateService],
  ['/PersistentVolumeClaim', validatePersistentVolumeClaim],
  ['apps/Deployment', validateDeployment],
  ['apps/ReplicaSet', validateReplicaSet],
  ['apps/DaemonSet', validateDaemonSet],
  ['apps/StatefulSet', validateStatefulSet],
  ['autoscaling/HorizontalPodAutoscaler', validateHorizontalPodAutoscaler],
  ['policy/PodDisruptionBudget', validatePodDisruptionBudget],
  ['rbac.authorization.k8s.io/Role', validateRole],
  ['rbac.authorization.k8s.io/ClusterRole', validateClusterRole],
  ['rbac.authorization.k8s.io/RoleBinding', validateRoleBinding],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', validateClusterRoleBinding],
]);

export function builtinValidator(group: string, kind: string): KindValidator | undefined {
  return VALIDATORS.get(`${group}/${kind}`);
}
