/**
 * RBAC: subjects are identities as upstream authenticates them (identity-names.ts), a roleRef to a
 * ClusterRole names a cluster-scoped tenant object, and rules name API groups. Down, subjects
 * and groups that are not this tenant's are dropped, so a binding or role someone else edited
 * still lists cleanly and shows nothing foreign.
 */
import { groupDown, groupUp } from '../context.js';
import { groupName, userName } from './identity-names.js';
import { EACH, owned, ruled, type Invariant } from './invariants.js';
import { all, at, byKind, each, prefixed, requiredStringAt, stringsAt, type StringRule, type Transform } from './transform.js';

const subject = byKind({
  User: requiredStringAt('name', userName),
  Group: requiredStringAt('name', groupName),
  ServiceAccount: requiredStringAt('namespace', prefixed),
});

/** A binding to someone else's ClusterRole is not the tenant's binding. */
const roleRef = byKind({ ClusterRole: requiredStringAt('name', prefixed) });

/** RoleBinding, ClusterRoleBinding. */
export const bindingConvertor = all(each(['subjects'], subject), at(['roleRef'], roleRef));

/** An API group in a rule or review: `*` is every group, not a group called `*`. */
export const apiGroup: StringRule = {
  up: (ctx, group) => (group === '*' ? group : groupUp(ctx, group)),
  down: (ctx, group) => (group === '*' ? group : groupDown(ctx, group)),
};

const ruleGroups = stringsAt('apiGroups', apiGroup);

/** A PolicyRule (or a rules review's ResourceRule); down, a rule left with none of its groups is dropped. */
export const policyRule: Transform = {
  up: ruleGroups.up,
  down: (ctx, rule) => {
    const hadGroups = Array.isArray(rule.apiGroups) && rule.apiGroups.length > 0;
    ruleGroups.down(ctx, rule);
    return !hadGroups || rule.apiGroups.length > 0;
  },
};

/** Role, ClusterRole. */
export const roleConvertor = each(['rules'], policyRule);

export const roleInvariants: readonly Invariant[] = [ruled(['rules', EACH, 'apiGroups', EACH], apiGroup, "must be a built-in API group or one of the tenant's own")];

export const bindingInvariants: readonly Invariant[] = [
  owned(['subjects', EACH], subject, "must be one of the tenant's users, groups or service accounts"),
  owned(['roleRef'], roleRef, "must name one of the tenant's roles"),
];
