/**
 * kube-apiserver 1.32's validation of RBAC objects (pkg/apis/rbac/validation), after the v1
 * defaults (a binding's roleRef.apiGroup, a User's or Group's apiGroup): every rule has verbs and
 * is either about resources (with API groups) or about non-resource URLs, never both, and only a
 * ClusterRole's may name URLs; a binding refers to a role by kind, group and name, to subjects
 * of a known kind, and never changes its roleRef.
 */
import { isObject } from '../../json.js';
import { invalid, notSupported, required, type Cause } from '../cause.js';
import { nameIsDNSSubdomain, validatePathSegmentName } from '../names.js';
import { validateLabelSelector } from '../values.js';

type Json = Record<string, any>;

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export function validateRole(role: Json): Cause[] {
  return validateRules(role.rules, true);
}

export function validateClusterRole(role: Json): Cause[] {
  const causes = validateRules(role.rules, false);
  if (isObject(role.aggregationRule)) {
    const selectors: unknown[] = Array.isArray(role.aggregationRule.clusterRoleSelectors)
      ? role.aggregationRule.clusterRoleSelectors
      : [];
    if (selectors.length === 0)
      causes.push(
        required(
          'aggregationRule.clusterRoleSelectors',
          'at least one clusterRoleSelector required if aggregationRule is non-nil',
        ),
      );
    selectors.forEach((selector, i) =>
      causes.push(...validateLabelSelector(selector, `aggregationRule.clusterRoleSelectors[${i}]`)),
    );
  }
  return causes;
}

export function validateRoleBinding(binding: Json, previous?: Json): Cause[] {
  return validateBinding(binding, previous, ['Role', 'ClusterRole'], true);
}

export function validateClusterRoleBinding(binding: Json, previous?: Json): Cause[] {
  return validateBinding(binding, previous, ['ClusterRole'], false);
}

function validateRules(rules: unknown, namespaced: boolean): Cause[] {
  const causes: Cause[] = [];
  (Array.isArray(rules) ? rules : []).forEach((rule: unknown, i) => {
    const path = `rules[${i}]`;
    const r: Json = isObject(rule) ? rule : {};
    const count = (list: unknown) => (Array.isArray(list) ? list.length : 0);
    if (count(r.verbs) === 0) causes.push(required(`${path}.verbs`, 'verbs must contain at least one value'));
    if (count(r.nonResourceURLs) > 0) {
      if (namespaced)
        causes.push(
          invalid(`${path}.nonResourceURLs`, r.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'),
        );
      if (count(r.apiGroups) > 0 || count(r.resources) > 0 || count(r.resourceNames) > 0)
        causes.push(
          invalid(
            `${path}.nonResourceURLs`,
            r.nonResourceURLs,
            'rules cannot apply to both regular resources and non-resource URLs',
          ),
        );
      return;
    }
    if (count(r.apiGroups) === 0)
      causes.push(required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
    if (count(r.resources) === 0)
      causes.push(required(`${path}.resources`, 'resource rules must supply at least one resource'));
  });
  return causes;
}

function validateBinding(binding: Json, previous: Json | undefined, kinds: string[], namespaced: boolean): Cause[] {
  const causes: Cause[] = [];
  const roleRef: Json = isObject(binding.roleRef) ? binding.roleRef : {};
  if (roleRef.apiGroup !== RBAC_GROUP)
    causes.push(notSupported('roleRef.apiGroup', roleRef.apiGroup ?? '', [RBAC_GROUP]));
  if (!kinds.includes(roleRef.kind)) causes.push(notSupported('roleRef.kind', roleRef.kind ?? '', kinds));
  const roleName = typeof roleRef.name === 'string' ? roleRef.name : '';
  if (!roleName) causes.push(required('roleRef.name'));
  else causes.push(...validatePathSegmentName(roleName, false).map((msg) => invalid('roleRef.name', roleName, msg)));
  (Array.isArray(binding.subjects) ? binding.subjects : []).forEach((subject: unknown, i: number) =>
    causes.push(...validateSubject(isObject(subject) ? subject : {}, namespaced, `subjects[${i}]`)),
  );
  if (previous && JSON.stringify(roleRefKey(previous.roleRef)) !== JSON.stringify(roleRefKey(binding.roleRef)))
    causes.push(invalid('roleRef', binding.roleRef ?? {}, 'cannot change roleRef'));
  return causes;
}

function roleRefKey(roleRef: unknown): [unknown, unknown, unknown] {
  const r: Json = isObject(roleRef) ? roleRef : {};
  return [r.apiGroup ?? '', r.kind ?? '', r.name ?? ''];
}

function validateSubject(subject: Json, namespacedBinding: boolean, path: string): Cause[] {
  const causes: Cause[] = [];
  const name = typeof subject.name === 'string' ? subject.name : '';
  if (!name) causes.push(required(`${path}.name`));
  switch (subject.kind) {
    case 'ServiceAccount':
      if (name) causes.push(...nameIsDNSSubdomain(name, false).map((msg) => invalid(`${path}.name`, name, msg)));
      if (subject.apiGroup) causes.push(notSupported(`${path}.apiGroup`, subject.apiGroup, ['']));
      if (!namespacedBinding && !subject.namespace) causes.push(required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (subject.apiGroup !== RBAC_GROUP)
        causes.push(notSupported(`${path}.apiGroup`, subject.apiGroup ?? '', [RBAC_GROUP]));
      break;
    default:
      causes.push(notSupported(`${path}.kind`, subject.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return causes;
}
