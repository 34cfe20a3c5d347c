/**
 * kube-apiserver 1.32's validation of a HorizontalPodAutoscaler (pkg/apis/autoscaling/validation),
 * run on the stored autoscaling/v2 form whichever version it was sent at, as kube runs it on its
 * internal form: so a v1 object's CPU target is reported at `spec.metrics[0]`, as kube reports it.
 * HPAScaleToZero is off in 1.32: minReplicas is at least 1, unless the object already had 0.
 */
import { isObject, type Json } from '../../json.js';
import { forbidden, invalid, notSupported, required, type Cause } from '../cause.js';
import { isDNS1123Label, isQualifiedName, validatePathSegmentName } from '../names.js';
import { quantitySign, validateNonnegative } from '../values.js';

/** The longest scaling policy period, and stabilization window, kube allows (seconds). */
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;

/** Sorted, as kube's sets list them in its messages. */
const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];
const POLICY_TYPES = ['Percent', 'Pods'];
const TARGET_TYPES = ['Utilization', 'Value', 'AverageValue'];

/** The JSON field of each metric source type's source. */
const SOURCE_FIELDS: Readonly<Record<string, string>> = {
  Object: 'object',
  Pods: 'pods',
  Resource: 'resource',
  External: 'external',
  ContainerResource: 'containerResource',
};

/** Container resources a metric may name without a domain (helper.IsStandardContainerResourceName). */
const STANDARD_CONTAINER_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'];

