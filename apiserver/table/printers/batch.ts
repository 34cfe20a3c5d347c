/** The batch/v1 workloads: jobs and cronjobs. */
import { humanDuration } from '../duration.js';
import { ageColumn, column, containersColumn, imagesColumn, nameColumn, wideColumn } from './columns.js';
import { containerCells } from './containers.js';
import { formatLabelSelector } from './labels.js';
import type { Printer } from './printer.js';
import { age, parseTimestamp, since } from './timestamps.js';

/** Whether the first condition of `type` is True. */
function hasCondition(job: any, type: string): boolean {
  return (job.status?.conditions ?? []).find((c: any) => c.type === type)?.status === 'True';
}

function jobStatus(job: any): string {
  if (hasCondition(job, 'Complete')) return 'Complete';
  if (hasCondition(job, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (hasCondition(job, 'Suspended')) return 'Suspended';
  if (hasCondition(job, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

/** `succeeded/completions`; a work queue without completions shows `/1`, with its parallelism when above 1. */
function completions(job: any): string {
  const succeeded = job.status?.succeeded ?? 0;
  if (job.spec?.completions != null) return `${succeeded}/${job.spec.completions}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** Time from start to completion, or to now while running; empty before the job starts. */
function jobDuration(job: any, now: Date): string {
  const start = parseTimestamp(job.status?.startTime);
  if (start === undefined) return '';
  const end = parseTimestamp(job.status?.completionTime) ?? now.getTime();
  return humanDuration(end - start);
}

/** NAME STATUS COMPLETIONS DURATION AGE, wide CONTAINERS IMAGES SELECTOR. */
export const jobPrinter: Printer = {
  columns: [
    nameColumn,
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string'),
    column('Duration', 'string', 'Time required to complete the job.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    wideColumn('Selector', 'string'),
  ],
  cells: (job, now) => [
    job.metadata?.name ?? '',
    jobStatus(job),
    completions(job),
    jobDuration(job, now),
    age(job, now),
    ...containerCells(job.spec?.template?.spec),
    formatLabelSelector(job.spec?.selector),
  ],
};

/** NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE, wide CONTAINERS IMAGES SELECTOR. */
export const cronJobPrinter: Printer = {
  columns: [
    nameColumn,
    column('Schedule', 'string'),
    column('Timezone', 'string'),
    column('Suspend', 'boolean'),
    column('Active', 'integer'),
    column('Last Schedule', 'string'),
    ageColumn,
    containersColumn,
    imagesColumn,
    wideColumn('Selector', 'string'),
  ],
  cells(cronJob, now) {
    const spec = cronJob.spec ?? {};
    const lastSchedule = cronJob.status?.lastScheduleTime;
    const jobSpec = spec.jobTemplate?.spec;
    return [
      cronJob.metadata?.name ?? '',
      spec.schedule ?? '',
      spec.timeZone ?? '<none>',
      // The API defaults `suspend` to false.
      (spec.suspend ?? false) ? 'True' : 'False',
      (cronJob.status?.active ?? []).length,
      lastSchedule ? since(lastSchedule, now) : '<none>',
      age(cronJob, now),
      ...containerCells(jobSpec?.template?.spec),
      formatLabelSelector(jobSpec?.selector),
    ];
  },
};
