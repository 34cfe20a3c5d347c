import type { ApiServer } from '../../apiserver/api-server.js';
import type { GenericRegistry } from '../../apiserver/registry/generic-registry.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { deleteQuietly, mutate } from '../../apiserver/registry/object-mutation.js';
import { ApiError } from '../../apiserver/status.js';
import type { Store } from '../../store/index.js';
import { claim, controllerRef } from './controller-ref.js';
import {
  ANNOTATIONS_NOT_COPIED,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  POD_TEMPLATE_HASH,
  REVISION,
  REVISION_HISTORY,
  actualReplicas,
  availableReplicas,
  findNewReplicaSet,
  isComplete,
  isProgressing,
  isRollingUpdate,
  isSaturated,
  maxSurge,
  maxUnavailable,
  newReplicaSetReplicas,
  proportionalSizes,
  readyReplicas,
  replicasOf,
  revisionOf,
  specReplicas,
} from './deployment-rollout.js';
import { EventRecorder } from './event-recorder.js';
import { isPodActive } from './pod-conditions.js';
import { computeHash, jsonEqual } from './pod-template-hash.js';
import { OwnerIndex } from './owner-index.js';
import { ReconcileLoop, splitKey } from './reconcile-loop.js';
import { AS_CONTROLLER } from './controller-manager.js';
import { byCreation, createAs, nowTimestamp, writeStatus } from './workload-writes.js';

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastUpdateTime: string;
  lastTransitionTime: string;
}

/** One pass over a Deployment: the objects read and the status being built. */
interface Pass {
  d: ApiObject;
  /** Every ReplicaSet the Deployment controls; `newRS` among them when it exists. */
  sets: ApiObject[];
  newRS?: ApiObject;
}

/**
 * Deployments, as kube-controller-manager's deployment controller (pkg/controller/deployment):
 * one ReplicaSet per pod template, named `<deployment>-<pod-template-hash>`, its revision in
 * `deployment.kubernetes.io/revision`; rolling updates within maxSurge/maxUnavailable, Recreate,
 * pause (scaling only), proportional scaling mid-rollout, rollback by template (kubectl's
 * `rollout undo` patches the template back: the old ReplicaSet becomes the new one again, with
 * the next revision), old ReplicaSets beyond `revisionHistoryLimit` deleted, and the status and
 * conditions `kubectl rollout status` reads. Events `ScalingReplicaSet` with kube's messages.
 * Not simulated: progressDeadlineSeconds timing out (ProgressDeadlineExceeded).
 */
export class DeploymentController {
  private readonly loop: ReconcileLoop;
  private readonly events: EventRecorder;

  constructor(
    private readonly api: ApiServer,
    store: Store,
  ) {
    this.events = new EventRecorder(api, { component: 'deployment-controller' });
    const deployments = new OwnerIndex('Deployment');
    this.loop = new ReconcileLoop(
      store,
      'deployment controller',
      [deployments.owners('/registry/apps/deployments/'), deployments.dependents('/registry/apps/replicasets/')],
      (key) => this.sync(key),
    );
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private get deployments(): GenericRegistry {
    return this.api.registryOf('apps', 'deployments')!;
  }

  private get replicaSets(): GenericRegistry {
    return this.api.registryOf('apps', 'replicasets')!;
  }

  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    let d = await this.deployments.get(namespace, name).catch(() => null);
    if (!d) return;
    const listed = (await this.replicaSets.objects.list(namespace, {})).objects;
    const sets = await claim(d, listed, this.replicaSets);
    if (d.metadata.deletionTimestamp) return this.syncStatus({ d, sets, newRS: findNewReplicaSet(d, sets) });
    d = await this.checkPaused(d);
    if (d.spec?.paused) return this.scaleOnly(d, sets);
    const active = sets.filter((rs) => replicasOf(rs) > 0);
    if (active.some((rs) => rs.metadata.annotations?.[DESIRED_REPLICAS] !== String(replicasOf(d))))
      return this.scaleOnly(d, sets);
    return isRollingUpdate(d) ? this.rolloutRolling(d, sets) : this.rolloutRecreate(d, sets);
  }

  /** sync(): scale the ReplicaSets to the Deployment's size without rolling anything out. */
  private async scaleOnly(d: ApiObject, sets: ApiObject[]): Promise<void> {
    const pass = await this.syncRevision(d, sets, false);
    await this.scale(pass);
    if (d.spec?.paused) await this.cleanup(pass);
    await this.syncStatus(pass);
  }