const obj = (value: unknown): Json => (isObject(value) ? value : {});
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export function validateHorizontalPodAutoscaler(hpa: Json, previous?: Json): Cause[] {
  const spec = obj(hpa.spec);
  const status = obj(hpa.status);
  // An object that already has minReplicas 0 may keep it (ValidateHorizontalPodAutoscalerUpdate).
  const minLowerBound = previous && obj(previous.spec).minReplicas === 0 ? 0 : 1;
  const causes: Cause[] = [];
  const min: unknown = spec.minReplicas;
  const max = typeof spec.maxReplicas === 'number' ? spec.maxReplicas : 0;
  if (typeof min === 'number' && min < minLowerBound)
    causes.push(invalid('spec.minReplicas', min, `must be greater than or equal to ${minLowerBound}`));
  if (max < 1) causes.push(invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (typeof min === 'number' && max < min)
    causes.push(invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  causes.push(...validateCrossVersionObjectReference(spec.scaleTargetRef, 'spec.scaleTargetRef'));
  causes.push(...validateMetrics(spec.metrics, 'spec.metrics', min));
  causes.push(...validateBehavior(spec.behavior, 'spec.behavior'));
  // The status subresource's own check (ValidateHorizontalPodAutoscalerStatusUpdate).
  causes.push(...validateNonnegative(status.currentReplicas, 'status.currentReplicas'));
  causes.push(...validateNonnegative(status.desiredReplicas, 'status.desiredReplicas'));
  return causes;
}

function validateCrossVersionObjectReference(ref: unknown, path: string): Cause[] {
  const r = obj(ref);
  const causes: Cause[] = [];
  for (const field of ['kind', 'name']) {
    const value = text(r[field]);
    if (value === '') causes.push(required(`${path}.${field}`));
    else causes.push(...validatePathSegmentName(value, false).map((msg) => invalid(`${path}.${field}`, value, msg)));
  }
  return causes;
}

function validateMetrics(metrics: unknown, path: string, minReplicas: unknown): Cause[] {
  const specs = Array.isArray(metrics) ? metrics : [];
  const causes = specs.flatMap((metric, i) => validateMetricSpec(obj(metric), `${path}[${i}]`));
  const types = specs.map((metric) => obj(metric).type);
  if (minReplicas === 0 && !types.includes('Object') && !types.includes('External'))
    causes.push(
      forbidden(path, 'must specify at least one Object or External metric to support scaling to zero replicas'),
    );
  return causes;
}

function validateMetricSpec(spec: Json, path: string): Cause[] {
  const causes: Cause[] = [];
  const type = text(spec.type);
  if (type === '') causes.push(required(`${path}.type`, 'must specify a metric source type'));
  if (!METRIC_SOURCE_TYPES.includes(type)) causes.push(notSupported(`${path}.type`, type, METRIC_SOURCE_TYPES));
  // Only the first source present is validated, in kube's order; any other is forbidden below.
  const present: string[] = [];
  const validators: [string, (source: Json, at: string) => Cause[]][] = [
    ['object', validateObjectSource],
    ['external', validateExternalSource],
    ['pods', validatePodsSource],
    ['resource', validateResourceSource],
    ['containerResource', validateContainerResourceSource],
  ];
  for (const [field, validate] of validators) {
    if (spec[field] == null) continue;
    present.push(field);
    if (present.length === 1) causes.push(...validate(obj(spec[field]), `${path}.${field}`));
  }
  const expected = SOURCE_FIELDS[type];
  if (expected === undefined) causes.push(notSupported(`${path}.type`, type, METRIC_SOURCE_TYPES));
  else if (spec[expected] == null)
    causes.push(required(`${path}.${expected}`, 'must populate information for the given metric source'));
  if (present.length !== 1)
    for (const field of present.filter((f) => f !== expected))
      causes.push(forbidden(`${path}.${field}`, 'must populate the given metric source only'));
  return causes;
}

function validateObjectSource(source: Json, path: string): Cause[] {
  const target = obj(source.target);
  const causes = [
    ...validateCrossVersionObjectReference(source.describedObject, `${path}.describedObject`),
    ...validateMetricIdentifier(source.metric, `${path}.metric`),
    ...validateMetricTarget(target, `${path}.target`),
  ];
  if (target.value == null && target.averageValue == null)
    causes.push(required(`${path}.target.averageValue`, 'must set either a target value or averageValue'));
  return causes;
}

function validateExternalSource(source: Json, path: string): Cause[] {
  const target = obj(source.target);
  const causes = [
    ...validateMetricIdentifier(source.metric, `${path}.metric`),
    ...validateMetricTarget(target, `${path}.target`),
  ];
  if (target.value == null && target.averageValue == null)
    causes.push(
      required(`${path}.target.averageValue`, 'must set either a target value for metric or a per-pod target'),
    );
  if (target.value != null && target.averageValue != null)
    causes.push(forbidden(`${path}.target.value`, 'may not set both a target value for metric and a per-pod target'));
  return causes;
}

function validatePodsSource(source: Json, path: string): Cause[] {
  const target = obj(source.target);
  const causes = [
    ...validateMetricIdentifier(source.metric, `${path}.metric`),
    ...validateMetricTarget(target, `${path}.target`),
  ];
  if (target.averageValue == null)
    causes.push(required(`${path}.target.averageValue`, 'must specify a positive target averageValue'));
  return causes;
}

function validateResourceSource(source: Json, path: string): Cause[] {
  const causes: Cause[] = [];
  if (text(source.name) === '') causes.push(required(`${path}.name`, 'must specify a resource name'));
  causes.push(...validateUtilizationOrValue(obj(source.target), `${path}.target`));
  return causes;
}

function validateContainerResourceSource(source: Json, path: string): Cause[] {
  const causes: Cause[] = [];
  const name = text(source.name);
  if (name === '') causes.push(required(`${path}.name`, 'must specify a resource name'));
  else causes.push(...validateContainerResourceName(name, `${path}.name`));
  const container = text(source.container);
  if (container === '') causes.push(required(`${path}.container`, 'must specify a container'));
  else causes.push(...isDNS1123Label(container).map((msg) => invalid(`${path}.container`, container, msg)));
  causes.push(...validateUtilizationOrValue(obj(source.target), `${path}.target`));
  return causes;
}

/** A resource metric's target: exactly one of a utilization and an average value. */
function validateUtilizationOrValue(target: Json, path: string): Cause[] {
  const causes = validateMetricTarget(target, path);
  if (target.averageUtilization == null && target.averageValue == null)
    causes.push(required(`${path}.averageUtilization`, 'must set either a target raw value or a target utilization'));
  if (target.averageUtilization != null && target.averageValue != null)
    causes.push(forbidden(`${path}.averageValue`, 'may not set both a target raw value and a target utilization'));
  return causes;
}

/**
 * core's ValidateContainerResourceName: a qualified name; without a domain, a resource containers
 * request (`cpu`, `memory`, `ephemeral-storage`, `hugepages-<size>`). Names with a domain
 * (extended resources) are not checked further.
 */
function validateContainerResourceName(name: string, path: string): Cause[] {
  const causes = isQualifiedName(name).map((msg) => invalid(path, name, msg));
  if (!name.includes('/') && !STANDARD_CONTAINER_RESOURCES.includes(name) && !name.startsWith('hugepages-'))
    causes.push(invalid(path, name, 'must be a standard resource for containers'));
  return causes;
}

function validateMetricTarget(target: Json, path: string): Cause[] {
  const causes: Cause[] = [];
  const type = text(target.type);
  if (type === '') causes.push(required(`${path}.type`, 'must specify a metric target type'));
  if (!TARGET_TYPES.includes(type))
    causes.push(invalid(`${path}.type`, type, 'must be either Utilization, Value, or AverageValue'));
  for (const field of ['value', 'averageValue']) {
    const quantity: unknown = target[field];
    const sign = quantitySign(quantity);
    // A quantity kube parsed: printed as its text (kube prints Go's %#v of the struct).
    if (sign !== undefined && sign !== 1)
      causes.push(invalid(`${path}.${field}`, String(quantity), 'must be positive'));
  }
  if (typeof target.averageUtilization === 'number' && target.averageUtilization < 1)
    causes.push(invalid(`${path}.averageUtilization`, target.averageUtilization, 'must be greater than 0'));
  return causes;
}

function validateMetricIdentifier(identifier: unknown, path: string): Cause[] {
  const name = text(obj(identifier).name);
  if (name === '') return [required(`${path}.name`, 'must specify a metric name')];
  return validatePathSegmentName(name, false).map((msg) => invalid(`${path}.name`, name, msg));
}

function validateBehavior(behavior: unknown, path: string): Cause[] {
  if (!isObject(behavior)) return [];
  return [
    ...validateScalingRules(behavior.scaleUp, `${path}.scaleUp`),
    ...validateScalingRules(behavior.scaleDown, `${path}.scaleDown`),
  ];
}

function validateScalingRules(rules: unknown, path: string): Cause[] {
  if (!isObject(rules)) return [];
  const causes: Cause[] = [];
  const window: unknown = rules.stabilizationWindowSeconds;
  if (typeof window === 'number' && window < 0)
    causes.push(invalid(`${path}.stabilizationWindowSeconds`, window, 'must be greater than or equal to zero'));
  if (typeof window === 'number' && window > MAX_STABILIZATION_WINDOW_SECONDS)
    causes.push(
      invalid(
        `${path}.stabilizationWindowSeconds`,
        window,
        `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
      ),
    );
  if (rules.selectPolicy != null && !SELECT_POLICIES.includes(rules.selectPolicy))
    causes.push(notSupported(`${path}.selectPolicy`, rules.selectPolicy, SELECT_POLICIES));
  const policies = Array.isArray(rules.policies) ? rules.policies : [];
  if (policies.length === 0) causes.push(required(`${path}.policies`, 'must specify at least one Policy'));
  policies.forEach((policy, i) => causes.push(...validateScalingPolicy(obj(policy), `${path}.policies[${i}]`)));
  return causes;
}

function validateScalingPolicy(policy: Json, path: string): Cause[] {
  const causes: Cause[] = [];
  if (!POLICY_TYPES.includes(policy.type)) causes.push(notSupported(`${path}.type`, policy.type ?? '', POLICY_TYPES));
  const value = typeof policy.value === 'number' ? policy.value : 0;
  if (value <= 0) causes.push(invalid(`${path}.value`, value, 'must be greater than zero'));
  const period = typeof policy.periodSeconds === 'number' ? policy.periodSeconds : 0;
  if (period <= 0) causes.push(invalid(`${path}.periodSeconds`, period, 'must be greater than zero'));
  if (period > MAX_PERIOD_SECONDS)
    causes.push(invalid(`${path}.periodSeconds`, period, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  return causes;
}
