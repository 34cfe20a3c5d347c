/**
 * HorizontalPodAutoscaler between autoscaling/v1 and autoscaling/v2 (stored at v2), as kube 1.32's
 * pkg/apis/autoscaling/v1/conversion.go converts it. v1 holds one CPU utilization target; what
 * it cannot hold travels in annotations that v1 clients keep when they write the object back:
 * the other metrics, the current metrics, the conditions and the behavior, each as Go's JSON of
 * its v1 type (the behavior as kube's internal type, so with Go's field names). Reading them
 * back, kube takes what parses and drops the annotations; v2 never shows them.
 */
import { goJsonMarshal } from '../go-json/marshal.js';
import { isObject, type Json } from '../json.js';
import type { ApiObject } from '../registry/object-store.js';
import type { KindConversion } from './kind-conversion.js';

export const METRIC_SPECS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const METRIC_STATUSES_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
const ROUND_TRIP_ANNOTATIONS = [
  METRIC_SPECS_ANNOTATION,
  BEHAVIOR_ANNOTATION,
  METRIC_STATUSES_ANNOTATION,
  CONDITIONS_ANNOTATION,
];

/** autoscaling/v1's implicit target, explicit since v2: 80% of the requested CPU. */
export const DEFAULT_CPU_UTILIZATION = 80;

/** A zero resource.Quantity, as Go marshals a non-pointer one that is unset. */
const ZERO_QUANTITY = '0';

export const horizontalPodAutoscalerConversion: KindConversion = {
  storageVersion: 'v2',
  toStorage: (object, version) => (version === 'v1' ? v1ToV2(object) : withoutRoundTripAnnotations(object)),
  fromStorage: (object, version) => (version === 'v1' ? v2ToV1(object) : withoutRoundTripAnnotations(object)),
};

