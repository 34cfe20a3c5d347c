import type { ApiServer } from '../../apiserver/api-server.js';
import type { GenericRegistry } from '../../apiserver/registry/generic-registry.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { getScale, updateScale } from '../../apiserver/registry/scale.js';
import { ApiError } from '../../apiserver/status.js';
import type { Store } from '../../store/index.js';
import { AS_CONTROLLER } from './controller-manager.js';
import { EventRecorder, type EventType } from './event-recorder.js';
import { joinKey, keyOf, ReconcileLoop, splitKey, type WatchedPrefix } from './reconcile-loop.js';
import { nowTimestamp, writeStatus } from './workload-writes.js';

type Json = Record<string, any>;
/** An event to record: type, reason, message. */
type Recorded = [EventType, string, string];

/** The workloads an HPA may scale (those with a `scale` subresource), by their store prefix. */
const SCALABLE: readonly { prefix: string; kind: string }[] = [
  { prefix: '/registry/apps/deployments/', kind: 'Deployment' },
  { prefix: '/registry/apps/replicasets/', kind: 'ReplicaSet' },
  { prefix: '/registry/apps/statefulsets/', kind: 'StatefulSet' },
  { prefix: '/registry/core/replicationcontrollers/', kind: 'ReplicationController' },
];

/** What the resource metrics API answers on a cluster without metrics-server: kube's error chain for it. */
const NO_RESOURCE_METRICS =
  'unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)';
const NO_CUSTOM_METRICS =
  'unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered';
const NO_EXTERNAL_METRICS =
  'unable to fetch metrics from external metrics API: the server could not find the requested resource (get external.metrics.k8s.io)';

/**
 * HorizontalPodAutoscalers, as kube-controller-manager's podautoscaler controller acts on a
 * cluster without a metrics API (the devcluster has none): it reads the target's `scale`, keeps
 * the replicas within minReplicas and maxReplicas (scaling the target, `SuccessfulRescale`),
 * and reports `currentReplicas`, `desiredReplicas`, `lastScaleTime`, one empty current metric
 * per metric, and the conditions AbleToScale and ScalingActive (False: the metrics cannot be
 * fetched, worded as kube words it). It looks again when the HPA or its target changes, not on
 * kube's 15-second period: without metrics nothing else can change its answer.
 */
export class HorizontalPodAutoscalerController {
  private readonly loop: ReconcileLoop;
  private readonly events: EventRecorder;
  /** HPA keys by `<namespace>/<kind>/<name>` of the target they name, from the HPAs' own watch. */
  private readonly byTarget = new Map<string, Set<string>>();
  private readonly targetOf = new Map<string, string>();