  private async rolloutRolling(d: ApiObject, sets: ApiObject[]): Promise<void> {
    const pass = await this.syncRevision(d, sets, true);
    if ((await this.reconcileNew(pass)) || (await this.reconcileOld(pass))) return this.syncRolloutStatus(pass);
    if (isComplete(d, d.status ?? {})) await this.cleanup(pass);
    await this.syncRolloutStatus(pass);
  }

  private async rolloutRecreate(d: ApiObject, sets: ApiObject[]): Promise<void> {
    let pass = await this.syncRevision(d, sets, false);
    let scaledDown = false;
    for (const rs of this.old(pass).filter((rs) => replicasOf(rs) > 0))
      scaledDown = (await this.scaleReplicaSet(pass, rs, 0)) || scaledDown;
    if (scaledDown || (await this.oldPodsRunning(pass))) return this.syncRolloutStatus(pass);
    if (!pass.newRS) pass = await this.syncRevision(d, pass.sets, true);
    if (pass.newRS) await this.scaleReplicaSet(pass, pass.newRS, replicasOf(d));
    if (isComplete(d, d.status ?? {})) await this.cleanup(pass);
    await this.syncRolloutStatus(pass);
  }

  private old(pass: Pass): ApiObject[] {
    return pass.sets.filter((rs) => rs !== pass.newRS);
  }

  private async oldPodsRunning(pass: Pass): Promise<boolean> {
    const old = this.old(pass);
    if (old.some((rs) => (rs.status?.replicas ?? 0) > 0)) return true;
    const uids = new Set(old.map((rs) => rs.metadata.uid));
    const pods = (await this.api.registryOf('', 'pods')!.objects.list(pass.d.metadata.namespace, {})).objects;
    return pods.some(
      (pod) =>
        (pod.metadata.ownerReferences ?? []).some((ref: { uid: string }) => uids.has(ref.uid)) &&
        (isPodActive(pod) || pod.status?.phase === 'Unknown'),
    );
  }

