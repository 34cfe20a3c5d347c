/**
 * RBAC: subjects are identities as upstream authenticates them (identity-names.ts), a roleRef to a
 * ClusterRole names a cluster-scoped tenant object, and rules name API groups. Down, subjects
 * and groups that are not this tenant's are dropped, so a binding or role someone else edited
 * still lists cleanly and shows nothing foreign.
 */
import { groupDown, groupUp, TranslationError } from '../context.js';
import { groupName, userName } from './identity-names.js';
import { EACH, owned, ruled, type Invariant } from './invariants.js';
import { TENANT_LABEL } from './namespace.js';
import { all, at, byKind, each, isObject, prefixed, requiredStringAt, stringsAt, type StringRule, type Transform } from './transform.js';

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
  up: (ctx, name) => `${ctx.tenantId}:${name}`,
  down: (ctx, name) => (name.startsWith(`${ctx.tenantId}:`) && name.length > ctx.tenantId.length + 1 ? name.slice(ctx.tenantId.length + 1) : null),
};

/** The gateway's grant RoleBindings (`paddock:…`) in tenant namespaces: never the tenant's to see or make. */
export const GRANT_NAME_PREFIX = 'paddock:';

const notAGrant: Transform = {
  up: (_ctx, binding) => {
    if (typeof binding.metadata?.name === 'string' && binding.metadata.name.startsWith(GRANT_NAME_PREFIX)) {
      throw new TranslationError(403, 'Forbidden', `rolebindings named "${GRANT_NAME_PREFIX}…" are reserved for the gateway's grants`);
    }
    // The label marks grants, so that a tenant's delete-collection leaves them alone (request.ts).
    if (isObject(binding.metadata?.labels) && Object.hasOwn(binding.metadata.labels, TENANT_LABEL)) {
      throw new TranslationError(403, 'Forbidden', `the label ${TENANT_LABEL} on rolebindings is reserved for the gateway's grants`);
    }
  },
  down: (_ctx, binding) => !(typeof binding.metadata?.name === 'string' && binding.metadata.name.startsWith(GRANT_NAME_PREFIX)),
};

const subjects = each(['subjects'], subject);

export const roleBindingConvertor = all(notAGrant, subjects, at(['roleRef'], roleRef));

const dormantRoleRef = byKind({ ClusterRole: requiredStringAt('name', dormantRole) });

export const clusterRoleBindingConvertor = all(subjects, at(['roleRef'], dormantRoleRef));

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

const subjectsInvariant = owned(['subjects', EACH], subject, "must be one of the tenant's users, groups or service accounts");

export const roleBindingInvariants: readonly Invariant[] = [subjectsInvariant, owned(['roleRef'], roleRef, "must name one of the tenant's roles")];

/** A ClusterRoleBinding that names a real role upstream would grant it across every namespace. */
export const clusterRoleBindingInvariants: readonly Invariant[] = [subjectsInvariant, owned(['roleRef'], dormantRoleRef, "must name one of the tenant's roles, dormant")];
