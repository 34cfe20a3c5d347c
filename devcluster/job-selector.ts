import type { ApiObject } from '../apiserver/registry/object-store.js';

export const JOB_LABELS = {
  controllerUid: 'batch.kubernetes.io/controller-uid',
  jobName: 'batch.kubernetes.io/job-name',
  legacyControllerUid: 'controller-uid',
  legacyJobName: 'job-name',
} as const;

/**
 * kube-apiserver's Job strategy on create: unless `manualSelector` is true, the selector is
 * generated from the Job's uid and the pod template carries the labels it matches (both the
 * `batch.kubernetes.io/` ones and the legacy bare ones); `podReplacementPolicy` defaults to
 * TerminatingOrFailed when there is no podFailurePolicy.
 */
export function prepareJobForCreate(job: ApiObject): void {
  const spec = (job.spec ??= {});
  spec.podReplacementPolicy ??= spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
  if (spec.manualSelector === true) return;
  const { uid, name } = job.metadata;
  spec.selector = { matchLabels: { [JOB_LABELS.controllerUid]: uid } };
  const template = (spec.template ??= {});
  const metadata = (template.metadata ??= {});
  metadata.labels = {
    ...(metadata.labels ?? {}),
    [JOB_LABELS.controllerUid]: uid,
    [JOB_LABELS.jobName]: name,
    [JOB_LABELS.legacyControllerUid]: uid,
    [JOB_LABELS.legacyJobName]: name,
  };
}
