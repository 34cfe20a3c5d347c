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
import { podApiAt } from './pod-api.js';

const podSpec = all(
  stringAt('priorityClassName', prefixed),
  stringAt('runtimeClassName', prefixed),
  each(['volumes'], at(['ephemeral', 'volumeClaimTemplate', 'spec'], persistentVolumeClaimSpec)),
);

/** The pod at `path` (the object itself when empty) or the pod template there. */
const podAt = (path: readonly string[], mode: 'pod' | 'template') =>
  all(at([...path, 'spec'], podSpec), podApiAt(path, mode));

export const podConvertor = podAt([], 'pod');

/** Where each kind that is or holds a pod has it (`group/Kind` → the path of the pod or its template; empty: the object is the pod). */
export const POD_PATHS: ReadonlyMap<string, readonly string[]> = new Map([
  ['/Pod', []],
  ['/PodTemplate', ['template']],
  ['/ReplicationController', ['spec', 'template']],
  ['apps/Deployment', ['spec', 'template']],
  ['apps/ReplicaSet', ['spec', 'template']],
  ['apps/DaemonSet', ['spec', 'template']],
  ['apps/StatefulSet', ['spec', 'template']],
  ['apps/ControllerRevision', ['data', 'spec', 'template']],
  ['batch/Job', ['spec', 'template']],
  ['batch/CronJob', ['spec', 'jobTemplate', 'spec', 'template']],
]);

/** The kinds the gateway points at itself (pod-api.ts). */
export const POD_KINDS: ReadonlySet<string> = new Set(POD_PATHS.keys());

/** core PodTemplate. */
export const podTemplateConvertor = podAt(['template'], 'template');

/** ReplicationController, Deployment, ReplicaSet, DaemonSet, Job. */
export const workloadConvertor = podAt(['spec', 'template'], 'template');

export const statefulSetConvertor = all(
  workloadConvertor,
  each(['spec', 'volumeClaimTemplates'], at(['spec'], persistentVolumeClaimSpec)),
);

export const cronJobConvertor = podAt(['spec', 'jobTemplate', 'spec', 'template'], 'template');

/**
 * apps ControllerRevision: a StatefulSet's or DaemonSet's pod template as its controller recorded
 * it in `data` (a patch `{"spec":{"template":…}}`), which `kubectl rollout history` prints and
 * `rollout undo` sends back to the owner as a patch: converted as the owner's template is.
 */
export const controllerRevisionConvertor = podAt(['data', 'spec', 'template'], 'template');

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
