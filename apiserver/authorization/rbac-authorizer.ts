/**
 * kube-apiserver's authorization of a request by RBAC, decided from plain Role, RoleBinding,
 * ClusterRole and ClusterRoleBinding objects: the `system:masters` superuser group, the RBAC
 * authorizer and rule resolver (plugin/pkg/auth/authorizer/rbac, pkg/registry/rbac/validation,
 * pkg/apis/rbac/v1/evaluation_helpers.go), ClusterRole aggregation as the clusterrole-aggregation
 * controller settles it, and the 403 message kube-apiserver sends for a denial, which kubectl
 * prints after `Error from server (Forbidden): `.
 */
import { goQuote } from '../go-quote.js';
import { labelSelectorFromObject } from '../selectors/label-selector.js';
import type { Attributes, UserInfo } from './attributes.js';

/** RBAC objects as plain lists (plain JSON objects as stored); rbac-index.ts indexes them. */
export interface RbacObjects {
  roles: any[];
  roleBindings: any[];
  clusterRoles: any[];
  clusterRoleBindings: any[];
}

/**
 * Where the authorizer reads RBAC objects, as kube's rule resolver reads its listers: the
 * ClusterRoleBindings, one namespace's RoleBindings, and roles by name. Implemented by RbacIndex.
 */
export interface RbacObjectSource {
  clusterRoleBindings(): Iterable<any>;
  roleBindings(namespace: string): Iterable<any>;
  /** The Role of that name in the namespace, or undefined. */
  role(namespace: string, name: string): any;
  /** The rules the ClusterRole of that name grants, aggregated as `aggregatedRules` settles them; undefined when there is none. */
  clusterRoleRules(name: string): PolicyRule[] | undefined;
}

export interface Decision {
  allowed: boolean;
  /** RBAC's reason: the granting binding when allowed; when denied, the bindings it could not resolve, or "". */
  reason: string;
  /** kube-apiserver's 403 message for a denial, e.g. `pods "x" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "default"` */
  message?: string;
}

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

/** A SubjectRulesReviewStatus rule, with the empty lists left out as its JSON omits them. */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface RulesReview {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** RBAC always answers completely; rules it could not resolve are named in evaluationError. */
  incomplete: boolean;
  evaluationError?: string;
}

/** The group kube-apiserver's privileged-group authorizer allows everything, ahead of RBAC. */
const SUPERUSER_GROUP = 'system:masters';

/**
 * Called with each rule that applies and what grants it; returning false stops the visit. The
 * source is described only when asked (for the rule that grants), as kube's describer is a
 * Stringer: every request as a bound user reaches a binding, few need its description.
 */
type RuleVisitor = (rule: PolicyRule, source: () => string) => boolean;

/** Told how many ClusterRoleBindings each decision read: what every one of them costs every request (devcluster/cluster-role-binding-walks.ts). */
export type ClusterRoleBindingsWalked = (count: number) => void;

export class RbacAuthorizer {
  constructor(
    private readonly objects: () => RbacObjectSource,
    private readonly walked?: ClusterRoleBindingsWalked,
  ) {}

  authorize(attributes: Attributes): Decision {
    if (attributes.user.groups.includes(SUPERUSER_GROUP)) return { allowed: true, reason: '' };
    let grantedBy: string | undefined;
    const errors = this.visit(attributes.user, attributes.namespace, (rule, source) => {
      if (!ruleAllows(attributes, rule)) return true;
      grantedBy = source();
      return false;
    });
    if (grantedBy !== undefined) return { allowed: true, reason: `RBAC: allowed by ${grantedBy}` };
    const reason = errors.length ? `RBAC: ${aggregateMessage(errors)}` : '';
    return { allowed: false, reason, message: forbiddenMessage(attributes, reason) };
  }

  /** What a SelfSubjectRulesReview answers: the rules that apply to the user in a namespace. */
  rulesFor(user: UserInfo, namespace: string): RulesReview {
    const review: RulesReview = { resourceRules: [], nonResourceRules: [], incomplete: false };
    const errors = this.visit(user, namespace, (rule) => {
      const verbs = [...(rule.verbs ?? [])];
      if (rule.resources?.length) {
        const resourceRule: ResourceRule = { verbs };
        if (rule.apiGroups?.length) resourceRule.apiGroups = [...rule.apiGroups];
        resourceRule.resources = [...rule.resources];
        if (rule.resourceNames?.length) resourceRule.resourceNames = [...rule.resourceNames];
        review.resourceRules.push(resourceRule);
      }
      if (rule.nonResourceURLs?.length)
        review.nonResourceRules.push({ verbs, nonResourceURLs: [...rule.nonResourceURLs] });
      return true;
    });
    if (errors.length) review.evaluationError = aggregateMessage(errors);
    return review;
  }