/** Fields present in `fields` whose value is not undefined, in the order given (Go's struct order). */
function defined(fields: Json): Json {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

const obj = (value: unknown): Json => (isObject(value) ? value : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function isCpuResource(metric: unknown): boolean {
  const m = obj(metric);
  return m.type === 'Resource' && isObject(m.resource) && m.resource.name === 'cpu';
}

/** A copy of the annotations without the round-trip ones; undefined when none is left (Go's omitempty). */
function dropRoundTrip(annotations: unknown): Json | undefined {
  if (!isObject(annotations)) return undefined;
  const kept = Object.fromEntries(Object.entries(annotations).filter(([key]) => !ROUND_TRIP_ANNOTATIONS.includes(key)));
  return Object.keys(kept).length ? kept : undefined;
}

function withMetadata(object: ApiObject, annotations: Json | undefined): Json {
  const { annotations: _dropped, ...metadata } = object.metadata;
  return annotations ? { ...metadata, annotations } : metadata;
}

function withoutRoundTripAnnotations(object: ApiObject): ApiObject {
  const annotations = object.metadata?.annotations;
  if (!isObject(annotations) || !ROUND_TRIP_ANNOTATIONS.some((key) => key in annotations)) return object;
  return { ...object, metadata: withMetadata(object, dropRoundTrip(annotations)) };
}

// ---- v2 → v1 ----

function v2ToV1(object: ApiObject): ApiObject {
  const { spec: rawSpec, status: rawStatus, metadata: _metadata, ...rest } = object;
  const spec = obj(rawSpec);
  const status = obj(rawStatus);
  const metrics = list(spec.metrics);
  const annotations: Json = { ...dropRoundTrip(object.metadata.annotations) };
  const other = metrics
    .filter((m) => !(isCpuResource(m) && obj(obj(m).resource).target?.averageUtilization != null))
    .map(metricSpecToV1);
  if (other.length) annotations[METRIC_SPECS_ANNOTATION] = goJsonMarshal(other);
  const currentMetrics = list(status.currentMetrics);
  if (currentMetrics.length)
    annotations[METRIC_STATUSES_ANNOTATION] = goJsonMarshal(currentMetrics.map(metricStatusToV1));
  if (isObject(spec.behavior)) annotations[BEHAVIOR_ANNOTATION] = goJsonMarshal(internalBehavior(spec.behavior));
  const conditions = list(status.conditions);
  if (conditions.length) annotations[CONDITIONS_ANNOTATION] = goJsonMarshal(conditions.map(conditionOf));
  // The first CPU metric gives v1 its target, if it is a utilization.
  const cpu = metrics.find(isCpuResource);
  let currentCpu: unknown;
  for (const m of currentMetrics)
    if (isCpuResource(m) && obj(obj(m).resource).current?.averageUtilization != null)
      currentCpu = obj(obj(m).resource).current.averageUtilization;
  return {
    ...rest,
    metadata: withMetadata(object, Object.keys(annotations).length ? annotations : undefined),
    spec: defined({
      scaleTargetRef: crossVersionReference(spec.scaleTargetRef),
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas ?? 0,
      targetCPUUtilizationPercentage: cpu
        ? (obj(obj(cpu).resource).target?.averageUtilization ?? undefined)
        : undefined,
    }),
    status: defined({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      currentReplicas: status.currentReplicas ?? 0,
      desiredReplicas: status.desiredReplicas ?? 0,
      currentCPUUtilizationPercentage: currentCpu,
    }),
  };
}

function crossVersionReference(ref: unknown): Json {
  const r = obj(ref);
  return defined({ kind: r.kind ?? '', name: r.name ?? '', apiVersion: r.apiVersion || undefined });
}

/** v2's MetricSpec as v1's (Convert_autoscaling_MetricSpec_To_v1_MetricSpec and its sources). */
function metricSpecToV1(metric: unknown): Json {
  const m = obj(metric);
  const target = (source: Json) => obj(source.target);
  const identifier = (source: Json) => obj(source.metric);
  return defined({
    type: m.type ?? '',
    object: isObject(m.object)
      ? defined({
          target: crossVersionReference(m.object.describedObject),
          metricName: identifier(m.object).name ?? '',
          targetValue: target(m.object).value ?? ZERO_QUANTITY,
          selector: identifier(m.object).selector ?? undefined,
          averageValue: target(m.object).averageValue ?? undefined,
        })
      : undefined,
    pods: isObject(m.pods)
      ? defined({
          metricName: identifier(m.pods).name ?? '',
          targetAverageValue: target(m.pods).averageValue ?? ZERO_QUANTITY,
          selector: identifier(m.pods).selector ?? undefined,
        })
      : undefined,
    resource: isObject(m.resource)
      ? defined({
          name: m.resource.name ?? '',
          targetAverageUtilization: target(m.resource).averageUtilization ?? undefined,
          targetAverageValue: target(m.resource).averageValue ?? undefined,
        })
      : undefined,
    containerResource: isObject(m.containerResource)
      ? defined({
          name: m.containerResource.name ?? '',
          targetAverageUtilization: target(m.containerResource).averageUtilization ?? undefined,
          targetAverageValue: target(m.containerResource).averageValue ?? undefined,
          container: m.containerResource.container ?? '',
        })
      : undefined,
    external: isObject(m.external)
      ? defined({
          metricName: identifier(m.external).name ?? '',
          metricSelector: identifier(m.external).selector ?? undefined,
          targetValue: target(m.external).value ?? undefined,
          targetAverageValue: target(m.external).averageValue ?? undefined,
        })
      : undefined,
  });
}

/** v2's MetricStatus as v1's. */
function metricStatusToV1(metric: unknown): Json {
  const m = obj(metric);
  const current = (source: Json) => obj(source.current);
  const identifier = (source: Json) => obj(source.metric);
  return defined({
    type: m.type ?? '',
    object: isObject(m.object)
      ? defined({
          target: crossVersionReference(m.object.describedObject),
          metricName: identifier(m.object).name ?? '',
          currentValue: current(m.object).value ?? ZERO_QUANTITY,
          selector: identifier(m.object).selector ?? undefined,
          averageValue: current(m.object).averageValue ?? undefined,
        })
      : undefined,
    pods: isObject(m.pods)
      ? defined({
          metricName: identifier(m.pods).name ?? '',
          currentAverageValue: current(m.pods).averageValue ?? ZERO_QUANTITY,
          selector: identifier(m.pods).selector ?? undefined,
        })
      : undefined,
    resource: isObject(m.resource)
      ? defined({
          name: m.resource.name ?? '',
          currentAverageUtilization: current(m.resource).averageUtilization ?? undefined,
          currentAverageValue: current(m.resource).averageValue ?? ZERO_QUANTITY,
        })
      : undefined,
    containerResource: isObject(m.containerResource)
      ? defined({
          name: m.containerResource.name ?? '',
          currentAverageUtilization: current(m.containerResource).averageUtilization ?? undefined,
          currentAverageValue: current(m.containerResource).averageValue ?? ZERO_QUANTITY,
          container: m.containerResource.container ?? '',
        })
      : undefined,
    external: isObject(m.external)
      ? defined({
          metricName: identifier(m.external).name ?? '',
          metricSelector: identifier(m.external).selector ?? undefined,
          currentValue: current(m.external).value ?? ZERO_QUANTITY,
          currentAverageValue: current(m.external).averageValue ?? undefined,
        })
      : undefined,
  });
}

/** A condition as v1's HorizontalPodAutoscalerCondition (the same fields; a zero time is null). */
function conditionOf(condition: unknown): Json {
  const c = obj(condition);
  return defined({
    type: c.type ?? '',
    status: c.status ?? '',
    lastTransitionTime: c.lastTransitionTime ?? null,
    reason: c.reason || undefined,
    message: c.message || undefined,
  });
}

/** kube marshals its internal behavior type, which has no JSON tags: Go's field names, nil as null. */
function internalBehavior(behavior: Json): Json {
  const rules = (value: unknown) => {
    if (!isObject(value)) return null;
    return {
      StabilizationWindowSeconds: value.stabilizationWindowSeconds ?? null,
      SelectPolicy: value.selectPolicy ?? null,
      Policies: Array.isArray(value.policies)
        ? value.policies.map((p: unknown) => ({
            Type: obj(p).type ?? '',
            Value: obj(p).value ?? 0,
            PeriodSeconds: obj(p).periodSeconds ?? 0,
          }))
        : null,
    };
  };
  return { ScaleUp: rules(behavior.scaleUp), ScaleDown: rules(behavior.scaleDown) };
}

// ---- v1 → v2 ----

function v1ToV2(object: ApiObject): ApiObject {
  const { spec: rawSpec, status: rawStatus, metadata: _metadata, ...rest } = object;
  const spec = obj(rawSpec);
  const status = obj(rawStatus);
  const annotations = obj(object.metadata.annotations);
  let metrics: Json[] = [];
  if (spec.targetCPUUtilizationPercentage != null) metrics = [cpuUtilization(spec.targetCPUUtilizationPercentage)];
  // Other metrics come first, the CPU target after them, as kube orders them.
  const other = parsedList(annotations[METRIC_SPECS_ANNOTATION]);
  if (other) metrics = [...other.map(metricSpecToV2), ...metrics];
  const behavior = parsedBehavior(annotations[BEHAVIOR_ANNOTATION]);
  let currentMetrics: Json[] | undefined;
  if (status.currentCPUUtilizationPercentage != null)
    currentMetrics = [
      {
        type: 'Resource',
        resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } },
      },
    ];
  // The annotation's current metrics have more to say than the CPU percentage: they win.
  const annotatedCurrent = parsedList(annotations[METRIC_STATUSES_ANNOTATION]);
  if (annotatedCurrent) currentMetrics = annotatedCurrent.map(metricStatusToV2);
  // v1's CPU default, made explicit with the whole set of metrics at hand.
  if (metrics.length === 0) metrics = [cpuUtilization(DEFAULT_CPU_UTILIZATION)];
  const conditions = parsedList(annotations[CONDITIONS_ANNOTATION])?.map(conditionOf);
  return {
    ...rest,
    metadata: withMetadata(object, dropRoundTrip(object.metadata.annotations)),
    spec: defined({
      scaleTargetRef: crossVersionReference(spec.scaleTargetRef),
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas ?? 0,
      metrics,
      behavior,
    }),
    status: defined({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      // v2 leaves out a zero currentReplicas (omitempty), not desiredReplicas.
      currentReplicas: status.currentReplicas || undefined,
      desiredReplicas: status.desiredReplicas ?? 0,
      currentMetrics,
      conditions,
    }),
  };
}

