/**
 * Pods and the workloads that template them (and the revisions that record those templates)
 * refer to cluster-scoped tenant objects by name:
 * PriorityClass, RuntimeClass, and StorageClass/PV in ephemeral volumes and claim templates.
 */
import { EACH, ruled, type Invariant } from './invariants.js';
import {
  ephemeralVolumeInvariants,
  persistentVolumeClaimSpec,
  persistentVolumeClaimSpecInvariants,
} from './storage.js';
import { all, at, each, prefixed, stringAt } from './convertor.js';

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

export const statefulSetConvertor = all(
  workloadConvertor,
  each(['spec', 'volumeClaimTemplates'], at(['spec'], persistentVolumeClaimSpec)),
);

export const cronJobConvertor = at(['spec', 'jobTemplate', 'spec', 'template', 'spec'], podSpec);

/**
 * apps ControllerRevision: a StatefulSet's or DaemonSet's pod template as its controller recorded
 * it in `data` (a patch `{"spec":{"template":…}}`), which `kubectl rollout history` prints and
 * `rollout undo` sends back to the owner as a patch: converted as the owner's template is.
 */
export const controllerRevisionConvertor = at(['data', 'spec', 'template', 'spec'], podSpec);

const TENANT_CLASS = "must name one of the tenant's classes (its name carries the tenant prefix)";

/** The invariants of a pod spec at `path`. */
const podSpecInvariants = (path: readonly string[]): Invariant[] => [
  ruled([...path, 'priorityClassName'], prefixed, TENANT_CLASS),
  ruled([...path, 'runtimeClassName'], prefixed, TENANT_CLASS),
  ...ephemeralVolumeInvariants(path),
];

export const podInvariants = podSpecInvariants(['spec']);
export const podTemplateInvariants = podSpecInvariants(['template', 'spec']);
export const workloadInvariants = podSpecInvariants(['spec', 'template', 'spec']);
export const statefulSetInvariants = [
  ...workloadInvariants,
  ...persistentVolumeClaimSpecInvariants(['spec', 'volumeClaimTemplates', EACH, 'spec']),
];
export const cronJobInvariants = podSpecInvariants(['spec', 'jobTemplate', 'spec', 'template', 'spec']);
/** The StatefulSet controller creates pods of a revision's template. */
export const controllerRevisionInvariants = podSpecInvariants(['data', 'spec', 'template', 'spec']);
