import type { ApiServer } from '../../apiserver/api-server.js';
import type { GenericRegistry } from '../../apiserver/registry/generic-registry.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { deleteQuietly } from '../../apiserver/registry/object-mutation.js';
import { ApiError } from '../../apiserver/status.js';
import type { Store } from '../../store/index.js';
import { CONTROLLER_REVISION_HASH, syncHistory, truncateHistory } from './controller-history.js';
import { claim } from './controller-ref.js';
import { EventRecorder } from './event-recorder.js';
import { isPodReady, nextAvailabilityCheck, podAvailability } from './pod-conditions.js';
import { OwnerIndex } from './owner-index.js';
import { ReconcileLoop, splitKey } from './reconcile-loop.js';
import { createAs, createPodOf, podFromTemplate, writeStatus } from './workload-writes.js';

const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

/**
 * StatefulSets, as kube-controller-manager's statefulset controller: pods `<sts>-0…<n-1>` with
 * stable names and `hostname`/`subdomain`, labelled with their ControllerRevision
 * (`controller-revision-hash`), `statefulset.kubernetes.io/pod-name` and
 * `apps.kubernetes.io/pod-index`; one PersistentVolumeClaim per volumeClaimTemplate and pod
 * (`<claim>-<sts>-<ordinal>`, kept when the pod goes, as the default Retain policy). OrderedReady
 * creates in ordinal order, each waiting for the one before to be Running and Ready, and removes
 * from the highest; Parallel does each at once. RollingUpdate replaces, from the highest ordinal
 * down to `partition`, one pod at a time whose revision is not the update revision; OnDelete
 * waits for the user to delete pods. Status as kube (`currentRevision` becomes `updateRevision`
 * once every pod is updated and ready). Events as kube words them.
 */
export class StatefulSetController {
  private readonly loop: ReconcileLoop;
  private readonly events: EventRecorder;