  constructor(
    private readonly api: ApiServer,
    store: Store,
  ) {
    this.events = new EventRecorder(api, { component: 'horizontal-pod-autoscaler' });
    const autoscalers: WatchedPrefix = {
      prefix: '/registry/autoscaling/horizontalpodautoscalers/',
      keysOf: (hpa, deleted) => {
        this.remember(hpa, deleted);
        return [keyOf(hpa)];
      },
    };
    const targets = SCALABLE.map(({ prefix, kind }): WatchedPrefix => ({
      prefix,
      inNamespace: (namespace) => [...this.targetOf.keys()].some((key) => splitKey(key).namespace === namespace),
      keysOf: (workload) => [
        ...(this.byTarget.get(targetKey(workload.metadata.namespace, kind, workload.metadata.name)) ?? []),
      ],
      withPrevious: false,
    }));
    this.loop = new ReconcileLoop(store, 'horizontal pod autoscaler controller', [autoscalers, ...targets], (key) =>
      this.sync(key),
    );
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private get autoscalers(): GenericRegistry {
    return this.api.registryOf('autoscaling', 'horizontalpodautoscalers')!;
  }

  private remember(hpa: ApiObject, deleted: boolean): void {
    const key = keyOf(hpa);
    const before = this.targetOf.get(key);
    if (before) this.byTarget.get(before)?.delete(key);
    this.targetOf.delete(key);
    if (deleted) return;
    const ref = hpa.spec?.scaleTargetRef ?? {};
    const target = targetKey(hpa.metadata.namespace, String(ref.kind ?? ''), String(ref.name ?? ''));
    this.targetOf.set(key, target);
    let keys = this.byTarget.get(target);
    if (!keys) this.byTarget.set(target, (keys = new Set()));
    keys.add(key);
  }

  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const hpa = await this.autoscalers.get(namespace, name);
    if (hpa.metadata.deletionTimestamp) return;
    const spec: Json = hpa.spec ?? {};
    const status: Json = structuredClone(hpa.status ?? {});
    const ref: Json = spec.scaleTargetRef ?? {};
    const target = this.scalableRegistry(ref);
    let scale: ApiObject;
    try {
      if (typeof target === 'string') throw new Error(target);
      scale = await getScale(target, namespace, ref.name);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404) && typeof target !== 'string') throw err;
      const message = (err as Error).message;
      setCondition(
        status,
        'AbleToScale',
        'False',
        'FailedGetScale',
        `the HPA controller was unable to get the target's current scale: ${message}`,
      );
      await this.write(hpa, status, ['Warning', 'FailedGetScale', message]);
      return;
    }
    setCondition(
      status,
      'AbleToScale',
      'True',
      'SucceededGetScale',
      "the HPA controller was able to get the target's current scale",
    );
    const current: number = scale.status?.replicas ?? 0;
    const minReplicas: number = spec.minReplicas ?? 1;
    const maxReplicas: number = spec.maxReplicas ?? 0;
    let desired: number;
    let reason = '';
    if (scale.spec?.replicas === 0 && minReplicas !== 0) {
      desired = 0;
      setCondition(
        status,
        'ScalingActive',
        'False',
        'ScalingDisabled',
        'scaling is disabled since the replica count of the target is zero',
      );
    } else if (current > maxReplicas) {
      desired = maxReplicas;
      reason = 'Current number of replicas above Spec.MaxReplicas';
    } else if (current < minReplicas) {
      desired = minReplicas;
      reason = 'Current number of replicas below Spec.MinReplicas';
    } else {
      // No metrics API answers: kube reports the first metric's failure and keeps its last decision.
      const metrics: Json[] = Array.isArray(spec.metrics) ? spec.metrics : [];
      const failure = metricFailure(metrics[0] ?? {}, namespace);
      const first = failure.reason;
      const reportedBefore = (status.conditions ?? []).find((c: Json) => c.type === 'ScalingActive')?.reason;
      setCondition(
        status,
        'ScalingActive',
        'False',
        first,
        `the HPA was unable to compute the replica count: ${failure.error}`,
      );
      status.currentReplicas = current;
      status.currentMetrics = metrics.map(() => ({ type: '' }));
      // kube repeats these every period; here they are recorded when the failure is new.
      const events: Recorded[] =
        reportedBefore === first
          ? []
          : [
              ['Warning', first, failure.error],
              [
                'Warning',
                'FailedComputeMetricsReplicas',
                `invalid metrics (${metrics.length} invalid out of ${metrics.length}), first error is: ${failure.wrapped}`,
              ],
            ];
      await this.write(hpa, status, ...events);
      return;
    }
    const events: Recorded[] = [];
    if (reason && scale.spec?.replicas !== desired) {
      await updateScale(
        target,
        namespace,
        ref.name,
        { ...scale, spec: { replicas: desired } },
        {
          ...AS_CONTROLLER,
          managerSubresource: 'scale',
        },
      );
      setCondition(
        status,
        'AbleToScale',
        'True',
        'SucceededRescale',
        `the HPA controller was able to update the target scale to ${desired}`,
      );
      status.lastScaleTime = nowTimestamp();
      events.push(['Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`]);
    }
    status.currentReplicas = current;
    status.desiredReplicas = desired;
    await this.write(hpa, status, ...events);
  }

  /**
   * The registry of the target's resource, or why there is none as kube's REST mapping or scale
   * client says it (a kind the server does not serve; one without a `scale` subresource).
   */
  private scalableRegistry(ref: Json): GenericRegistry | string {
    const apiVersion = String(ref.apiVersion ?? '');
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    const served = this.api.options.catalog
      .resources()
      .filter((r) => r.kind === ref.kind && r.group === group && (version === '' || r.version === version));
    if (served.length === 0)
      return `unable to determine resource for scale target reference: no matches for kind "${ref.kind ?? ''}" in group "${group}"`;
    const info = served.find((r) => r.subresources.some((s) => s.name === 'scale'));
    return info ? this.api.registryFor(info) : 'the server could not find the requested resource';
  }

  private async write(hpa: ApiObject, status: Json, ...events: Recorded[]): Promise<void> {
    // kube leaves a zero currentReplicas out (omitempty).
    if (status.currentReplicas === 0) delete status.currentReplicas;
    status.desiredReplicas ??= 0;
    await writeStatus(this.autoscalers, hpa, status);
    for (const [type, reason, message] of events) await this.events.record(hpa, type, reason, message);
  }
}