  private visit(user: UserInfo, namespace: string, visit: RuleVisitor): string[] {
    const { errors, clusterRoleBindingsWalked } = visitRulesFor(this.objects(), user, namespace, visit);
    this.walked?.(clusterRoleBindingsWalked);
    return errors;
  }
}

/**
 * kube-apiserver's forbidden message for attributes: the Forbidden status error's
 * `<resource>[.<group>] ["<name>"] is forbidden: ` prefix (plain `forbidden: ` without a
 * resource), then what the user cannot do, then `: <reason>` when the authorizers gave one.
 */
export function forbiddenMessage(attributes: Attributes, reason = ''): string {
  const detail = escapeMarkup(deniedAction(attributes));
  return `${forbiddenPrefix(attributes)}${reason ? `${detail}: ${reason}` : detail}`;
}

function forbiddenPrefix({ isResourceRequest, apiGroup, resource, name }: Attributes): string {
  if (!isResourceRequest || (!apiGroup && !resource)) return 'forbidden: ';
  // GroupResource.String(), written out here so that this module stays free of the store that status.ts imports.
  const qualified = apiGroup ? `${resource}.${apiGroup}` : resource;
  return name ? `${qualified} ${goQuote(name)} is forbidden: ` : `${qualified} is forbidden: `;
}

function deniedAction(attributes: Attributes): string {
  const user = `User ${goQuote(attributes.user.name)}`;
  if (!attributes.isResourceRequest) return `${user} cannot ${attributes.verb} path ${goQuote(attributes.path)}`;
  const what = `${user} cannot ${attributes.verb} resource ${goQuote(combinedResource(attributes))} in API group ${goQuote(attributes.apiGroup)}`;
  return attributes.namespace
    ? `${what} in the namespace ${goQuote(attributes.namespace)}`
    : `${what} at the cluster scope`;
}

/** kube-apiserver escapes these so that its error text never reads as HTML; quotes stay. */
function escapeMarkup(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Whether one rule allows the request: RBAC's RuleAllows. */
export function ruleAllows(attributes: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attributes.verb)) return false;
  if (!attributes.isResourceRequest) return nonResourceURLMatches(rule, attributes.path);
  return (
    apiGroupMatches(rule, attributes.apiGroup) &&
    resourceMatches(rule, combinedResource(attributes), attributes.subresource) &&
    resourceNameMatches(rule, attributes.name)
  );
}

/** `pods`, or `pods/log` for a subresource: how rules and messages name what is requested. */
function combinedResource({ resource, subresource }: Attributes): string {
  return subresource ? `${resource}/${subresource}` : resource;
}

function verbMatches(rule: PolicyRule, verb: string): boolean {
  return (rule.verbs ?? []).some((ruleVerb) => ruleVerb === '*' || ruleVerb === verb);
}

function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((ruleGroup) => ruleGroup === '*' || ruleGroup === group);
}

/** `*`, the exact `resource[/subresource]`, or `*\/<subresource>`; kube deliberately has no `pods/*`. */
function resourceMatches(rule: PolicyRule, combinedResource: string, subresource: string): boolean {
  return (rule.resources ?? []).some(
    (ruleResource) =>
      ruleResource === '*' ||
      ruleResource === combinedResource ||
      (subresource !== '' && ruleResource === `*/${subresource}`),
  );
}

/** No names means every name; a request without a name (list, create) matches only then. */
function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  return !rule.resourceNames?.length || rule.resourceNames.includes(name);
}

/** `*`, the exact path, or a prefix ending in `*`. */
function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some(
    (ruleURL) =>
      ruleURL === '*' || ruleURL === path || (ruleURL.endsWith('*') && path.startsWith(ruleURL.replace(/\*+$/, ''))),
  );
}

/**
 * The index of the first subject that is the user, or -1. A ServiceAccount subject without a
 * namespace means one in the binding's namespace, and none at all in a ClusterRoleBinding.
 */
export function matchingSubjectIndex(user: UserInfo, subjects: readonly Subject[], bindingNamespace: string): number {
  return subjects.findIndex((subject) => subjectIsUser(subject, user, bindingNamespace));
}

