/**
 * kube-apiserver 1.32's validation of apps/v1 Deployments, ReplicaSets, DaemonSets and
 * StatefulSets (pkg/apis/apps/validation): the selector, the template's labels against it, the
 * replica count and the update strategy. Deployments, ReplicaSets and DaemonSets validate their
 * pod template as a pod's (pod-spec.ts); a StatefulSet's template and its volumeClaimTemplates
 * are not validated in 1.32 (kubernetes#132211: a bad claim template fails only when the
 * controller creates the claim), so they are not here either.
 */
import { isObject } from '../../json.js';
import { labelSelectorFromObject, SelectorParseError } from '../../selectors/label-selector.js';
import { forbidden, invalid, notSupported, required, type Cause } from '../cause.js';
import {
  intOrPercentValue,
  isEmptySelector,
  isNotMoreThan100Percent,
  validateLabels,
  validateLabelSelector,
  validateNonnegative,
  validatePositiveIntOrPercent,
} from '../values.js';
import { validatePodTemplateSpec } from './pod-spec.js';

type Json = Record<string, any>;

export function validateDeployment(deployment: Json): Cause[] {
  const spec: Json = isObject(deployment.spec) ? deployment.spec : {};
  const causes = [
    ...validateNonnegative(spec.replicas, 'spec.replicas'),
    ...validateSelectorAndTemplate(spec, 'deployment', 'ReplicaSet'),
    ...validateDeploymentStrategy(spec.strategy),
    ...validateNonnegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...validateNonnegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'),
  ];
  if (typeof spec.progressDeadlineSeconds === 'number') {
    causes.push(...validateNonnegative(spec.progressDeadlineSeconds, 'spec.progressDeadlineSeconds'));
    if (spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0))
      causes.push(
        invalid('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'),
      );
  }
  return causes;
}

export function validateReplicaSet(replicaSet: Json): Cause[] {
  const spec: Json = isObject(replicaSet.spec) ? replicaSet.spec : {};
  return [
    ...validateNonnegative(spec.replicas, 'spec.replicas'),
    ...validateNonnegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    // kube's ReplicaSet validation says "deployment" in its empty-selector message.
    ...validateSelectorAndTemplate(spec, 'deployment', 'ReplicaSet'),
  ];
}

