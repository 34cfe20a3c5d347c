import { isDeepStrictEqual } from 'node:util';
import type { ApiServer } from '../../apiserver/api-server.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { deleteQuietly, mutate, removeFinalizer } from '../../apiserver/registry/object-mutation.js';
import { ApiError } from '../../apiserver/status.js';
import type { Store } from '../../store/index.js';
import { controllerOf, controllerRef } from './controller-ref.js';
import { EventRecorder, type EventType } from './event-recorder.js';
import { ReconcileLoop, joinKey, keyOf, splitKey } from './reconcile-loop.js';
import { createPodOf } from './workload-writes.js';

export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
export const COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';

/** Queue keys of orphaned pods to release, beside the Jobs' `<namespace>/<name>`. */
const ORPHAN = 'orphan:';
const SUCCESS = { reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };
const DEADLINE = { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
const BACKOFF = { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };

type Condition = {
  type: string;
  status: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
};

const seconds = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * kube-controller-manager's Job controller and its ttl-after-finished controller, for what a
 * simulated pod can do (run, succeed, be killed): pods from the template (`<job>-` names, the
 * selector's labels, a controller ownerReference and the `batch.kubernetes.io/job-tracking`
 * finalizer, released once the pod is counted), `parallelism` and `completions` in NonIndexed
 * and Indexed modes, `suspend`, `activeDeadlineSeconds`, `backoffLimit` (a pod killed while
 * running counts as failed), `ttlSecondsAfterFinished`; status and conditions as 1.32 writes them
 * (`SuccessCriteriaMet` then `Complete`, `FailureTarget` then `Failed`, each once no pod is left
 * running), events `SuccessfulCreate`, `Completed`, `Suspended`, `Resumed`, `DeadlineExceeded`,
 * `BackoffLimitExceeded`.
 */
export class JobController {
  private readonly loop: ReconcileLoop;
  private readonly recorder: EventRecorder;

  constructor(
    private readonly api: ApiServer,
    store: Store,
  ) {
    this.recorder = new EventRecorder(api, { component: 'job-controller' });
    this.loop = new ReconcileLoop(
      store,
      'job controller',
      [
        { prefix: '/registry/batch/jobs/', keysOf: (job) => [keyOf(job)] },
        // Not the Job a pod has left: one being deleted with --cascade=orphan would replace its pods before it goes.
        { prefix: '/registry/core/pods/', keysOf: (pod) => podKeys(pod), withPrevious: false },
      ],
      (key) => this.sync(key),
    );
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Resolves to when to look at the Job again (its deadline, its time to live), if ever. */
  private async sync(key: string): Promise<number | void> {
    if (key.startsWith(ORPHAN)) return this.releaseOrphan(key.slice(ORPHAN.length));
    const { namespace, name } = splitKey(key);
    const jobs = this.api.registryOf('batch', 'jobs')!;
    const job = await jobs.get(namespace, name).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === 404) return null;
      throw err;
    });
    const { objects } = await this.api.registryOf('', 'pods')!.objects.list(namespace, {});
    const owned = objects.filter((pod) => {
      const owner = controllerOf(pod, 'Job');
      return owner?.name === name && (!job || owner.uid === job.metadata.uid);
    });
    if (!job) {
      // The Job is gone: its pods are the garbage collector's, and no longer held for counting.
      for (const pod of owned) await this.release(pod);
      return;
    }
    const spec = job.spec ?? {};
    const status = structuredClone(job.status ?? {});
    const conditions: Condition[] = status.conditions ?? [];
    const now = new Date();
    const at = seconds(now);
    if (isTrue(conditions, 'Complete') || isTrue(conditions, 'Failed')) {
      for (const pod of owned) await this.release(pod);
      return this.expire(job, conditions, now);
    }

    const indexed = spec.completionMode === 'Indexed';
    const completions: number | undefined = spec.completions ?? undefined;
    const parallelism: number = spec.parallelism ?? 1;
    const { counted, succeeded, failed, completedIndexes } = countFinished(owned, status, indexed, completions);
    let active = owned.filter((pod) => !isTerminal(pod) && !pod.metadata.deletionTimestamp);
    const terminating = owned.filter((pod) => !isTerminal(pod) && pod.metadata.deletionTimestamp);

    const setCondition = (type: string, value: string, why: { reason: string; message: string }) => {
      const existing = conditions.find((c) => c.type === type);
      if (existing?.status === value) return false;
      const condition = { type, status: value, lastProbeTime: at, lastTransitionTime: at, ...why };
      if (existing) Object.assign(existing, condition);
      else conditions.push(condition);
      return true;
    };

    const events: [EventType, string, string][] = [];
    if (spec.suspend) {
      for (const pod of active) await this.remove(pod);
      active = [];
      if (setCondition('Suspended', 'True', { reason: 'JobSuspended', message: 'Job suspended' }))
        events.push(['Normal', 'Suspended', 'Job suspended']);
    } else {
      if (isTrue(conditions, 'Suspended')) {
        setCondition('Suspended', 'False', { reason: 'JobResumed', message: 'Job resumed' });
        events.push(['Normal', 'Resumed', 'Job resumed']);
        status.startTime = at;
      }
      status.startTime ??= at;
    }

    const deadlineIn =
      isTrue(conditions, 'FailureTarget') || spec.suspend ? undefined : msToDeadline(spec, status.startTime, now);
    const deadlinePassed = deadlineIn !== undefined && deadlineIn <= 0;
    const lookAgainIn = deadlinePassed ? undefined : deadlineIn;
    const failure = isTrue(conditions, 'FailureTarget')
      ? undefined
      : deadlinePassed
        ? DEADLINE
        : failed > (spec.backoffLimit ?? 6)
          ? BACKOFF
          : undefined;
    if (failure && setCondition('FailureTarget', 'True', failure))
      events.push(['Warning', failure.reason, failure.message]);
    const successMet =
      !isTrue(conditions, 'FailureTarget') &&
      (completions === undefined ? succeeded > 0 && active.length === 0 : succeeded >= completions);
    if (successMet) setCondition('SuccessCriteriaMet', 'True', SUCCESS);

    if (isTrue(conditions, 'FailureTarget') || isTrue(conditions, 'SuccessCriteriaMet')) {
      for (const pod of active) await this.remove(pod);
      active = [];
    } else if (!spec.suspend) {
      active.push(
        ...(await this.createPods(job, { indexed, completions, parallelism, succeeded, completedIndexes, active })),
      );
    }

    const settled = active.length === 0 && terminating.length === 0;
    if (settled && isTrue(conditions, 'FailureTarget')) {
      const target = conditions.find((c) => c.type === 'FailureTarget')!;
      setCondition('Failed', 'True', { reason: target.reason!, message: target.message! });
    } else if (settled && isTrue(conditions, 'SuccessCriteriaMet')) {
      setCondition('Complete', 'True', SUCCESS);
      status.completionTime = at;
      events.push(['Normal', 'Completed', 'Job completed']);
    }

    const next = {
      ...(conditions.length ? { conditions } : {}),
      ...(status.startTime ? { startTime: status.startTime } : {}),
      ...(status.completionTime ? { completionTime: status.completionTime } : {}),
      ...(active.length ? { active: active.length } : {}),
      ...(succeeded ? { succeeded } : {}),
      ...(failed ? { failed } : {}),
      terminating: terminating.length,
      ...(indexed && completedIndexes.size ? { completedIndexes: formatIndexes(completedIndexes) } : {}),
      uncountedTerminatedPods: {},
      ready: active.filter(isReady).length,
    };
    if (!isDeepStrictEqual(next, job.status)) {
      try {
        await jobs.update(namespace, name, { ...job, status: next }, 'status');
      } catch (err) {
        // Changed or deleted meanwhile: the watch brings the Job back to the queue.
        if (err instanceof ApiError && (err.code === 409 || err.code === 404)) return lookAgainIn;
        throw err;
      }
    }
    for (const [type, reason, message] of events) await this.recorder.record(job, type, reason, message);
    for (const pod of counted) await this.release(pod);
    if (isTrue(conditions, 'Complete') || isTrue(conditions, 'Failed')) return this.expire(job, conditions, now);
    return lookAgainIn;
  }

  private async createPods(
    job: ApiObject,
    want: {
      indexed: boolean;
      completions: number | undefined;
      parallelism: number;
      succeeded: number;
      completedIndexes: Set<number>;
      active: ApiObject[];
    },
  ): Promise<ApiObject[]> {
    const { indexed, completions, parallelism, succeeded, completedIndexes, active } = want;
    let indexes: (number | undefined)[];
    if (indexed) {
      const running = new Set(active.map(completionIndexOf));
      const pending = [...Array(completions ?? 0).keys()].filter((i) => !completedIndexes.has(i) && !running.has(i));
      indexes = pending.slice(0, Math.max(0, parallelism - active.length));
    } else {
      const wanted =
        completions === undefined ? (succeeded > 0 ? 0 : parallelism) : Math.min(parallelism, completions - succeeded);
      indexes = Array(Math.max(0, wanted - active.length)).fill(undefined);
    }
    const pods = this.api.registryOf('', 'pods')!;
    const created: ApiObject[] = [];
    for (const index of indexes) {
      const pod = await createPodOf(pods, this.recorder, job, podFor(job, index));
      await this.recorder.record(job, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
      created.push(pod);
    }
    return created;
  }

  /** A pod the controller stops itself (suspension, success, failure) is not counted: it is released first. */
  private async remove(pod: ApiObject): Promise<void> {
    await this.release(pod);
    await deleteQuietly(this.api.registryOf('', 'pods')!, pod.metadata.namespace, pod.metadata.name);
  }

  private async release(pod: ApiObject): Promise<void> {
    if (!hasTrackingFinalizer(pod)) return;
    await mutate(this.api.registryOf('', 'pods')!, pod.metadata.namespace, pod.metadata.name, (current) =>
      removeFinalizer(current, JOB_TRACKING_FINALIZER),
    );
  }

  /** A pod no Job controls any more (orphaned) has nothing to be counted for: its finalizer goes. */
  private async releaseOrphan(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    await mutate(
      this.api.registryOf('', 'pods')!,
      namespace,
      name,
      (pod) => !controllerOf(pod, 'Job') && removeFinalizer(pod, JOB_TRACKING_FINALIZER),
    );
  }

  /**
   * ttl-after-finished: a finished Job with `ttlSecondsAfterFinished` is deleted (Foreground) when
   * it expires; resolves to the time until then.
   */
  private async expire(job: ApiObject, conditions: Condition[], now: Date): Promise<number | void> {
    const ttl = job.spec?.ttlSecondsAfterFinished;
    if (typeof ttl !== 'number' || job.metadata.deletionTimestamp) return;
    const finished = conditions.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
    const expiry = Date.parse(job.status?.completionTime ?? finished?.lastTransitionTime ?? '') + ttl * 1000;
    if (!(expiry > now.getTime())) {
      await deleteQuietly(
        this.api.registryOf('batch', 'jobs')!,
        job.metadata.namespace,
        job.metadata.name,
        'Foreground',
      );
      return;
    }
    return expiry - now.getTime();
  }
}