  /**
   * getAllReplicaSetsAndSyncRevision: finds the ReplicaSet of the current template (creating it
   * when asked), gives it the next revision and the Deployment's annotations, and records the
   * revision on the Deployment.
   */
  private async syncRevision(d: ApiObject, sets: ApiObject[], create: boolean): Promise<Pass> {
    const existing = findNewReplicaSet(d, sets);
    const oldSets = sets.filter((rs) => rs !== existing);
    const newRevision = String(Math.max(0, ...oldSets.map(revisionOf)) + 1);
    const pass: Pass = { d, sets };
    if (existing) {
      const { namespace, name } = existing.metadata;
      await mutate(
        this.replicaSets,
        namespace,
        name,
        (rs) => {
          const annotated = copyAnnotations(d, rs, newRevision, true);
          return syncMinReadySeconds(d, rs) || annotated;
        },
        AS_CONTROLLER,
      );
      pass.newRS = await this.replicaSets.get(namespace, name).catch(() => existing);
      pass.sets = [...oldSets, pass.newRS];
      pass.d = await this.recordRevision(d, revisionOf(pass.newRS), (copy) =>
        setCondition(
          copy,
          'Progressing',
          'True',
          'FoundNewReplicaSet',
          `Found new replica set "${existing.metadata.name}"`,
          true,
        ),
      );
      return pass;
    }
    if (!create) return pass;
    const template = structuredClone(d.spec.template);
    const hash = computeHash(template, d.status?.collisionCount);
    template.metadata = { ...(template.metadata ?? {}) };
    template.metadata.labels = { ...(template.metadata.labels ?? {}), [POD_TEMPLATE_HASH]: hash };
    const selector = structuredClone(d.spec.selector ?? {});
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH]: hash };
    const body: ApiObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata.name}-${hash}`,
        namespace: d.metadata.namespace,
        labels: template.metadata.labels,
        ownerReferences: [controllerRef(d)],
      },
      spec: {
        replicas: 0,
        ...(d.spec.minReadySeconds ? { minReadySeconds: d.spec.minReadySeconds } : {}),
        selector,
        template,
      },
    };
    body.spec.replicas = newReplicaSetReplicas(d, [...oldSets, body], body);
    copyAnnotations(d, body, newRevision, false);
    body.metadata.annotations[DESIRED_REPLICAS] = String(replicasOf(d));
    body.metadata.annotations[MAX_REPLICAS] = String(replicasOf(d) + maxSurge(d));
    let created: ApiObject;
    try {
      created = await createAs(this.replicaSets, d.metadata.namespace, body);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) throw err;
      // A ReplicaSet of that name with another template: a hash collision. Count it and retry.
      const clash = await this.replicaSets.get(d.metadata.namespace, body.metadata.name);
      if (
        clash.metadata.ownerReferences?.some((r: { uid: string }) => r.uid === d.metadata.uid) &&
        jsonEqual(clash.spec?.template, template)
      )
        return { d, sets: [...oldSets, clash], newRS: clash };
      await writeStatus(this.deployments, d, {
        ...(d.status ?? {}),
        collisionCount: (d.status?.collisionCount ?? 0) + 1,
      });
      throw err;
    }
    if (replicasOf(created) > 0)
      await this.events.record(
        d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled up replica set ${created.metadata.name} from 0 to ${replicasOf(created)}`,
      );
    pass.newRS = created;
    pass.sets = [...oldSets, created];
    pass.d = await this.recordRevision(d, Number(newRevision), (copy) =>
      setCondition(
        copy,
        'Progressing',
        'True',
        'NewReplicaSetCreated',
        `Created new replica set "${created.metadata.name}"`,
      ),
    );
    return pass;
  }

  /** The revision annotation on the Deployment, then the Progressing condition `condition` sets, if any. */
  private async recordRevision(
    d: ApiObject,
    revision: number,
    condition: (copy: ApiObject) => boolean,
  ): Promise<ApiObject> {
    let current = d;
    if (d.metadata.annotations?.[REVISION] !== String(revision)) {
      // kube writes the revision with the status (UpdateStatus), so managedFields name it so.
      current = await this.deployments.update(
        d.metadata.namespace,
        d.metadata.name,
        {
          ...d,
          metadata: { ...d.metadata, annotations: { ...(d.metadata.annotations ?? {}), [REVISION]: String(revision) } },
        },
        '',
        { ...AS_CONTROLLER, managerSubresource: 'status' },
      );
    }
    if (!hasProgressDeadline(current)) return current;
    const copy = { ...current, status: structuredClone(current.status ?? {}) };
    return condition(copy) ? writeStatus(this.deployments, current, copy.status) : current;
  }

  /** reconcileNewReplicaSet. */
  private async reconcileNew(pass: Pass): Promise<boolean> {
    const { d, newRS } = pass;
    if (!newRS || replicasOf(newRS) === replicasOf(d)) return false;
    if (replicasOf(newRS) > replicasOf(d)) return this.scaleReplicaSet(pass, newRS, replicasOf(d));
    return this.scaleReplicaSet(pass, newRS, newReplicaSetReplicas(d, pass.sets, newRS));
  }

  /** reconcileOldReplicaSets: scale old ReplicaSets down as far as maxUnavailable allows. */
  private async reconcileOld(pass: Pass): Promise<boolean> {
    const { d, newRS } = pass;
    const oldSets = this.old(pass).filter((rs) => replicasOf(rs) > 0);
    if (specReplicas(oldSets) === 0) return false;
    const minAvailable = replicasOf(d) - maxUnavailable(d);
    const newUnavailable = newRS ? replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0) : 0;
    const maxScaledDown = specReplicas(pass.sets) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    let changed = false;
    // cleanupUnhealthyReplicas: unavailable old pods go first, they serve nobody.
    let cleaned = 0;
    for (const rs of [...oldSets].sort(byCreation)) {
      if (cleaned >= maxScaledDown) break;
      const unhealthy = replicasOf(rs) - (rs.status?.availableReplicas ?? 0);
      if (unhealthy <= 0) continue;
      const count = Math.min(maxScaledDown - cleaned, unhealthy);
      changed = (await this.scaleReplicaSet(pass, rs, replicasOf(rs) - count)) || changed;
      cleaned += count;
    }
    // scaleDownOldReplicaSetsForRollingUpdate: then healthy ones, down to minAvailable.
    const available = availableReplicas(pass.sets);
    if (available > minAvailable) {
      let total = available - minAvailable;
      for (const rs of this.old(pass).sort(byCreation)) {
        if (total <= 0) break;
        if (replicasOf(rs) === 0) continue;
        const count = Math.min(replicasOf(rs), total);
        changed = (await this.scaleReplicaSet(pass, rs, replicasOf(rs) - count)) || changed;
        total -= count;
      }
    }
    return changed;
  }

  /** scale(): the Deployment's size changed; no template change is rolled out. */
  private async scale(pass: Pass): Promise<void> {
    const { d, newRS } = pass;
    const old = this.old(pass).sort((a, b) => byCreation(b, a));
    const active = pass.sets.filter((rs) => replicasOf(rs) > 0);
    if (active.length <= 1) {
      // FindActiveOrLatest: the one active ReplicaSet, else the new one, else the newest.
      const target = active[0] ?? newRS ?? old[0];
      if (target) await this.scaleReplicaSet(pass, target, replicasOf(d));
      return;
    }
    if (isSaturated(d, newRS)) {
      for (const rs of old.filter((rs) => replicasOf(rs) > 0)) await this.scaleReplicaSet(pass, rs, 0);
      return;
    }
    if (!isRollingUpdate(d)) return;
    const sizes = proportionalSizes(d, active);
    for (const rs of active) await this.scaleReplicaSet(pass, rs, sizes.get(rs.metadata.name)!);
  }

  /**
   * scaleReplicaSetAndRecordEvent: a new size and the Deployment's size annotations; an event
   * when the size changed. Updates the pass's copy. True when the size changed.
   */
  private async scaleReplicaSet(pass: Pass, rs: ApiObject, size: number): Promise<boolean> {
    const { d } = pass;
    const from = replicasOf(rs);
    const desired = String(replicasOf(d));
    const max = String(replicasOf(d) + maxSurge(d));
    const annotations = rs.metadata.annotations ?? {};
    if (from === size && annotations[DESIRED_REPLICAS] === desired && annotations[MAX_REPLICAS] === max) return false;
    const updated = await this.replicaSets.update(
      rs.metadata.namespace,
      rs.metadata.name,
      {
        ...rs,
        metadata: { ...rs.metadata, annotations: { ...annotations, [DESIRED_REPLICAS]: desired, [MAX_REPLICAS]: max } },
        spec: { ...rs.spec, replicas: size },
      },
      '',
      AS_CONTROLLER,
    );
    pass.sets = pass.sets.map((s) => (s === rs ? updated : s));
    if (pass.newRS === rs) pass.newRS = updated;
    if (from === size) return false;
    await this.events.record(
      d,
      'Normal',
      'ScalingReplicaSet',
      `Scaled ${from < size ? 'up' : 'down'} replica set ${rs.metadata.name} from ${from} to ${size}`,
    );
    return true;
  }

  /** cleanupDeployment: old, empty ReplicaSets beyond revisionHistoryLimit go, oldest revision first. */
  private async cleanup(pass: Pass): Promise<void> {
    const limit = pass.d.spec?.revisionHistoryLimit;
    if (limit === undefined || limit === null) return;
    const cleanable = this.old(pass)
      .filter((rs) => !rs.metadata.deletionTimestamp)
      .sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
    for (const rs of cleanable.slice(0, Math.max(0, cleanable.length - limit))) {
      if ((rs.status?.replicas ?? 0) !== 0 || replicasOf(rs) !== 0) continue;
      if ((rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
      await deleteQuietly(this.replicaSets, rs.metadata.namespace, rs.metadata.name);
    }
  }

  /** checkPausedConditions: Progressing Unknown with DeploymentPaused or DeploymentResumed. */
  private async checkPaused(d: ApiObject): Promise<ApiObject> {
    if (!hasProgressDeadline(d)) return d;
    const progressing = conditionOf(d, 'Progressing');
    if (progressing?.reason === 'ProgressDeadlineExceeded') return d;
    const pausedNoted = progressing?.reason === 'DeploymentPaused';
    const copy = { ...d, status: structuredClone(d.status ?? {}) };
    if (d.spec?.paused && !pausedNoted)
      setCondition(copy, 'Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused');
    else if (!d.spec?.paused && pausedNoted)
      setCondition(copy, 'Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed');
    else return d;
    return writeStatus(this.deployments, d, copy.status);
  }

  /** syncDeploymentStatus: the status of the ReplicaSets as they are. */
  private async syncStatus(pass: Pass): Promise<void> {
    const status = calculateStatus(pass);
    await writeStatus(this.deployments, pass.d, status);
  }

  /** syncRolloutStatus: the status, and the Progressing condition a rollout moves through. */
  private async syncRolloutStatus(pass: Pass): Promise<void> {
    const { d, newRS } = pass;
    const status = calculateStatus(pass);
    const next = { ...d, status };
    if (!hasProgressDeadline(d)) {
      status.conditions = (status.conditions ?? []).filter((c: Condition) => c.type !== 'Progressing');
    } else {
      const current = conditionOf(d, 'Progressing');
      const completed = status.replicas === status.updatedReplicas && current?.reason === 'NewReplicaSetAvailable';
      if (!completed) {
        if (isComplete(d, status)) {
          const message = newRS
            ? `ReplicaSet "${newRS.metadata.name}" has successfully progressed.`
            : `Deployment "${d.metadata.name}" has successfully progressed.`;
          setCondition(next, 'Progressing', 'True', 'NewReplicaSetAvailable', message);
        } else if (isProgressing(d.status ?? {}, status)) {
          const message = newRS
            ? `ReplicaSet "${newRS.metadata.name}" is progressing.`
            : `Deployment "${d.metadata.name}" is progressing.`;
          const transition = current?.status === 'True' ? current.lastTransitionTime : undefined;
          status.conditions = (status.conditions ?? []).filter((c: Condition) => c.type !== 'Progressing');
          setCondition(next, 'Progressing', 'True', 'ReplicaSetUpdated', message);
          if (transition) conditionOf(next, 'Progressing')!.lastTransitionTime = transition;
        }
      }
    }
    await writeStatus(this.deployments, d, status);
  }
}

function calculateStatus({ d, sets, newRS }: Pass): Record<string, any> {
  const available = availableReplicas(sets);
  const status: Record<string, any> = {
    observedGeneration: d.metadata.generation,
    replicas: actualReplicas(sets),
    updatedReplicas: newRS ? actualReplicas([newRS]) : 0,
    readyReplicas: readyReplicas(sets),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, specReplicas(sets) - available),
    conditions: structuredClone(d.status?.conditions ?? []),
    ...(d.status?.collisionCount !== undefined ? { collisionCount: d.status.collisionCount } : {}),
  };
  const next = { ...d, status };
  if (available >= replicasOf(d) - maxUnavailable(d))
    setCondition(next, 'Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.');
  else
    setCondition(
      next,
      'Available',
      'False',
      'MinimumReplicasUnavailable',
      'Deployment does not have minimum availability.',
    );
  // kube leaves zero counts out of the status it writes (omitempty).
  for (const field of ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas'])
    if (status[field] === 0) delete status[field];
  return status;
}

function hasProgressDeadline(d: ApiObject): boolean {
  const deadline = d.spec?.progressDeadlineSeconds;
  return deadline !== undefined && deadline !== null && deadline !== 2147483647;
}

function conditionOf(d: ApiObject, type: string): Condition | undefined {
  return (d.status?.conditions ?? []).find((c: Condition) => c.type === type);
}

/**
 * SetDeploymentCondition: replaces the condition of that type unless status and reason are
 * unchanged, keeping lastTransitionTime while the status is. `onlyIfMissing` leaves an existing
 * condition of the type alone. True when something changed.
 */
function setCondition(
  d: ApiObject,
  type: string,
  status: string,
  reason: string,
  message: string,
  onlyIfMissing = false,
): boolean {
  d.status ??= {};
  const current = conditionOf(d, type);
  if (current && (onlyIfMissing || (current.status === status && current.reason === reason))) return false;
  const now = nowTimestamp();
  const condition: Condition = {
    type,
    status,
    lastUpdateTime: now,
    lastTransitionTime: current?.status === status ? current.lastTransitionTime : now,
    reason,
    message,
  };
  d.status.conditions = [...(d.status.conditions ?? []).filter((c: Condition) => c.type !== type), condition];
  return true;
}

/** SetNewReplicaSetAnnotations: the Deployment's annotations and the revision onto its new ReplicaSet. */
function copyAnnotations(d: ApiObject, rs: ApiObject, newRevision: string, exists: boolean): boolean {
  const annotations: Record<string, string> = (rs.metadata.annotations ??= {});
  let changed = false;
  for (const [key, value] of Object.entries((d.metadata.annotations ?? {}) as Record<string, string>)) {
    if (ANNOTATIONS_NOT_COPIED.has(key) || annotations[key] === value) continue;
    annotations[key] = value;
    changed = true;
  }
  const oldRevision = annotations[REVISION];
  if ((Number.parseInt(oldRevision ?? '0', 10) || 0) < Number(newRevision)) {
    annotations[REVISION] = newRevision;
    changed = true;
    // A ReplicaSet given a newer revision is being rolled back to: keep the revisions it had.
    if (exists && oldRevision) {
      const history = annotations[REVISION_HISTORY];
      annotations[REVISION_HISTORY] = history ? `${history},${oldRevision}` : oldRevision;
    }
  }
  return changed;
}

function syncMinReadySeconds(d: ApiObject, rs: ApiObject): boolean {
  const wanted = d.spec?.minReadySeconds ?? 0;
  if ((rs.spec?.minReadySeconds ?? 0) === wanted) return false;
  rs.spec.minReadySeconds = wanted;
  return true;
}
