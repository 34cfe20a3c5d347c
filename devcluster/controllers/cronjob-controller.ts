import type { CronExpression, CronExpressionParser } from 'cron-parser';
import { isDeepStrictEqual } from 'node:util';
import type { ApiServer } from '../../apiserver/api-server.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { deleteQuietly } from '../../apiserver/registry/object-mutation.js';
import { ApiError } from '../../apiserver/status.js';
import type { Store } from '../../store/index.js';
import { controllerOf, controllerRef, ownerKeys } from './controller-ref.js';
import { EventRecorder, type EventType } from './event-recorder.js';
import { ReconcileLoop, keyOf, splitKey } from './reconcile-loop.js';

export const SCHEDULED_TIMESTAMP = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** The robfig/cron macros kube accepts (`@every` aside); cron-parser knows them but for `@midnight`. */
const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
/** kube looks again 100 ms after the next scheduled time, so the time has surely come. */
const NEXT_SCHEDULE_DELTA_MS = 100;

type JobRef = {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
};

const seconds = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * kube-controller-manager's CronJob controller (v2): at each time `spec.schedule` names, in
 * `spec.timeZone` (UTC without one), it creates the Job `<cronjob>-<scheduled time in minutes
 * since the epoch>` from the template, annotated with the scheduled time, unless suspended, too
 * past `startingDeadlineSeconds`, or forbidden by `concurrencyPolicy` (Forbid skips,
 * Replace deletes the running Jobs first). It keeps `status.active`, `lastScheduleTime` and
 * `lastSuccessfulTime`, and deletes finished Jobs beyond the history limits. Only a time after
 * the CronJob's last schedule (or its creation, or now less `startingDeadlineSeconds`) counts,
 * the most recent one when several were missed, as kube. Its clock can be set (tests reach a schedule without waiting a minute).
 */
export class CronJobController {
  private readonly loop: ReconcileLoop;
  private readonly recorder: EventRecorder;