/** The Job a pod's change concerns, or for an orphan still held by the tracking finalizer, the pod itself. */
function podKeys(pod: ApiObject): string[] {
  const owner = controllerOf(pod, 'Job');
  if (owner) return [joinKey(pod.metadata.namespace, owner.name)];
  return hasTrackingFinalizer(pod) ? [`${ORPHAN}${keyOf(pod)}`] : [];
}

/** Time left until `activeDeadlineSeconds` after `startTime` (passed when not positive), if the Job has one. */
function msToDeadline(spec: Record<string, any>, startTime: string | undefined, now: Date): number | undefined {
  if (typeof spec.activeDeadlineSeconds !== 'number' || !startTime) return undefined;
  return Date.parse(startTime) + spec.activeDeadlineSeconds * 1000 - now.getTime();
}

/**
 * The Job's counts with the finished pods it still holds (by the tracking finalizer) added:
 * those pods are counted now and released after the status is written.
 */
function countFinished(
  owned: ApiObject[],
  status: Record<string, any>,
  indexed: boolean,
  completions: number | undefined,
): { counted: ApiObject[]; succeeded: number; failed: number; completedIndexes: Set<number> } {
  const counted = owned.filter((pod) => hasTrackingFinalizer(pod) && isTerminal(pod));
  const completedIndexes = new Set(parseIndexes(status.completedIndexes ?? ''));
  let succeeded: number = status.succeeded ?? 0;
  let failed: number = status.failed ?? 0;
  for (const pod of counted) {
    if (pod.status?.phase === 'Failed') failed++;
    else if (!indexed) succeeded++;
    else {
      const index = completionIndexOf(pod);
      if (index !== undefined && index < (completions ?? 0)) completedIndexes.add(index);
    }
  }
  return { counted, succeeded: indexed ? completedIndexes.size : succeeded, failed, completedIndexes };
}

