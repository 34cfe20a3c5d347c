/**
 * Pods and the workloads that template them refer to cluster-scoped tenant objects by name:
 * PriorityClass, RuntimeClass, and StorageClass/PV in ephemeral volumes and claim templates.
 */
import { persistentVolumeClaimSpec } from './storage.js';
import { all, at, each, prefixed, stringAt } from './transform.js';

const podSpec = all(
  stringAt('priorityClassName', prefixed),
  stringAt('runtimeClassName', prefixed),
  each(['volumes'], at(['ephemeral', 'volumeClaimTemplate', 'spec'], persistentVolumeClaimSpec)),
);

export const podConvertor = at(['spec'], podSpec);

/** core PodTemplate. */
export const podTemplateConvertor = at(['template', 'spec'], podSpec);

/** ReplicationController, Deployment, ReplicaSet, DaemonSet, Job. */
export const workloadConvertor = at(['spec', 'template', 'spec'], podSpec);

export const statefulSetConvertor = all(workloadConvertor, each(['spec', 'volumeClaimTemplates'], at(['spec'], persistentVolumeClaimSpec)));

export const cronJobConvertor = at(['spec', 'jobTemplate', 'spec', 'template', 'spec'], podSpec);
