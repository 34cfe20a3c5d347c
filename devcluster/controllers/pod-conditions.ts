import type { ApiObject } from '../../apiserver/registry/object-store.js';

/**
 * How kube's workload controllers judge a pod (k8s.io/kubernetes pkg/api/v1/pod and
 * pkg/controller): by its phase, its deletion and its `Ready` condition, never by assumption.
 */

/** Counted by a controller: not Succeeded or Failed, and not being deleted. */
export function isPodActive(pod: ApiObject): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

function readyCondition(pod: ApiObject): { status?: string; lastTransitionTime?: string } | undefined {
  return (pod.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Ready');
}

export function isPodReady(pod: ApiObject): boolean {
  return readyCondition(pod)?.status === 'True';
}

/**
 * Ready for at least `minReadySeconds`, as podutil.IsPodAvailable. When the pod is ready but not
 * yet available, `wait` says how many ms are left, so the controller can look again then.
 */
export function podAvailability(pod: ApiObject, minReadySeconds: number, now = Date.now()) {
  const condition = readyCondition(pod);
  if (condition?.status !== 'True') return { available: false };
  if (!minReadySeconds) return { available: true };
  const since = Date.parse(condition.lastTransitionTime ?? '');
  if (Number.isNaN(since)) return { available: false };
  const left = since + minReadySeconds * 1000 - now;
  return left <= 0 ? { available: true } : { available: false, wait: left };
}

/** The shortest wait of a set of pods, plus a margin for the second-granular timestamps. */
export function nextAvailabilityCheck(waits: (number | undefined)[]): number | undefined {
  const pending = waits.filter((w): w is number => w !== undefined);
  return pending.length ? Math.min(...pending) + 100 : undefined;
}
