/**
 * RBAC: subjects are identities as upstream authenticates them (identity-names.ts), a roleRef to a
 * ClusterRole names a cluster-scoped tenant object, and rules name API groups and, for
 * cluster-scoped resources, tenant objects by name. ClusterRoles carry the tenant label and their
 * aggregation selectors select only the tenant's ClusterRoles, so the upstream aggregation
 * controller never copies another tenant's rules into them. Down, subjects, groups and names that
 * are not this tenant's are dropped, so a binding or role someone else edited still lists
 * cleanly and shows nothing foreign.
 */
import { isObject, nameForMessage, type Json } from '../../apiserver/json.js';
import { groupDown, groupUp, TranslationError, withoutPrefix, type TenantContext } from '../context.js';
import { groupName, userName } from './identity-names.js';
import { referencedNameRule } from './names.js';
import { EACH, owned, ruled, type Invariant } from './invariants.js';
import { STORED_BINDING_LABEL, STORED_BINDING_NAME_PREFIX } from './stored-cluster-role-binding.js';
import {
  forcedLabel,
  forcedTenantLabel,
  isTenantRequirement,
  TENANT_LABEL,
  tenantOnlySelector,
  withTenantRequirement,
} from './tenant-label.js';
import {
  all,
  at,
  byKind,
  each,
  prefixed,
  requiredStringAt,
  stringsAt,
  type StringRule,
  type Convertor,
} from './convertor.js';

const subject = byKind({
  User: requiredStringAt('name', userName),
  Group: requiredStringAt('name', groupName),
  ServiceAccount: requiredStringAt('namespace', prefixed),
});

/** A binding to someone else's ClusterRole is not the tenant's binding. */
const roleRef = byKind({ ClusterRole: requiredStringAt('name', prefixed) });

/**
 * A ClusterRoleBinding upstream is dormant: its roleRef names `<tid>:<role>`, which never exists,
 * so it grants nothing across namespaces; the gateway's grants give it its meaning inside each
 * tenant namespace (tenants/tenant-grants.ts, docs/isolation.md).
 */
const dormantRole: StringRule = {
  up: (ctx, name) => dormantRoleName(ctx.tenantId, name),
  down: (ctx, name) => roleOfDormantName(ctx.tenantId, name),
};

/** `<tid>:<role>`: the ClusterRole a dormant binding names upstream. */
export function dormantRoleName(tenantId: string, role: string): string {
  return `${tenantId}:${role}`;
}

/** The tenant's role a dormant roleRef stands for, or null when the name is not one. */
export function roleOfDormantName(tenantId: string, name: string): string | null {
  return withoutPrefix(dormantRoleName(tenantId, ''), name);
}

const dormantRoleRef = byKind({ ClusterRole: requiredStringAt('name', dormantRole) });

/** The gateway's grant RoleBindings (`paddock:…`) in tenant namespaces: never the tenant's to see or make. */
export const GRANT_NAME_PREFIX = 'paddock:';

/** Names of RoleBindings only the gateway makes: its grants, and the tenant's ClusterRoleBindings as stored. */
const RESERVED_NAME_PREFIXES = [GRANT_NAME_PREFIX, STORED_BINDING_NAME_PREFIX];
/** Labels of RoleBindings only the gateway sets: the grants', and the stored ClusterRoleBindings'. */
const RESERVED_LABELS = [TENANT_LABEL, STORED_BINDING_LABEL];

/** Whether a RoleBinding of this name is the gateway's (a grant, a stored ClusterRoleBinding): never the tenant's. */
export function isReservedRoleBindingName(name: unknown): boolean {
  return typeof name === 'string' && RESERVED_NAME_PREFIXES.some((prefix) => name.startsWith(prefix));
}

const notAGrant: Convertor = {
  up: (_ctx, binding) => {
    const name = binding.metadata?.name;
    const reserved = RESERVED_NAME_PREFIXES.find((prefix) => typeof name === 'string' && name.startsWith(prefix));
    if (reserved) {
      throw new TranslationError(403, 'Forbidden', `rolebindings named "${reserved}…" are reserved for the gateway`);
    }
    // The labels mark the gateway's, so that a tenant's delete-collection leaves them alone (request.ts).
    const labels = binding.metadata?.labels;
    const label = RESERVED_LABELS.find((key) => isObject(labels) && Object.hasOwn(labels, key));
    if (label) {
      throw new TranslationError(403, 'Forbidden', `the label ${label} on rolebindings is reserved for the gateway`);
    }
  },
  down: (_ctx, binding) => !isReservedRoleBindingName(binding.metadata?.name),
};

const subjects = each(['subjects'], subject);

export const roleBindingConvertor = all(notAGrant, subjects, at(['roleRef'], roleRef));

