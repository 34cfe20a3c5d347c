import type { ApiServer } from '../../apiserver/api-server.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { deleteQuietly } from '../../apiserver/registry/object-mutation.js';
import type { Store } from '../../store/index.js';
import { claim } from './controller-ref.js';
import { EventRecorder } from './event-recorder.js';
import { isPodActive, isPodReady, nextAvailabilityCheck, podAvailability } from './pod-conditions.js';
import { OwnerIndex } from './owner-index.js';
import { ReconcileLoop, splitKey } from './reconcile-loop.js';
import { byCreation, createPodOf, podFromTemplate, writeStatus } from './workload-writes.js';

/** kube's replicaset controller creates and deletes at most this many pods in one pass (burstReplicas). */
const BURST_REPLICAS = 500;

/**
 * ReplicaSets, as kube-controller-manager's replicaset controller: keeps `spec.replicas` active
 * pods of the template (named `<rs>-<5 random>`, controlled by the ReplicaSet), adopts orphans its
 * selector matches and releases pods it stops matching, deletes the least useful pods first when
 * scaling down (not yet scheduled, then not running, then not ready, then the newest), and
 * reports `replicas`, `fullyLabeledReplicas`, `readyReplicas`, `availableReplicas` (ready for
 * `minReadySeconds`) and `observedGeneration`. Events `SuccessfulCreate`/`SuccessfulDelete`.
 */
export class ReplicaSetController {
  private readonly loop: ReconcileLoop;
  private readonly events: EventRecorder;

  constructor(
    private readonly api: ApiServer,
    store: Store,
  ) {
    this.events = new EventRecorder(api, { component: 'replicaset-controller' });
    const replicaSets = new OwnerIndex('ReplicaSet');
    this.loop = new ReconcileLoop(
      store,
      'replicaset controller',
      [replicaSets.owners('/registry/apps/replicasets/'), replicaSets.dependents('/registry/core/pods/')],
      (key) => this.sync(key),
    );
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async sync(key: string): Promise<number | void> {
    const { namespace, name } = splitKey(key);
    const replicaSets = this.api.registryOf('apps', 'replicasets')!;
    const pods = this.api.registryOf('', 'pods')!;
    const rs = await replicaSets.get(namespace, name).catch(() => null);
    if (!rs) return;
    const all = (await pods.objects.list(namespace, {})).objects;
    const owned = (await claim(rs, all.filter(isPodActive), pods)).filter(isPodActive);

    if (!rs.metadata.deletionTimestamp) {
      const diff = owned.length - (rs.spec?.replicas ?? 1);
      if (diff < 0) {
        for (let i = 0; i < Math.min(-diff, BURST_REPLICAS); i++) {
          const pod = await createPodOf(
            pods,
            this.events,
            rs,
            podFromTemplate(rs, rs.spec.template, { generateName: `${rs.metadata.name}-` }),
          );
          await this.events.record(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
        }
      } else if (diff > 0) {
        for (const pod of [...owned].sort(deletionOrder).slice(0, Math.min(diff, BURST_REPLICAS))) {
          await deleteQuietly(pods, namespace, pod.metadata.name);
          await this.events.record(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
        }
      }
    }

    const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
    const templateLabels: Record<string, string> = rs.spec?.template?.metadata?.labels ?? {};
    const availability = owned.map((pod) => podAvailability(pod, minReadySeconds));
    const status: Record<string, unknown> = {
      replicas: owned.length,
      fullyLabeledReplicas: owned.filter((pod) =>
        Object.entries(templateLabels).every(([k, v]) => pod.metadata.labels?.[k] === v),
      ).length,
      readyReplicas: owned.filter(isPodReady).length,
      availableReplicas: availability.filter((a) => a.available).length,
      observedGeneration: rs.metadata.generation,
      ...(rs.status?.conditions ? { conditions: rs.status.conditions } : {}),
    };
    // kube leaves these out when zero (omitempty); `replicas` is always there.
    for (const field of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'] as const)
      if (status[field] === 0) delete status[field];
    await writeStatus(replicaSets, rs, status);
    return nextAvailabilityCheck(availability.map((a) => a.wait));
  }
}

/** kube's ActivePods order for deletion: unscheduled, pending, not ready, then the newest first. */
function deletionOrder(a: ApiObject, b: ApiObject): number {
  const scheduled = (pod: ApiObject) => (pod.spec?.nodeName ? 1 : 0);
  const phaseRank = (pod: ApiObject) => ({ Pending: 0, Unknown: 1, Running: 2 })[pod.status?.phase as string] ?? 0;
  const ready = (pod: ApiObject) => (isPodReady(pod) ? 1 : 0);
  return scheduled(a) - scheduled(b) || phaseRank(a) - phaseRank(b) || ready(a) - ready(b) || byCreation(b, a);
}
