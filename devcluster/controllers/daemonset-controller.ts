import type { ApiServer } from '../../apiserver/api-server.js';
import type { GenericRegistry } from '../../apiserver/registry/generic-registry.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { deleteQuietly } from '../../apiserver/registry/object-mutation.js';
import type { Store } from '../../store/index.js';
import { CONTROLLER_REVISION_HASH, syncHistory, truncateHistory } from './controller-history.js';
import { claim } from './controller-ref.js';
import { EventRecorder } from './event-recorder.js';
import { scaledValue } from './int-or-percent.js';
import { daemonPodNode, daemonPodTolerations, pinToNode, shouldRunOn } from './node-placement.js';
import { isPodActive, isPodReady, nextAvailabilityCheck, podAvailability } from './pod-conditions.js';
import { OwnerIndex } from './owner-index.js';
import { ReconcileLoop, splitKey } from './reconcile-loop.js';
import { byCreation, createPodOf, podFromTemplate, writeStatus } from './workload-writes.js';

const TEMPLATE_GENERATION = 'pod-template-generation';

/**
 * DaemonSets, as kube-controller-manager's daemonset controller: one pod per Node the pod may
 * run on (nodeSelector and taints, with the tolerations kube adds to daemon pods), named
 * `<ds>-<5 random>`, pinned to its node by a required node affinity on `metadata.name` as kube
 * does; extra pods and pods on nodes they no longer fit are deleted, failed ones replaced.
 * RollingUpdate deletes old-revision pods while no more than `maxUnavailable` nodes lack an
 * available pod; OnDelete waits for the user. ControllerRevisions hold the history
 * (`controller-revision-hash` on pods is the revision's hash). Status as kube.
 * Differs from kube: there is no scheduler to bind the pod, so the controller sets
 * `spec.nodeName` itself; maxSurge is not simulated (treated as 0).
 */
export class DaemonSetController {
  private readonly loop: ReconcileLoop;
  private readonly events: EventRecorder;