/**
 * A ClusterRoleBinding carries the label that selects it among the RoleBindings it is stored
 * with (stored-cluster-role-binding.ts), forced and hidden as a ClusterRole's tenant label is.
 */
const storedBindingLabel = forcedLabel(STORED_BINDING_LABEL);

export const clusterRoleBindingConvertor = all(subjects, at(['roleRef'], dormantRoleRef), storedBindingLabel);

/** An API group in a rule or review: `*` is every group, not a group called `*`. */
export const apiGroup: StringRule = {
  up: (ctx, group) => (group === '*' ? group : groupUp(ctx, group)),
  down: (ctx, group) => (group === '*' ? group : groupDown(ctx, group)),
};

const ruleGroups = stringsAt('apiGroups', apiGroup);

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/**
 * How a rule's resourceNames map, read from its groups and resources in the tenant's view: kept
 * (namespaced, shared and unknown resources) or by one cluster-scoped name rule; a string says
 * why they cannot be converted at all: names for resources of both scopes in one rule, or a
 * wildcard, have no single upstream form.
 */
function resourceNamesRule(ctx: TenantContext, rule: Json): StringRule | undefined | string {
  const groups = strings(rule.apiGroups);
  const resources = strings(rule.resources);
  if (groups.includes('*') || resources.some((resource) => resource === '*' || resource.startsWith('*/'))) {
    return 'resourceNames cannot go with a wildcard in apiGroups or resources through the gateway, which must know whether they name cluster-scoped objects (those carry the tenant prefix upstream): name the API groups and resources';
  }
  // Name rules that convert alike (Namespaces' and other cluster-scoped kinds') share their `up`.
  const byConversion = new Map<StringRule['up'] | undefined, StringRule | undefined>();
  for (const group of groups) {
    for (const resource of resources) {
      const kind = ctx.kinds.kindOf(group, resource.split('/')[0]);
      const names = kind === undefined ? undefined : referencedNameRule(ctx, group, kind);
      byConversion.set(names?.up, names);
    }
  }
  if (byConversion.size > 1) {
    return `the rule's resources (${resources.join(', ')}) mix namespaced or shared kinds and cluster-scoped ones, whose names the gateway converts differently (cluster-scoped names carry the tenant prefix upstream): split the rule into one for the namespaced and one for the cluster-scoped resources`;
  }
  return byConversion.values().next().value;
}

/** What a refusal names: the object, as the apiserver's Invalid does. */
interface RuleOwner {
  kind: string;
  name: string;
  field: string;
}

function invalid(owner: RuleOwner, field: string, value: unknown, detail: string): TranslationError {
  const message = `Invalid value: ${JSON.stringify(value)}: ${detail}`;
  return new TranslationError(
    422,
    'Invalid',
    `${owner.kind} "${owner.name}" is invalid: ${owner.field}.${field}: ${message}`,
    {
      name: owner.name,
      kind: owner.kind,
      group: 'rbac.authorization.k8s.io',
      causes: [{ reason: 'FieldValueInvalid', field: `${owner.field}.${field}`, message }],
    },
  );
}

/** A PolicyRule up: names of the tenant's cluster-scoped objects get the prefix, groups as everywhere. */
function ruleUp(ctx: TenantContext, rule: Json, owner: RuleOwner): void {
  if (Array.isArray(rule.resourceNames) && rule.resourceNames.length > 0) {
    // Without its resources (a JSON patch into the rule) the names' scope cannot be known.
    if (!Array.isArray(rule.resources))
      throw invalid(
        owner,
        'resources',
        rule.resources ?? null,
        "resourceNames can only be converted together with the rule's resources",
      );
    const names = resourceNamesRule(ctx, rule);
    if (typeof names === 'string') throw invalid(owner, 'resourceNames', rule.resourceNames, names);
    if (names)
      rule.resourceNames = rule.resourceNames.map((name: unknown) =>
        typeof name === 'string' ? names.up(ctx, name) : name,
      );
  }
  ruleGroups.up(ctx, rule);
}

/**
 * A rule down: false when it is not the tenant's to see. A rule left with none of its groups, or
 * none of its names, is dropped: without them it would read as a wider grant than it is.
 */
function ruleDown(ctx: TenantContext, rule: Json): boolean {
  const hadGroups = Array.isArray(rule.apiGroups) && rule.apiGroups.length > 0;
  ruleGroups.down(ctx, rule);
  if (hadGroups && rule.apiGroups.length === 0) return false;
  if (!Array.isArray(rule.resourceNames) || rule.resourceNames.length === 0) return true;
  const names = resourceNamesRule(ctx, rule);
  if (typeof names === 'string') return false;
  if (!names) return true;
  rule.resourceNames = rule.resourceNames.flatMap((name: unknown) => {
    const tenantName = typeof name === 'string' ? names.down(ctx, name) : null;
    return tenantName === null ? [] : [tenantName];
  });
  return rule.resourceNames.length > 0;
}