export function validateDaemonSet(daemonSet: Json): Cause[] {
  const spec: Json = isObject(daemonSet.spec) ? daemonSet.spec : {};
  const causes = validateLabelSelector(spec.selector, 'spec.selector');
  const template: Json = isObject(spec.template) ? spec.template : {};
  const selector = selectorOf(spec.selector);
  if (selector && !selector.matches(labelsOf(template))) causes.push(labelsMismatch(template));
  if (isObject(spec.selector) && isEmptySelector(spec.selector))
    causes.push(invalid('spec.selector', spec.selector, 'empty selector is invalid for daemonset'));
  causes.push(...validatePodTemplateSpec(template, 'spec.template'), ...alwaysRestarts(template, 'DaemonSet'));
  causes.push(...validateNonnegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  causes.push(...validateDaemonSetStrategy(spec.updateStrategy));
  causes.push(...validateNonnegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  return causes;
}

export function validateStatefulSet(statefulSet: Json): Cause[] {
  const spec: Json = isObject(statefulSet.spec) ? statefulSet.spec : {};
  const causes: Cause[] = [];
  const policy = spec.podManagementPolicy;
  if (policy === undefined || policy === '') causes.push(required('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel')
    causes.push(invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  causes.push(...validateStatefulSetStrategy(spec.updateStrategy));
  causes.push(...validateNonnegative(spec.replicas, 'spec.replicas'));
  causes.push(...validateNonnegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  if (isObject(spec.ordinals)) causes.push(...validateNonnegative(spec.ordinals.start, 'spec.ordinals.start'));
  const template: Json = isObject(spec.template) ? spec.template : {};
  if (!isObject(spec.selector)) causes.push(required('spec.selector'));
  else {
    causes.push(...validateLabelSelector(spec.selector, 'spec.selector'));
    if (isEmptySelector(spec.selector))
      causes.push(invalid('spec.selector', spec.selector, 'empty selector is invalid for statefulset'));
  }
  const selector = selectorOf(spec.selector);
  if (selector === undefined) causes.push(invalid('spec.selector', spec.selector, ''));
  else {
    if (!selector.empty && !selector.matches(labelsOf(template))) causes.push(labelsMismatch(template));
    causes.push(...validateLabels(labelsOf(template), 'spec.template.labels'));
  }
  const restartPolicy = isObject(template.spec) ? template.spec.restartPolicy : undefined;
  if (restartPolicy !== 'Always')
    causes.push(notSupported('spec.template.spec.restartPolicy', restartPolicy ?? '', ['Always']));
  if (isObject(template.spec) && template.spec.activeDeadlineSeconds != null)
    causes.push(
      forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in StatefulSet is not Supported'),
    );
  return causes;
}

/** Deployments and ReplicaSets: a selector that is required and not empty, matched by the template, which is a valid pod template that always restarts. */
function validateSelectorAndTemplate(spec: Json, noun: string, kind: string): Cause[] {
  const causes: Cause[] = [];
  if (!isObject(spec.selector)) causes.push(required('spec.selector'));
  else {
    causes.push(...validateLabelSelector(spec.selector, 'spec.selector'));
    if (isEmptySelector(spec.selector))
      causes.push(invalid('spec.selector', spec.selector, `empty selector is invalid for ${noun}`));
  }
  const selector = selectorOf(spec.selector);
  if (selector === undefined) return [...causes, invalid('spec.selector', spec.selector, 'invalid label selector')];
  const template: Json = isObject(spec.template) ? spec.template : {};
  if (!selector.empty && !selector.matches(labelsOf(template))) causes.push(labelsMismatch(template));
  causes.push(...validatePodTemplateSpec(template, 'spec.template'), ...alwaysRestarts(template, kind));
  return causes;
}

function alwaysRestarts(template: Json, kind: string): Cause[] {
  const spec: Json = isObject(template.spec) ? template.spec : {};
  const causes: Cause[] = [];
  if (spec.restartPolicy !== 'Always')
    causes.push(notSupported('spec.template.spec.restartPolicy', spec.restartPolicy ?? '', ['Always']));
  if (spec.activeDeadlineSeconds != null)
    causes.push(
      forbidden('spec.template.spec.activeDeadlineSeconds', `activeDeadlineSeconds in ${kind} is not Supported`),
    );
  return causes;
}

/** The selector as kube's LabelSelectorAsSelector makes it; undefined where that fails (null selects nothing). */
function selectorOf(selector: unknown) {
  try {
    return labelSelectorFromObject(isObject(selector) ? selector : null);
  } catch (err) {
    if (err instanceof SelectorParseError) return undefined;
    throw err;
  }
}

function labelsOf(template: Json): Record<string, string> {
  return isObject(template.metadata) && isObject(template.metadata.labels) ? template.metadata.labels : {};
}

function labelsMismatch(template: Json): Cause {
  return invalid('spec.template.metadata.labels', labelsOf(template), '`selector` does not match template `labels`');
}

function validateDeploymentStrategy(strategy: unknown): Cause[] {
  const s: Json = isObject(strategy) ? strategy : {};
  switch (s.type) {
    case 'Recreate':
      return s.rollingUpdate != null
        ? [forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'")]
        : [];
    case 'RollingUpdate': {
      if (!isObject(s.rollingUpdate))
        return [required('spec.strategy.rollingUpdate', 'this should be defaulted and never be nil')];
      const { maxUnavailable, maxSurge } = s.rollingUpdate;
      const path = 'spec.strategy.rollingUpdate';
      const causes = [
        ...validatePositiveIntOrPercent(maxUnavailable, `${path}.maxUnavailable`),
        ...validatePositiveIntOrPercent(maxSurge, `${path}.maxSurge`),
      ];
      if (intOrPercentValue(maxUnavailable) === 0 && intOrPercentValue(maxSurge) === 0)
        causes.push(invalid(`${path}.maxUnavailable`, maxUnavailable ?? 0, 'may not be 0 when `maxSurge` is 0'));
      causes.push(...isNotMoreThan100Percent(maxUnavailable, `${path}.maxUnavailable`));
      return causes;
    }
    default:
      return [notSupported('spec.strategy', strategy ?? {}, ['Recreate', 'RollingUpdate'])];
  }
}

function validateDaemonSetStrategy(strategy: unknown): Cause[] {
  const s: Json = isObject(strategy) ? strategy : {};
  switch (s.type) {
    case 'OnDelete':
      return [];
    case 'RollingUpdate': {
      if (!isObject(s.rollingUpdate)) return [required('spec.updateStrategy.rollingUpdate')];
      const { maxUnavailable, maxSurge } = s.rollingUpdate;
      const path = 'spec.updateStrategy.rollingUpdate';
      const causes = [
        ...validatePositiveIntOrPercent(maxUnavailable, `${path}.maxUnavailable`),
        ...validatePositiveIntOrPercent(maxSurge, `${path}.maxSurge`),
        ...isNotMoreThan100Percent(maxUnavailable, `${path}.maxUnavailable`),
        ...isNotMoreThan100Percent(maxSurge, `${path}.maxSurge`),
      ];
      const unavailable = intOrPercentValue(maxUnavailable) !== 0;
      const surge = intOrPercentValue(maxSurge) !== 0;
      if (unavailable && surge)
        causes.push(invalid(`${path}.maxSurge`, maxSurge, 'may not be set when maxUnavailable is non-zero'));
      if (!unavailable && !surge) causes.push(required(`${path}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
      return causes;
    }
    default:
      return [notSupported('spec.updateStrategy', strategy ?? {}, ['OnDelete', 'RollingUpdate'])];
  }
}

function validateStatefulSetStrategy(strategy: unknown): Cause[] {
  const s: Json = isObject(strategy) ? strategy : {};
  switch (s.type) {
    case undefined:
    case '':
      return [required('spec.updateStrategy')];
    case 'OnDelete':
      return s.rollingUpdate != null
        ? [
            invalid(
              'spec.updateStrategy.rollingUpdate',
              s.rollingUpdate,
              "only allowed for updateStrategy 'RollingUpdate'",
            ),
          ]
        : [];
    case 'RollingUpdate': {
      if (!isObject(s.rollingUpdate)) return [];
      const path = 'spec.updateStrategy.rollingUpdate';
      const causes = validateNonnegative(s.rollingUpdate.partition, `${path}.partition`);
      const { maxUnavailable } = s.rollingUpdate;
      if (maxUnavailable != null) {
        causes.push(...validatePositiveIntOrPercent(maxUnavailable, `${path}.maxUnavailable`));
        if (intOrPercentValue(maxUnavailable) === 0)
          causes.push(invalid(`${path}.maxUnavailable`, maxUnavailable, 'cannot be 0'));
        causes.push(...isNotMoreThan100Percent(maxUnavailable, `${path}.maxUnavailable`));
      }
      return causes;
    }
    default:
      return [invalid('spec.updateStrategy', strategy, "must be 'RollingUpdate' or 'OnDelete'")];
  }
}