function cpuUtilization(percent: unknown): Json {
  return { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: percent } } };
}

/** An annotation's JSON list of objects, or undefined when it does not parse as one (kube ignores it then). */
function parsedList(text: unknown): Json[] | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (value === null) return [];
    return Array.isArray(value) && value.every((item) => isObject(item)) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Go matches JSON keys to field names without regard to case. */
function field(source: Json, name: string): unknown {
  const key = Object.keys(source).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : source[key];
}

/** The behavior annotation as v2's behavior; undefined when it does not parse or sets nothing. */
function parsedBehavior(text: unknown): Json | undefined {
  if (typeof text !== 'string') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const rules = (raw: unknown): Json | undefined => {
    if (!isObject(raw)) return undefined;
    const policies = field(raw, 'Policies');
    return defined({
      stabilizationWindowSeconds: field(raw, 'StabilizationWindowSeconds') ?? undefined,
      selectPolicy: field(raw, 'SelectPolicy') ?? undefined,
      policies: Array.isArray(policies)
        ? policies.map((p: unknown) => ({
            type: field(obj(p), 'Type') ?? '',
            value: field(obj(p), 'Value') ?? 0,
            periodSeconds: field(obj(p), 'PeriodSeconds') ?? 0,
          }))
        : undefined,
    });
  };
  const behavior = defined({ scaleUp: rules(field(value, 'ScaleUp')), scaleDown: rules(field(value, 'ScaleDown')) });
  return Object.keys(behavior).length ? behavior : undefined;
}

