import type { ApiObject } from '../apiserver/registry/object-store.js';

/** How long a binding waits for its pod to be seen; a dry-run create leaves one that never is. */
const BINDING_MEMORY_MS = 60_000;

/**
 * kube-scheduler with one node and room for everything: a pod created without `spec.nodeName`
 * is bound to the node as it is admitted (devcluster/strategies.ts), so it is never seen Pending.
 * The bindings are remembered for the pod lifecycle controller, which records the scheduler's
 * `Scheduled` event for them, and only for them: a pod created with a nodeName was never scheduled.
 */
export class SimulatedScheduler {
  private readonly bindings = new Map<string, number>();

  constructor(readonly nodeName: string) {}

  schedule(pod: ApiObject): void {
    if (!pod.spec || pod.spec.nodeName) return;
    pod.spec.nodeName = this.nodeName;
    const now = Date.now();
    for (const [uid, at] of this.bindings) if (now - at > BINDING_MEMORY_MS) this.bindings.delete(uid);
    this.bindings.set(pod.metadata.uid, now);
  }

  /** Whether this scheduler bound the pod; answers true once per pod. */
  takeBinding(uid: string): boolean {
    return this.bindings.delete(uid);
  }
}