  constructor(
    private readonly api: ApiServer,
    store: Store,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.recorder = new EventRecorder(api, { component: 'cronjob-controller' });
    this.loop = new ReconcileLoop(
      store,
      'cronjob controller',
      [
        { prefix: '/registry/batch/cronjobs/', keysOf: (cronJob) => [keyOf(cronJob)] },
        // Only the controlling CronJob is concerned: the v2 controller adopts no orphaned Job, and
        // one being deleted with --cascade=orphan is not told its Jobs went missing.
        {
          prefix: '/registry/batch/jobs/',
          keysOf: (job) => ownerKeys(job, 'CronJob', () => []),
          withPrevious: false,
        },
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

  /** Resolves to when to look at the CronJob again (its next scheduled time), if ever. */
  private async sync(key: string): Promise<number | void> {
    const { namespace, name } = splitKey(key);
    const cronJobs = this.api.registryOf('batch', 'cronjobs')!;
    const jobsRegistry = this.api.registryOf('batch', 'jobs')!;
    const cronJob = await cronJobs.get(namespace, name).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === 404) return null;
      throw err;
    });
    if (!cronJob) return;
    const spec = cronJob.spec ?? {};
    const status = structuredClone(cronJob.status ?? {});
    let active: JobRef[] = status.active ?? [];
    const { objects } = await jobsRegistry.objects.list(namespace, {});
    const jobs = objects.filter((job) => controllerOf(job, 'CronJob')?.uid === cronJob.metadata.uid);
    const events: [EventType, string, string][] = [];

    for (const job of jobs) {
      const finished = finishedAs(job);
      if (finished && active.some((ref) => ref.uid === job.metadata.uid)) {
        active = active.filter((ref) => ref.uid !== job.metadata.uid);
        events.push(['Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata.name}, status: ${finished}`]);
      }
      const completed = job.status?.completionTime;
      if (
        finished === 'Complete' &&
        completed &&
        !(Date.parse(status.lastSuccessfulTime ?? '') >= Date.parse(completed))
      )
        status.lastSuccessfulTime = completed;
    }
    const missing = active.filter((ref) => !jobs.some((job) => job.metadata.uid === ref.uid));
    for (const ref of missing) events.push(['Normal', 'MissingJob', `Active job went missing: ${ref.name}`]);
    active = active.filter((ref) => !missing.includes(ref));

    for (const [kind, limit] of [
      ['Complete', spec.successfulJobsHistoryLimit],
      ['Failed', spec.failedJobsHistoryLimit],
    ] as const) {
      if (typeof limit !== 'number') continue;
      const finished = jobs
        .filter((job) => finishedAs(job) === kind)
        .sort((a, b) => startOf(a) - startOf(b) || String(a.metadata.name).localeCompare(b.metadata.name));
      for (const job of finished.slice(0, Math.max(0, finished.length - limit))) {
        await deleteQuietly(jobsRegistry, namespace, job.metadata.name);
        events.push(['Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`]);
      }
    }

    let nextIn: number | undefined;
    if (!cronJob.metadata.deletionTimestamp && !spec.suspend) {
      const { created, wakeIn } = await this.schedule(cronJob, active, events);
      nextIn = wakeIn;
      if (created) {
        active = [...active.filter((ref) => !created.replaced.includes(ref.uid)), created.ref];
        status.lastScheduleTime = created.scheduledAt;
      }
    }

    const next = {
      ...(active.length ? { active } : {}),
      ...(status.lastScheduleTime ? { lastScheduleTime: status.lastScheduleTime } : {}),
      ...(status.lastSuccessfulTime ? { lastSuccessfulTime: status.lastSuccessfulTime } : {}),
    };
    if (!isDeepStrictEqual(next, cronJob.status ?? {})) {
      try {
        await cronJobs.update(namespace, name, { ...cronJob, status: next }, 'status');
      } catch (err) {
        if (!(err instanceof ApiError && (err.code === 409 || err.code === 404))) throw err;
        nextIn = 0;
      }
    }
    for (const [type, reason, message] of events) await this.recorder.record(cronJob, type, reason, message);
    return nextIn;
  }

  /**
   * Starts the Job of the most recent unmet scheduled time, if any; tells when the next scheduled
   * time comes, unless the schedule cannot be parsed.
   */
  private async schedule(
    cronJob: ApiObject,
    active: JobRef[],
    events: [EventType, string, string][],
  ): Promise<{ created?: { ref: JobRef; scheduledAt: string; replaced: string[] }; wakeIn?: number }> {
    const spec = cronJob.spec;
    const now = this.clock();
    let schedule: (from: Date) => CronExpression;
    // Loaded with the first CronJob: cron-parser and luxon are a twentieth of the devcluster's start.
    const { CronExpressionParser: parser } = await import('cron-parser');
    try {
      schedule = parseSchedule(parser, String(spec.schedule ?? ''), spec.timeZone);
      schedule(now);
    } catch (err) {
      const reason =
        spec.timeZone && /time ?zone|Invalid/i.test((err as Error).message) ? 'UnknownTimeZone' : 'UnparseableSchedule';
      events.push(
        reason === 'UnknownTimeZone'
          ? [
              'Warning',
              reason,
              `invalid timeZone: ${JSON.stringify(spec.timeZone)}: unknown time zone ${spec.timeZone}`,
            ]
          : ['Warning', reason, `unparseable schedule: ${JSON.stringify(spec.schedule)} : ${(err as Error).message}`],
      );
      return {};
    }
    const nextAt = schedule(now).next().toDate();
    const wakeIn = nextAt.getTime() - now.getTime() + NEXT_SCHEDULE_DELTA_MS;

    let earliest = Date.parse(cronJob.status?.lastScheduleTime ?? cronJob.metadata.creationTimestamp);
    if (typeof spec.startingDeadlineSeconds === 'number')
      earliest = Math.max(earliest, now.getTime() - spec.startingDeadlineSeconds * 1000);
    const scheduled = schedule(new Date(now.getTime() + 1))
      .prev()
      .toDate();
    if (scheduled.getTime() <= earliest) return { wakeIn };
    const jobName = `${cronJob.metadata.name}-${Math.floor(scheduled.getTime() / 60_000)}`;
    if (active.some((ref) => ref.name === jobName)) return { wakeIn };
    const policy = spec.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && active.length) {
      events.push([
        'Normal',
        'JobAlreadyActive',
        'Not starting job because prior execution is running and concurrency policy is Forbid',
      ]);
      return { wakeIn };
    }
    const jobs = this.api.registryOf('batch', 'jobs')!;
    const replaced: string[] = [];
    if (policy === 'Replace') {
      for (const ref of active) {
        await deleteQuietly(jobs, ref.namespace, ref.name);
        replaced.push(ref.uid);
        events.push(['Normal', 'SuccessfulDelete', `Deleted job ${ref.name}`]);
      }
    }
    let job: ApiObject;
    try {
      job = await jobs.create(cronJob.metadata.namespace, jobFor(cronJob, jobName, scheduled));
      events.push(['Normal', 'SuccessfulCreate', `Created job ${jobName}`]);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) throw err;
      job = await jobs.get(cronJob.metadata.namespace, jobName);
      if (controllerOf(job, 'CronJob')?.uid !== cronJob.metadata.uid) return { wakeIn };
    }
    const ref: JobRef = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      namespace: job.metadata.namespace,
      name: job.metadata.name,
      uid: job.metadata.uid,
      resourceVersion: job.metadata.resourceVersion,
    };
    return { created: { ref, scheduledAt: seconds(scheduled), replaced }, wakeIn };
  }
}

/** A schedule as kube's parser takes it: five fields or a macro; the expression from a given time. */
function parseSchedule(
  parser: typeof CronExpressionParser,
  text: string,
  timeZone: string | undefined,
): (from: Date) => CronExpression {
  const trimmed = text.trim();
  const expression = MACROS[trimmed] ?? trimmed;
  const fields = expression.split(/\s+/).filter(Boolean);
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const tz = timeZone ?? 'UTC';
  if (!isTimeZone(tz)) throw new Error(`unknown time zone ${tz}`);
  return (from) => parser.parse(expression, { currentDate: from, tz, strict: false });
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The Job of one scheduled time: the template's metadata and spec, owned by the CronJob. */
function jobFor(cronJob: ApiObject, name: string, scheduled: Date): ApiObject {
  const template = structuredClone(cronJob.spec.jobTemplate ?? {});
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      labels: template.metadata?.labels ?? {},
      annotations: {
        ...(template.metadata?.annotations ?? {}),
        [SCHEDULED_TIMESTAMP]: rfc3339In(scheduled, cronJob.spec.timeZone ?? 'UTC'),
      },
      ownerReferences: [controllerRef(cronJob)],
    },
    spec: template.spec ?? {},
  };
}

function finishedAs(job: ApiObject): 'Complete' | 'Failed' | undefined {
  const condition = (job.status?.conditions ?? []).find(
    (c: { type: string; status: string }) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
  return condition?.type;
}

function startOf(job: ApiObject): number {
  return Date.parse(job.status?.startTime ?? job.metadata.creationTimestamp) || 0;
}

/** Go's time.RFC3339 of the time in a zone: `2026-12-01T21:30:00+01:00`, `…Z` in UTC. */
function rfc3339In(date: Date, timeZone: string): string {
  const offsetName =
    new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
      .formatToParts(date)
      .find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(offsetName);
  const offsetMinutes = match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) : 0;
  const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().replace(/\.\d{3}Z$/, '');
  return offsetMinutes === 0 ? `${local}Z` : `${local}${match![1]}${match![2]}:${match![3]}`;
}
