/**
 * Which printer kube-apiserver 1.32 uses for a built-in resource. Resources without one, and
 * custom resources (see printers/custom-resource.ts, which needs the CRD's columns), get others.
 */
import { daemonSetPrinter, deploymentPrinter, replicaSetPrinter, statefulSetPrinter } from './printers/apps.js';
import { horizontalPodAutoscalerPrinter } from './printers/autoscaling.js';
import { cronJobPrinter, jobPrinter } from './printers/batch.js';
import { configMapPrinter, secretPrinter } from './printers/config.js';
import { endpointSlicePrinter } from './printers/endpoint-slices.js';
import { endpointsPrinter } from './printers/endpoints.js';
import { eventPrinter } from './printers/events.js';
import { genericPrinter } from './printers/generic.js';
import { ingressPrinter } from './printers/ingresses.js';
import { leasePrinter } from './printers/leases.js';
import { namespacePrinter } from './printers/namespaces.js';
import { nodePrinter } from './printers/nodes.js';
import { persistentVolumeClaimPrinter, persistentVolumePrinter } from './printers/persistent-volumes.js';
import type { Printer } from './printers/printer.js';
import { podPrinter } from './printers/pods.js';
import { clusterRoleBindingPrinter, roleBindingPrinter } from './printers/rbac.js';
import { serviceAccountPrinter } from './printers/service-accounts.js';
import { servicePrinter } from './printers/services.js';
import { storageClassPrinter } from './printers/storage-classes.js';

export type { Printer } from './printers/printer.js';

/** Printers by `group/resource`; the core group is empty, so its keys start with `/`. */
const printers = new Map<string, Printer>([
  ['/pods', podPrinter],
  ['/namespaces', namespacePrinter],
  ['/services', servicePrinter],
  ['/endpoints', endpointsPrinter],
  ['/configmaps', configMapPrinter],
  ['/secrets', secretPrinter],
  ['/serviceaccounts', serviceAccountPrinter],
  ['/nodes', nodePrinter],
  ['/events', eventPrinter],
  ['/persistentvolumes', persistentVolumePrinter],
  ['/persistentvolumeclaims', persistentVolumeClaimPrinter],
  ['apps/deployments', deploymentPrinter],
  ['apps/replicasets', replicaSetPrinter],
  ['apps/statefulsets', statefulSetPrinter],
  ['apps/daemonsets', daemonSetPrinter],
  ['autoscaling/horizontalpodautoscalers', horizontalPodAutoscalerPrinter],
  ['batch/jobs', jobPrinter],
  ['batch/cronjobs', cronJobPrinter],
  ['events.k8s.io/events', eventPrinter],
  ['coordination.k8s.io/leases', leasePrinter],
  ['discovery.k8s.io/endpointslices', endpointSlicePrinter],
  ['networking.k8s.io/ingresses', ingressPrinter],
  ['storage.k8s.io/storageclasses', storageClassPrinter],
  ['rbac.authorization.k8s.io/rolebindings', roleBindingPrinter],
  ['rbac.authorization.k8s.io/clusterrolebindings', clusterRoleBindingPrinter],
]);

/** The printer for a resource, such as ('apps', 'deployments'); the generic NAME / CREATED AT one otherwise. */
export function printerFor(group: string, resource: string): Printer {
  return printers.get(`${group}/${resource}`) ?? genericPrinter;
}