function targetKey(namespace: string, kind: string, name: string): string {
  return joinKey(namespace, `${kind}/${name}`);
}

/** setConditionInList: a condition's transition time changes only with its status. */
function setCondition(status: Json, type: string, value: string, reason: string, message: string): void {
  const conditions: Json[] = (status.conditions ??= []);
  let condition = conditions.find((c) => c.type === type);
  if (!condition) conditions.push((condition = { type }));
  if (condition.status !== value) condition.lastTransitionTime = nowTimestamp();
  Object.assign(condition, { status: value, reason, message });
  // Go's struct order: type, status, lastTransitionTime, reason, message.
  const { lastTransitionTime, ...rest } = condition;
  conditions[conditions.indexOf(condition)] = {
    type: rest.type,
    status: rest.status,
    lastTransitionTime,
    reason,
    message,
  };
}

/**
 * Why a metric has no value on a cluster without metrics APIs: the condition's reason, the error
 * kube reports for it, and that error as computeReplicasForMetric wraps it.
 */
function metricFailure(metric: Json, namespace: string): { reason: string; error: string; wrapped: string } {
  switch (metric.type) {
    case 'Pods': {
      const name = metric.pods?.metric?.name ?? '';
      const error = `unable to get metric ${name}: ${NO_CUSTOM_METRICS}`;
      return { reason: 'FailedGetPodsMetric', error, wrapped: `failed to get pods metric value: ${error}` };
    }
    case 'Object': {
      const name = metric.object?.metric?.name ?? '';
      const error = `unable to get metric ${name}: ${NO_CUSTOM_METRICS}`;
      return { reason: 'FailedGetObjectMetric', error, wrapped: `failed to get object metric value: ${error}` };
    }
    case 'External': {
      const name = metric.external?.metric?.name ?? '';
      const error = `unable to get external metric ${namespace}/${name}: ${NO_EXTERNAL_METRICS}`;
      return { reason: 'FailedGetExternalMetric', error, wrapped: `failed to get external metric value: ${error}` };
    }
    case 'ContainerResource': {
      const resource = metric.containerResource?.name ?? '';
      const error = `failed to get ${resource} utilization: unable to get metrics for resource ${resource}: ${NO_RESOURCE_METRICS}`;
      return {
        reason: 'FailedGetContainerResourceMetric',
        error,
        wrapped: `failed to get ${resource} container metric value: ${error}`,
      };
    }
    default: {
      const resource = metric.resource?.name ?? '';
      const error = `failed to get ${resource} utilization: unable to get metrics for resource ${resource}: ${NO_RESOURCE_METRICS}`;
      return {
        reason: 'FailedGetResourceMetric',
        error,
        wrapped: `failed to get ${resource} resource metric value: ${error}`,
      };
    }
  }
}