/** A pod of the Job, from its template; an Indexed Job's pod carries its completion index. */
function podFor(job: ApiObject, index: number | undefined): ApiObject {
  const template = structuredClone(job.spec?.template ?? {});
  const metadata = template.metadata ?? {};
  const name: string = job.metadata.name;
  const spec = template.spec ?? {};
  if (index !== undefined) {
    spec.hostname ??= `${name}-${index}`;
    for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
      container.env = [
        ...(container.env ?? []),
        {
          name: 'JOB_COMPLETION_INDEX',
          valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${COMPLETION_INDEX}']` } },
        },
      ];
    }
  }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: index === undefined ? `${name}-` : `${name}-${index}-`,
      labels: { ...(metadata.labels ?? {}), ...(index === undefined ? {} : { [COMPLETION_INDEX]: String(index) }) },
      annotations: {
        ...(metadata.annotations ?? {}),
        ...(index === undefined ? {} : { [COMPLETION_INDEX]: String(index) }),
      },
      ownerReferences: [controllerRef(job)],
      finalizers: [JOB_TRACKING_FINALIZER],
    },
    spec,
  };
}

function isTrue(conditions: Condition[], type: string): boolean {
  return conditions.some((c) => c.type === type && c.status === 'True');
}

function isTerminal(pod: ApiObject): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

function isReady(pod: ApiObject): boolean {
  return (pod.status?.conditions ?? []).some((c: Condition) => c.type === 'Ready' && c.status === 'True');
}

function hasTrackingFinalizer(pod: ApiObject): boolean {
  return (pod.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);
}

function completionIndexOf(pod: ApiObject): number | undefined {
  const value = pod.metadata.annotations?.[COMPLETION_INDEX] ?? pod.metadata.labels?.[COMPLETION_INDEX];
  return /^\d+$/.test(value ?? '') ? Number(value) : undefined;
}

/** `completedIndexes` as kube writes it: ascending, runs as ranges, `1,3-5,7`. */
export function formatIndexes(indexes: Set<number>): string {
  const sorted = [...indexes].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    runs.push(j === i ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return runs.join(',');
}

export function parseIndexes(text: string): number[] {
  return text
    .split(',')
    .filter(Boolean)
    .flatMap((run) => {
      const [from, to = from] = run.split('-').map(Number);
      return Array.from({ length: to - from + 1 }, (_, k) => from + k);
    });
}