/** v1's MetricSpec as v2's (Convert_v1_MetricSpec_To_autoscaling_MetricSpec and its sources). */
function metricSpecToV2(m: Json): Json {
  const identifier = (name: unknown, selector: unknown) =>
    defined({ name: name ?? '', selector: selector ?? undefined });
  return defined({
    type: m.type ?? '',
    object: isObject(m.object)
      ? {
          describedObject: crossVersionReference(m.object.target),
          target: defined({
            type: m.object.averageValue == null ? 'Value' : 'AverageValue',
            value: m.object.targetValue ?? ZERO_QUANTITY,
            averageValue: m.object.averageValue ?? undefined,
          }),
          metric: identifier(m.object.metricName, m.object.selector),
        }
      : undefined,
    pods: isObject(m.pods)
      ? {
          metric: identifier(m.pods.metricName, m.pods.selector),
          target: { type: 'AverageValue', averageValue: m.pods.targetAverageValue ?? ZERO_QUANTITY },
        }
      : undefined,
    resource: isObject(m.resource) ? { name: m.resource.name ?? '', target: resourceTarget(m.resource) } : undefined,
    containerResource: isObject(m.containerResource)
      ? {
          name: m.containerResource.name ?? '',
          target: resourceTarget(m.containerResource),
          container: m.containerResource.container ?? '',
        }
      : undefined,
    external: isObject(m.external)
      ? {
          metric: identifier(m.external.metricName, m.external.metricSelector),
          target: defined({
            type: m.external.targetValue == null ? 'AverageValue' : 'Value',
            value: m.external.targetValue ?? undefined,
            averageValue: m.external.targetAverageValue ?? undefined,
          }),
        }
      : undefined,
  });
}

function resourceTarget(source: Json): Json {
  return defined({
    type: source.targetAverageUtilization == null ? 'AverageValue' : 'Utilization',
    averageValue: source.targetAverageValue ?? undefined,
    averageUtilization: source.targetAverageUtilization ?? undefined,
  });
}

/** v1's MetricStatus as v2's. */
function metricStatusToV2(m: Json): Json {
  const identifier = (name: unknown, selector: unknown) =>
    defined({ name: name ?? '', selector: selector ?? undefined });
  const resourceCurrent = (source: Json) =>
    defined({
      averageValue: source.currentAverageValue ?? ZERO_QUANTITY,
      averageUtilization: source.currentAverageUtilization ?? undefined,
    });
  return defined({
    type: m.type ?? '',
    object: isObject(m.object)
      ? {
          metric: identifier(m.object.metricName, m.object.selector),
          current: defined({
            value: m.object.currentValue ?? ZERO_QUANTITY,
            averageValue: m.object.averageValue ?? undefined,
          }),
          describedObject: crossVersionReference(m.object.target),
        }
      : undefined,
    pods: isObject(m.pods)
      ? {
          metric: identifier(m.pods.metricName, m.pods.selector),
          current: { averageValue: m.pods.currentAverageValue ?? ZERO_QUANTITY },
        }
      : undefined,
    resource: isObject(m.resource) ? { name: m.resource.name ?? '', current: resourceCurrent(m.resource) } : undefined,
    containerResource: isObject(m.containerResource)
      ? {
          name: m.containerResource.name ?? '',
          current: resourceCurrent(m.containerResource),
          container: m.containerResource.container ?? '',
        }
      : undefined,
    external: isObject(m.external)
      ? {
          metric: identifier(m.external.metricName, m.external.metricSelector),
          current: defined({
            value: m.external.currentValue ?? ZERO_QUANTITY,
            averageValue: m.external.currentAverageValue ?? undefined,
          }),
        }
      : undefined,
  });
}
