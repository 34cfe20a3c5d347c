/**
 * HorizontalPodAutoscalers: NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE. kube prints its
 * internal form, so an autoscaling/v1 object is converted to the stored v2 form first (its other
 * metrics and current metrics come back from their annotations).
 */
import { horizontalPodAutoscalerConversion } from '../../conversion/horizontal-pod-autoscaler.js';
import { isObject, type Json } from '../../json.js';
import { ageColumn, column, nameColumn } from './columns.js';
import type { Printer } from './printer.js';
import { age } from './timestamps.js';

/** kube lists at most this many metrics, then `+ N more...`. */
const MAX_METRICS = 2;

const obj = (value: unknown): Json => (isObject(value) ? value : {});
/** Go's Quantity.String() of a pointer: `<nil>` when unset. */
const quantity = (value: unknown): string =>
  value == null
    ? '<nil>'
    : typeof value === 'string' || typeof value === 'number'
      ? String(value)
      : JSON.stringify(value);

/** formatHPAMetrics: `<current>/<target>` per metric, `<unknown>` for a current value not (yet) reported. */
function formatMetrics(specs: unknown[], statuses: unknown[]): string {
  if (specs.length === 0) return '<none>';
  const list = specs.map((spec, i) => {
    const s = obj(spec);
    const status = obj(statuses[i]);
    switch (s.type) {
      case 'External':
      case 'Object': {
        const field = s.type === 'External' ? 'external' : 'object';
        const target = obj(obj(s[field]).target);
        const current = isObject(status[field]) ? obj(status[field].current) : undefined;
        if (target.averageValue != null)
          return `${current?.averageValue != null ? quantity(current.averageValue) : '<unknown>'}/${quantity(target.averageValue)} (avg)`;
        return `${current ? quantity(current.value) : '<unknown>'}/${quantity(target.value)}`;
      }
      case 'Pods': {
        const current = isObject(status.pods) ? quantity(obj(status.pods.current).averageValue) : '<unknown>';
        return `${current}/${quantity(obj(obj(s.pods).target).averageValue)}`;
      }
      case 'Resource':
      case 'ContainerResource': {
        const field = s.type === 'Resource' ? 'resource' : 'containerResource';
        const source = obj(s[field]);
        const target = obj(source.target);
        const reported = isObject(status[field]) ? obj(status[field].current) : undefined;
        if (target.averageValue != null)
          return `${source.name}: ${reported ? quantity(reported.averageValue) : '<unknown>'}/${quantity(target.averageValue)}`;
        const current = reported?.averageUtilization != null ? `${reported.averageUtilization}%` : '<unknown>';
        const wanted = target.averageUtilization != null ? `${target.averageUtilization}%` : '<auto>';
        return `${source.name}: ${current}/${wanted}`;
      }
      default:
        return '<unknown type>';
    }
  });
  const shown = list.slice(0, MAX_METRICS).join(', ');
  return list.length > MAX_METRICS ? `${shown} + ${list.length - MAX_METRICS} more...` : shown;
}

export const horizontalPodAutoscalerPrinter: Printer = {
  columns: [
    nameColumn,
    column(
      'Reference',
      'string',
      'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.',
    ),
    column(
      'Targets',
      'string',
      'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond. If not set, the default metric will be set to 80% average CPU utilization.',
    ),
    column(
      'MinPods',
      'string',
      'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.',
    ),
    column(
      'MaxPods',
      'string',
      'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.',
    ),
    column(
      'Replicas',
      'string',
      'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.',
    ),
    ageColumn,
  ],
  cells(object, now) {
    const version = String(object?.apiVersion ?? '').split('/')[1] ?? '';
    const hpa: Json = isObject(object) ? horizontalPodAutoscalerConversion.toStorage(object as any, version) : {};
    const spec = obj(hpa.spec);
    const status = obj(hpa.status);
    const ref = obj(spec.scaleTargetRef);
    return [
      hpa.metadata?.name ?? '',
      `${ref.kind ?? ''}/${ref.name ?? ''}`,
      formatMetrics(
        Array.isArray(spec.metrics) ? spec.metrics : [],
        Array.isArray(status.currentMetrics) ? status.currentMetrics : [],
      ),
      spec.minReplicas != null ? String(spec.minReplicas) : '<unset>',
      spec.maxReplicas ?? 0,
      status.currentReplicas ?? 0,
      age(hpa, now),
    ];
  },
};