  constructor(
    private readonly api: ApiServer,
    store: Store,
  ) {
    this.events = new EventRecorder(api, { component: 'daemonset-controller' });
    const daemonSets = new OwnerIndex('DaemonSet');
    this.loop = new ReconcileLoop(
      store,
      'daemonset controller',
      [
        daemonSets.owners('/registry/apps/daemonsets/'),
        daemonSets.dependents('/registry/core/pods/'),
        // Every DaemonSet decides again where its pods run.
        { prefix: '/registry/core/nodes/', keysOf: () => daemonSets.keys() },
        daemonSets.dependents('/registry/apps/controllerrevisions/'),
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

  private get pods(): GenericRegistry {
    return this.api.registryOf('', 'pods')!;
  }

  private async sync(key: string): Promise<number | void> {
    const { namespace, name } = splitKey(key);
    const daemonSets = this.api.registryOf('apps', 'daemonsets')!;
    const ds = await daemonSets.get(namespace, name).catch(() => null);
    if (!ds) return;
    const nodes = (await this.api.registryOf('', 'nodes')!.objects.list('', {})).objects;
    const history = await syncHistory(this.api, ds);
    const hash: string = history.update.metadata.labels[CONTROLLER_REVISION_HASH];
    const listed = (await this.pods.objects.list(namespace, {})).objects;
    const pods = await claim(ds, listed, this.pods);
    const byNode = new Map<string, ApiObject[]>();
    for (const pod of pods.filter((p) => !p.metadata.deletionTimestamp).sort(byCreation)) {
      const node = daemonPodNode(pod) ?? '';
      byNode.set(node, [...(byNode.get(node) ?? []), pod]);
    }
    const wanted = nodes.filter((node) => shouldRunOn(node, ds.spec.template.spec ?? {}));
    if (!ds.metadata.deletionTimestamp) await this.manage(ds, wanted, byNode, hash);

    const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
    const daemonOf = (node: ApiObject) => (byNode.get(node.metadata.name) ?? []).filter(isPodActive)[0];
    const placed = wanted.map(daemonOf).filter((pod): pod is ApiObject => pod !== undefined);
    const availability = placed.map((pod) => podAvailability(pod, minReadySeconds));
    const available = availability.filter((a) => a.available).length;
    const wantedNames = new Set(wanted.map((node) => node.metadata.name));
    const status: Record<string, any> = {
      currentNumberScheduled: placed.length,
      numberMisscheduled: nodes.filter((n) => !wantedNames.has(n.metadata.name) && byNode.has(n.metadata.name)).length,
      desiredNumberScheduled: wanted.length,
      numberReady: placed.filter(isPodReady).length,
      observedGeneration: ds.metadata.generation,
      updatedNumberScheduled: placed.filter((pod) => pod.metadata.labels?.[CONTROLLER_REVISION_HASH] === hash).length,
      numberAvailable: available,
      numberUnavailable: wanted.length - available,
    };
    // kube leaves these out when zero (omitempty).
    for (const field of ['updatedNumberScheduled', 'numberAvailable', 'numberUnavailable'])
      if (status[field] === 0) delete status[field];
    await writeStatus(daemonSets, ds, status);
    const live = new Set(pods.map((pod) => `${ds.metadata.name}-${pod.metadata.labels?.[CONTROLLER_REVISION_HASH]}`));
    await truncateHistory(this.api, ds, history, live);
    return nextAvailabilityCheck(availability.map((a) => a.wait));
  }

  /** One pass of kube's manage and rollingUpdate: place, remove, then replace old pods. */
  private async manage(
    ds: ApiObject,
    wanted: ApiObject[],
    byNode: Map<string, ApiObject[]>,
    hash: string,
  ): Promise<void> {
    const wantedNames = new Set(wanted.map((node) => node.metadata.name));
    const toDelete: ApiObject[] = [];
    const toCreate: string[] = [];
    for (const [nodeName, pods] of byNode) {
      if (!wantedNames.has(nodeName)) toDelete.push(...pods);
    }
    for (const node of wanted) {
      const pods = byNode.get(node.metadata.name) ?? [];
      toDelete.push(...pods.filter((pod) => pod.status?.phase === 'Failed'));
      const running = pods.filter(isPodActive);
      if (running.length === 0) toCreate.push(node.metadata.name);
      else toDelete.push(...running.slice(1));
    }
    for (const pod of toDelete) await this.deletePod(ds, pod);
    for (const nodeName of toCreate) await this.createPod(ds, nodeName, hash);
    if (toDelete.length || toCreate.length || ds.spec?.updateStrategy?.type === 'OnDelete') return;

    const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
    const maxUnavailable = scaledValue(
      ds.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1,
      wanted.length,
      true,
    );
    const daemons = wanted.map((node) => (byNode.get(node.metadata.name) ?? []).filter(isPodActive)[0]);
    const old = daemons.filter((pod) => pod && pod.metadata.labels?.[CONTROLLER_REVISION_HASH] !== hash);
    const isAvailable = (pod: ApiObject | undefined) =>
      pod !== undefined && podAvailability(pod, minReadySeconds).available;
    let unavailable = daemons.filter((pod) => !isAvailable(pod)).length;
    // Old pods that serve nobody go first, free; then available ones while the budget lasts.
    for (const pod of old.filter((p) => !isAvailable(p))) await this.deletePod(ds, pod);
    for (const pod of old.filter(isAvailable)) {
      if (unavailable >= maxUnavailable) break;
      await this.deletePod(ds, pod);
      unavailable++;
    }
  }

  private async createPod(ds: ApiObject, nodeName: string, hash: string): Promise<void> {
    const pod = podFromTemplate(ds, ds.spec.template, { generateName: `${ds.metadata.name}-` });
    pod.metadata.labels = {
      ...pod.metadata.labels,
      [CONTROLLER_REVISION_HASH]: hash,
      [TEMPLATE_GENERATION]: String(ds.metadata.generation),
    };
    pod.spec.tolerations = daemonPodTolerations(pod.spec);
    pinToNode(pod.spec, nodeName);
    pod.spec.nodeName = nodeName;
    const created = await createPodOf(this.pods, this.events, ds, pod);
    await this.events.record(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
  }

  private async deletePod(ds: ApiObject, pod: ApiObject): Promise<void> {
    await deleteQuietly(this.pods, pod.metadata.namespace, pod.metadata.name);
    await this.events.record(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
  }
}