/** A rules review's ResourceRule, which only comes down. */
export const policyRule: Convertor = {
  up: (ctx, rule) => ruleUp(ctx, rule, { kind: 'SelfSubjectRulesReview', name: '', field: 'status.resourceRules' }),
  down: ruleDown,
};

/** The rules of a Role or ClusterRole; a refusal names the object and the rule, as the apiserver would. */
function rulesOf(kind: string): Convertor {
  return {
    up: (ctx, role) => {
      if (!Array.isArray(role.rules)) return;
      role.rules.forEach((rule: unknown, index: number) => {
        if (isObject(rule))
          ruleUp(ctx, rule, {
            kind,
            name: nameForMessage(role),
            field: `rules[${index}]`,
          });
      });
    },
    down: each(['rules'], policyRule).down,
  };
}

/** Each selector of an aggregationRule narrowed to the tenant's own (labelled) ClusterRoles. */
const tenantAggregation = each(['aggregationRule', 'clusterRoleSelectors'], tenantOnlySelector);

export const roleConvertor = rulesOf('Role');

/**
 * kube's own `admin`, `edit` and `view` aggregate every ClusterRole labelled
 * `rbac.authorization.k8s.io/aggregate-to-<role>`: a tenant's would lend its rules to whoever
 * holds those roles cluster-wide. Tenants cannot bind them, and cannot label into them.
 */
const AGGREGATE_TO_CLUSTER_ROLES = 'rbac.authorization.k8s.io/aggregate-to-';

const aggregatesIntoClusterRoles = (labels: unknown): string | undefined =>
  isObject(labels) ? Object.keys(labels).find((key) => key.startsWith(AGGREGATE_TO_CLUSTER_ROLES)) : undefined;

const notIntoClusterRoles: Convertor = {
  up: (_ctx, role) => {
    const key = aggregatesIntoClusterRoles(role.metadata?.labels);
    if (key)
      throw new TranslationError(
        403,
        'Forbidden',
        `the label ${key} would add the tenant's rules to the cluster's own roles, which tenants cannot change`,
      );
  },
  down: () => true,
};

export const clusterRoleConvertor = all(
  rulesOf('ClusterRole'),
  notIntoClusterRoles,
  forcedTenantLabel,
  tenantAggregation,
);

export const roleInvariants: readonly Invariant[] = [
  ruled(['rules', EACH, 'apiGroups', EACH], apiGroup, "must be a built-in API group or one of the tenant's own"),
];

/** A ClusterRole carries the tenant label, and aggregates only the tenant's own ClusterRoles. */
export const clusterRoleInvariants: readonly Invariant[] = [
  ...roleInvariants,
  {
    path: ['metadata', 'labels'],
    must: `must not carry ${AGGREGATE_TO_CLUSTER_ROLES}…: the cluster's own roles would aggregate the tenant's rules`,
    holds: (_ctx, labels) => aggregatesIntoClusterRoles(labels) === undefined,
  },
  {
    path: ['metadata', 'labels', TENANT_LABEL],
    must: "must be the tenant's id",
    holds: (ctx, value) => value === ctx.tenantId,
    normalize: (ctx) => ctx.tenantId,
  },
  {
    path: ['aggregationRule', 'clusterRoleSelectors', EACH],
    must: `must require the label ${TENANT_LABEL} In [<tenant>]`,
    holds: (ctx, selector) =>
      isObject(selector) &&
      Array.isArray(selector.matchExpressions) &&
      selector.matchExpressions.some((requirement: unknown) => isTenantRequirement(ctx, requirement)),
    normalize: withTenantRequirement,
  },
];

const subjectsInvariant = owned(
  ['subjects', EACH],
  subject,
  "must be one of the tenant's users, groups or service accounts",
);

export const roleBindingInvariants: readonly Invariant[] = [
  subjectsInvariant,
  owned(['roleRef'], roleRef, "must name one of the tenant's roles"),
];

/** A ClusterRoleBinding that names a real role upstream would grant it across every namespace. */
export const clusterRoleBindingInvariants: readonly Invariant[] = [
  subjectsInvariant,
  owned(['roleRef'], dormantRoleRef, "must name one of the tenant's roles, dormant"),
  {
    path: ['metadata', 'labels', STORED_BINDING_LABEL],
    must: "must be the tenant's id",
    holds: (ctx, value) => value === ctx.tenantId,
    normalize: (ctx) => ctx.tenantId,
  },
];