function subjectIsUser(subject: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return namespace !== '' && user.name === `system:serviceaccount:${namespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

/**
 * Visits the rules that apply to the user in the namespace as kube's rule resolver does:
 * ClusterRoleBindings first, then (for a namespace) that namespace's RoleBindings, never another
 * namespace's. Returns the messages of the role references it could not resolve on the way, and
 * how many ClusterRoleBindings it read (all of them, unless one granted first).
 */
function visitRulesFor(
  objects: RbacObjectSource,
  user: UserInfo,
  namespace: string,
  visit: RuleVisitor,
): { errors: string[]; clusterRoleBindingsWalked: number } {
  const errors: string[] = [];
  let clusterRoleBindingsWalked = 0;
  const visitBindings = (bindings: Iterable<any>, bindingNamespace: string): boolean => {
    for (const binding of bindings) {
      if (!bindingNamespace) clusterRoleBindingsWalked++;
      const subjects: Subject[] = binding.subjects ?? [];
      const subjectIndex = matchingSubjectIndex(user, subjects, bindingNamespace);
      if (subjectIndex < 0) continue;
      const rules = roleReferenceRules(objects, binding.roleRef ?? {}, bindingNamespace);
      if (typeof rules === 'string') {
        errors.push(rules);
        continue;
      }
      const source = () => describeBinding(binding, bindingNamespace, subjects[subjectIndex]);
      for (const rule of rules) if (!visit(rule, source)) return false;
    }
    return true;
  };
  if (visitBindings(objects.clusterRoleBindings(), '') && namespace)
    visitBindings(objects.roleBindings(namespace), namespace);
  return { errors, clusterRoleBindingsWalked };
}

/** The referenced role's rules, or the lister's error when it cannot be found. */
function roleReferenceRules(
  objects: RbacObjectSource,
  roleRef: { kind?: string; name?: string },
  bindingNamespace: string,
): PolicyRule[] | string {
  const name = roleRef.name ?? '';
  switch (roleRef.kind) {
    case 'Role': {
      const role = objects.role(bindingNamespace, name);
      return role ? (role.rules ?? []) : `role.rbac.authorization.k8s.io ${goQuote(name)} not found`;
    }
    case 'ClusterRole':
      return objects.clusterRoleRules(name) ?? `clusterrole.rbac.authorization.k8s.io ${goQuote(name)} not found`;
    default:
      return `unsupported role reference kind: ${goQuote(roleRef.kind ?? '')}`;
  }
}

function describeBinding(binding: any, bindingNamespace: string, subject: Subject): string {
  const roleRef = `${binding.roleRef.kind} ${goQuote(binding.roleRef.name)}`;
  const name: string = binding.metadata?.name ?? '';
  if (!bindingNamespace) return `ClusterRoleBinding ${goQuote(name)} of ${roleRef} to ${describeSubject(subject, '')}`;
  return `RoleBinding ${goQuote(`${name}/${bindingNamespace}`)} of ${roleRef} to ${describeSubject(subject, bindingNamespace)}`;
}

function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount')
    return `${subject.kind} ${goQuote(`${subject.name}/${subject.namespace || bindingNamespace}`)}`;
  return `${subject.kind} ${goQuote(subject.name)}`;
}

/**
 * The rules the clusterrole-aggregation controller settles an aggregated ClusterRole on: for each
 * selector in turn, the rules of the other ClusterRoles it selects, in name order, each rule once.
 * A selected role that is itself aggregated contributes its own aggregated rules, which is where
 * the controller's repeated passes end up. A role without an aggregationRule keeps its rules.
 */
export function aggregatedRules(clusterRole: any, clusterRoles: readonly any[]): PolicyRule[] {
  return clusterRoleRules(clusterRole, clusterRoles, new Set());
}

/** `resolving` holds the aggregated roles being resolved, so that a cycle of them ends. */
function clusterRoleRules(clusterRole: any, clusterRoles: readonly any[], resolving: Set<string>): PolicyRule[] {
  if (!clusterRole.aggregationRule) return clusterRole.rules ?? [];
  const name: string = clusterRole.metadata?.name ?? '';
  if (resolving.has(name)) return [];
  let selectors;
  try {
    selectors = (clusterRole.aggregationRule.clusterRoleSelectors ?? []).map(labelSelectorFromObject);
  } catch {
    // The controller fails on a selector it cannot parse and leaves the stored rules as they are.
    return clusterRole.rules ?? [];
  }
  resolving.add(name);
  const rules: PolicyRule[] = [];
  for (const selector of selectors) {
    const selected = clusterRoles
      .filter((candidate) => candidate.metadata?.name !== name && selector.matches(candidate.metadata?.labels))
      .sort((a, b) => compareNames(a.metadata?.name ?? '', b.metadata?.name ?? ''));
    for (const role of selected) {
      for (const rule of clusterRoleRules(role, clusterRoles, resolving))
        if (!rules.some((kept) => sameRule(kept, rule))) rules.push(rule);
    }
  }
  resolving.delete(name);
  return rules;
}

/** sort.Sort(byName)'s order; for the ASCII of object names, code units order as Go's bytes do. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** equality.Semantic.DeepEqual on rules, for which a missing list equals an empty one. */
function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  const fields = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;
  return fields.every((field) => {
    const left = a[field] ?? [];
    const right = b[field] ?? [];
    return left.length === right.length && left.every((value, i) => value === right[i]);
  });
}

/** utilerrors.NewAggregate(...).Error(): one message as it is, several distinct ones as `[a, b]`. */
function aggregateMessage(messages: readonly string[]): string {
  const distinct = [...new Set(messages)];
  return distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`;
}
