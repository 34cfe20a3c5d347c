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
import { automountInvariant, podApiAt } from './pod-api.js';

const podSpec = all(
  stringAt('priorityClassName', prefixed),
  stringAt('runtimeClassName', prefixed),
  each(['volumes'], at(['ephemeral', 'volumeClaimTemplate', 'spec'], persistentVolumeClaimSpec)),
);

/** Where each kind holds its pod template (a Pod is one itself: the empty path). */
const POD: readonly string[] = [];
const POD_TEMPLATE = ['template'];
const WORKLOAD_TEMPLATE = ['spec', 'template'];
const CRON_JOB_TEMPLATE = ['spec', 'jobTemplate', 'spec', 'template'];
const REVISION_TEMPLATE = ['data', 'spec', 'template'];

/** Where each kind that is or holds a pod has it (`group/Kind` → the path of the pod or its template). */
export const POD_PATHS: ReadonlyMap<string, readonly string[]> = new Map([
  ['/Pod', POD],
  ['/PodTemplate', POD_TEMPLATE],
  ['/ReplicationController', WORKLOAD_TEMPLATE],
  ['apps/Deployment', WORKLOAD_TEMPLATE],
  ['apps/ReplicaSet', WORKLOAD_TEMPLATE],
  ['apps/DaemonSet', WORKLOAD_TEMPLATE],
  ['apps/StatefulSet', WORKLOAD_TEMPLATE],
  ['apps/ControllerRevision', REVISION_TEMPLATE],
  ['batch/Job', WORKLOAD_TEMPLATE],
  ['batch/CronJob', CRON_JOB_TEMPLATE],
]);

/** The kinds the gateway points at itself (pod-api.ts). */
export const POD_KINDS: ReadonlySet<string> = new Set(POD_PATHS.keys());

/** The pod or the pod template at `path`: its spec's references, and pointed at the gateway. */
const podAt = (path: readonly string[]) => all(at([...path, 'spec'], podSpec), podApiAt(path));

export const podConvertor = podAt(POD);

/** core PodTemplate. */
export const podTemplateConvertor = podAt(POD_TEMPLATE);

/** ReplicationController, Deployment, ReplicaSet, DaemonSet, Job. */
export const workloadConvertor = podAt(WORKLOAD_TEMPLATE);

export const statefulSetConvertor = all(
  workloadConvertor,
  each(['spec', 'volumeClaimTemplates'], at(['spec'], persistentVolumeClaimSpec)),
);

export const cronJobConvertor = podAt(CRON_JOB_TEMPLATE);

/**
 * apps ControllerRevision: a StatefulSet's or DaemonSet's pod template as its controller recorded
 * it in `data` (a patch `{"spec":{"template":…}}`), which `kubectl rollout history` prints and
 * `rollout undo` sends back to the owner as a patch: converted as the owner's template is.
 */
export const controllerRevisionConvertor = podAt(REVISION_TEMPLATE);

const TENANT_CLASS = "must name one of the tenant's classes (its name carries the tenant prefix)";

/** The invariants of a pod spec at `path`. */
const podSpecInvariants = (path: readonly string[]): Invariant[] => [
  ruled([...path, 'priorityClassName'], prefixed, TENANT_CLASS),
  ruled([...path, 'runtimeClassName'], prefixed, TENANT_CLASS),
  ...ephemeralVolumeInvariants(path),
];

/**
 * A template's, and that its pods get no token of the cluster's (automountInvariant). A pod's own
 * volumes and automountServiceAccountToken cannot change once it is made, so no patch of a pod
 * can take the gateway's token away, and one made before the rule keeps what it has.
 */
const templateInvariants = (path: readonly string[]): Invariant[] => [
  ...podSpecInvariants(path),
  automountInvariant(path),
];

export const podInvariants = podSpecInvariants([...POD, 'spec']);
export const podTemplateInvariants = templateInvariants([...POD_TEMPLATE, 'spec']);
export const workloadInvariants = templateInvariants([...WORKLOAD_TEMPLATE, 'spec']);
export const statefulSetInvariants = [
  ...workloadInvariants,
  ...persistentVolumeClaimSpecInvariants(['spec', 'volumeClaimTemplates', EACH, 'spec']),
];
export const cronJobInvariants = templateInvariants([...CRON_JOB_TEMPLATE, 'spec']);
/** The StatefulSet controller creates pods of a revision's template. */
export const controllerRevisionInvariants = templateInvariants([...REVISION_TEMPLATE, 'spec']);