  constructor(
    private readonly api: ApiServer,
    store: Store,
  ) {
    this.events = new EventRecorder(api, { component: 'statefulset-controller' });
    const statefulSets = new OwnerIndex('StatefulSet');
    this.loop = new ReconcileLoop(
      store,
      'statefulset controller',
      [
        statefulSets.owners('/registry/apps/statefulsets/'),
        statefulSets.dependents('/registry/core/pods/'),
        statefulSets.dependents('/registry/apps/controllerrevisions/'),
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
    const statefulSets = this.api.registryOf('apps', 'statefulsets')!;
    const sts = await statefulSets.get(namespace, name).catch(() => null);
    if (!sts) return;
    const listed = (await this.pods.objects.list(namespace, {})).objects;
    const pods = (await claim(sts, listed, this.pods)).filter((pod) => ordinalOf(sts, pod) !== undefined);
    const history = await syncHistory(this.api, sts);
    const update = history.update;
    const current = history.revisions.find((r) => r.metadata.name === sts.status?.currentRevision) ?? update;
    const byOrdinal = new Map(pods.map((pod) => [ordinalOf(sts, pod)!, pod]));
    if (!sts.metadata.deletionTimestamp) await this.manage(sts, byOrdinal, current, update);

    const minReadySeconds = sts.spec?.minReadySeconds ?? 0;
    // As kube counts: every member pod for replicas, those not being deleted for the rest.
    const live = pods.filter((pod) => !pod.metadata.deletionTimestamp);
    const availability = live.map((pod) => podAvailability(pod, minReadySeconds));
    const revisionOf = (pod: ApiObject) => pod.metadata.labels?.[CONTROLLER_REVISION_HASH];
    const status: Record<string, any> = {
      observedGeneration: sts.metadata.generation,
      replicas: pods.length,
      readyReplicas: live.filter(isPodReady).length,
      currentReplicas: live.filter((pod) => revisionOf(pod) === current.metadata.name).length,
      updatedReplicas: live.filter((pod) => revisionOf(pod) === update.metadata.name).length,
      currentRevision: current.metadata.name,
      updateRevision: update.metadata.name,
      collisionCount: sts.status?.collisionCount ?? 0,
      availableReplicas: availability.filter((a) => a.available).length,
    };
    if (
      sts.spec?.updateStrategy?.type !== 'OnDelete' &&
      status.updatedReplicas === status.replicas &&
      status.readyReplicas === status.replicas
    ) {
      status.currentReplicas = status.updatedReplicas;
      status.currentRevision = status.updateRevision;
    }
    // kube leaves these out when zero (omitempty).
    for (const field of ['readyReplicas', 'currentReplicas', 'updatedReplicas'])
      if (status[field] === 0) delete status[field];
    await writeStatus(statefulSets, sts, status);
    const inUse = new Set([status.currentRevision, status.updateRevision, ...pods.map(revisionOf)]);
    await truncateHistory(this.api, sts, history, inUse);
    return nextAvailabilityCheck(availability.map((a) => a.wait));
  }

  /** One pass of kube's updateStatefulSet: create, heal, condemn, then roll. */
  private async manage(sts: ApiObject, byOrdinal: Map<number, ApiObject>, current: ApiObject, update: ApiObject) {
    const replicas: number = sts.spec?.replicas ?? 1;
    const ordered = sts.spec?.podManagementPolicy !== 'Parallel';
    const partition: number = sts.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
    const healthy = (pod: ApiObject | undefined) =>
      pod !== undefined &&
      !pod.metadata.deletionTimestamp &&
      pod.status?.phase === 'Running' &&
      podAvailability(pod, sts.spec?.minReadySeconds ?? 0).available;

    for (let ordinal = 0; ordinal < replicas; ordinal++) {
      const pod = byOrdinal.get(ordinal);
      if (pod && !pod.metadata.deletionTimestamp && ['Failed', 'Succeeded'].includes(pod.status?.phase)) {
        await this.deletePod(sts, pod);
        if (ordered) return;
        continue;
      }
      if (!pod) {
        await this.createPod(sts, ordinal, ordinal < partition ? current : update);
        if (ordered) return;
        continue;
      }
      if (ordered && !healthy(pod)) return;
    }
    const condemned = [...byOrdinal.keys()].filter((o) => o >= replicas).sort((a, b) => b - a);
    for (const ordinal of condemned) {
      const pod = byOrdinal.get(ordinal)!;
      if (pod.metadata.deletionTimestamp) {
        if (ordered) return;
        continue;
      }
      await this.deletePod(sts, pod);
      if (ordered) return;
    }
    if (sts.spec?.updateStrategy?.type === 'OnDelete') return;
    for (let ordinal = replicas - 1; ordinal >= partition; ordinal--) {
      const pod = byOrdinal.get(ordinal);
      if (!pod) return;
      if (pod.metadata.labels?.[CONTROLLER_REVISION_HASH] !== update.metadata.name && !pod.metadata.deletionTimestamp) {
        await this.deletePod(sts, pod);
        return;
      }
      if (!healthy(pod)) return;
    }
  }

  private async createPod(sts: ApiObject, ordinal: number, revision: ApiObject): Promise<void> {
    const name = `${sts.metadata.name}-${ordinal}`;
    const { $patch: _replace, ...template } = revision.data.spec.template;
    const pod = podFromTemplate(sts, template, { name });
    pod.metadata.labels = {
      ...pod.metadata.labels,
      [CONTROLLER_REVISION_HASH]: revision.metadata.name,
      [POD_NAME_LABEL]: name,
      [POD_INDEX_LABEL]: String(ordinal),
    };
    pod.spec.hostname = name;
    if (sts.spec?.serviceName) pod.spec.subdomain = sts.spec.serviceName;
    for (const claimTemplate of sts.spec?.volumeClaimTemplates ?? []) {
      const claimName = `${claimTemplate.metadata.name}-${name}`;
      if (!(await this.ensureClaim(sts, claimTemplate, claimName, name))) return;
      pod.spec.volumes = [
        ...(pod.spec.volumes ?? []).filter((v: { name: string }) => v.name !== claimTemplate.metadata.name),
        { name: claimTemplate.metadata.name, persistentVolumeClaim: { claimName } },
      ];
    }
    try {
      await createPodOf(
        this.pods,
        this.events,
        sts,
        pod,
        (message) => `create Pod ${name} in StatefulSet ${sts.metadata.name} failed error: ${message}`,
      );
    } catch (err) {
      if (err instanceof ApiError && err.code === 409) return;
      throw err;
    }
    await this.events.record(
      sts,
      'Normal',
      'SuccessfulCreate',
      `create Pod ${name} in StatefulSet ${sts.metadata.name} successful`,
    );
  }

  /**
   * A claim of a volumeClaimTemplate, created when missing; labelled with the selector's labels.
   * False when the claim is refused (kube 1.32 does not validate the templates, so an invalid one
   * is found here): the pod is not created, and both are reported as kube's controller does.
   */
  private async ensureClaim(sts: ApiObject, template: ApiObject, claimName: string, podName: string): Promise<boolean> {
    const claims = this.api.registryOf('', 'persistentvolumeclaims');
    if (!claims) return true;
    try {
      await claims.get(sts.metadata.namespace, claimName);
      return true;
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
    try {
      await this.createClaim(claims, sts, template, claimName);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code === 409 || err.code >= 500) throw err;
      const reason = err.status.message;
      await this.events.record(
        sts,
        'Warning',
        'FailedCreate',
        `create Claim ${claimName} for Pod ${podName} in StatefulSet ${sts.metadata.name} failed error: ${reason}`,
      );
      await this.events.record(
        sts,
        'Warning',
        'FailedCreate',
        `create Pod ${podName} in StatefulSet ${sts.metadata.name} failed error: failed to create PVC ${claimName}: ${reason}`,
      );
      return false;
    }
    await this.events.record(
      sts,
      'Normal',
      'SuccessfulCreate',
      `create Claim ${claimName} Pod ${podName} in StatefulSet ${sts.metadata.name} success`,
    );
    return true;
  }

  private async createClaim(claims: GenericRegistry, sts: ApiObject, template: ApiObject, claimName: string) {
    await createAs(claims, sts.metadata.namespace, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: claimName,
        namespace: sts.metadata.namespace,
        labels: { ...(template.metadata?.labels ?? {}), ...(sts.spec?.selector?.matchLabels ?? {}) },
        ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
      },
      spec: structuredClone(template.spec ?? {}),
    });
  }

  private async deletePod(sts: ApiObject, pod: ApiObject): Promise<void> {
    await deleteQuietly(this.pods, pod.metadata.namespace, pod.metadata.name);
    await this.events.record(
      sts,
      'Normal',
      'SuccessfulDelete',
      `delete Pod ${pod.metadata.name} in StatefulSet ${sts.metadata.name} successful`,
    );
  }
}

/** The ordinal of a pod named `<sts>-<n>`, or undefined for a pod that is not a member. */
function ordinalOf(sts: ApiObject, pod: ApiObject): number | undefined {
  const prefix = `${sts.metadata.name}-`;
  const name: string = pod.metadata.name;
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : undefined;
}
