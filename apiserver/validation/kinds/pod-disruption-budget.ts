/** kube-apiserver 1.32's validation of a policy/v1 PodDisruptionBudget (pkg/apis/policy/validation). */
import { isObject } from '../../json.js';
import { invalid, notSupported, type Cause } from '../cause.js';
import { isNotMoreThan100Percent, validateLabelSelector, validatePositiveIntOrPercent } from '../values.js';

const UNHEALTHY_POD_EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

export function validatePodDisruptionBudget(pdb: Record<string, any>): Cause[] {
  const spec: Record<string, any> = isObject(pdb.spec) ? pdb.spec : {};
  const causes: Cause[] = [];
  if (spec.minAvailable != null && spec.maxUnavailable != null)
    causes.push(invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  for (const field of ['minAvailable', 'maxUnavailable'])
    if (spec[field] != null)
      causes.push(
        ...validatePositiveIntOrPercent(spec[field], `spec.${field}`),
        ...isNotMoreThan100Percent(spec[field], `spec.${field}`),
      );
  causes.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy != null && !UNHEALTHY_POD_EVICTION_POLICIES.includes(policy))
    causes.push(notSupported('spec.unhealthyPodEvictionPolicy', policy, UNHEALTHY_POD_EVICTION_POLICIES));
  return causes;
}
