/**
 * Authentication and authorization reviews: the identities, namespaces, groups and names they ask
 * about are translated up; the answer comes back with the spec as sent and a status in upstream
 * words, both translated down.
 */
import { isObject, type Json } from '../../apiserver/json.js';
import type { TenantContext } from '../context.js';
import { groupName, identityGroupName, userName } from './identity-names.js';
import { referencedNameRule } from './names.js';
import { apiGroup, policyRule } from './rbac.js';
import { textAt } from './text.js';
import { audiences } from './token-request.js';
import {
  all,
  at,
  each,
  optional,
  prefixed,
  requiredStringAt,
  stringAt,
  stringsAt,
  type Convertor,
  type NameRule,
} from './convertor.js';

/** A UserInfo's groups; `<p>system:authenticated` and upstream's own `system:authenticated` are one group down. */
const groupsOfIdentity = stringsAt('groups', identityGroupName);
const identityGroups: Convertor = {
  up: groupsOfIdentity.up,
  down: (ctx, info) => {
    groupsOfIdentity.down(ctx, info);
    if (Array.isArray(info.groups)) info.groups = [...new Set(info.groups)];
    return true;
  },
};

/** A UserInfo (TokenReview, SelfSubjectReview): someone not this tenant's is no one it may know. */
const userInfo = all(requiredStringAt('username', userName), identityGroups);

const tokenReviewStatus: Convertor = {
  up: () => {},
  down: (ctx, status) => {
    if (isObject(status.user) && !userInfo.down(ctx, status.user)) {
      delete status.user;
      status.authenticated = false;
    }
    return true;
  },
};

export const tokenReviewConvertor = all(at(['spec'], audiences), at(['status'], all(tokenReviewStatus, audiences)));

export const selfSubjectReviewConvertor = at(['status'], optional('userInfo', userInfo));

const namespaceAndGroup = all(stringAt('namespace', prefixed), stringAt('group', apiGroup));

/** The rule for `name` when the resource asked about is cluster-scoped (in the tenant's view of the group). */
function resourceNameRule(ctx: TenantContext, attributes: Json): NameRule | undefined {
  const group = typeof attributes.group === 'string' ? attributes.group : '';
  const kind = typeof attributes.resource === 'string' ? ctx.kinds.kindOf(group, attributes.resource) : undefined;
  return kind === undefined ? undefined : referencedNameRule(ctx, group, kind);
}

/** ResourceAttributes: the name is read in the tenant's view, so before the group goes up and after it comes down. */
const resourceAttributes: Convertor = {
  up: (ctx, attributes) => {
    const rule = resourceNameRule(ctx, attributes);
    if (rule && typeof attributes.name === 'string' && attributes.name !== '')
      attributes.name = rule.up(ctx, attributes.name);
    namespaceAndGroup.up(ctx, attributes);
  },
  down: (ctx, attributes) => {
    namespaceAndGroup.down(ctx, attributes);
    const rule = resourceNameRule(ctx, attributes);
    if (rule && typeof attributes.name === 'string' && attributes.name !== '') {
      const name = rule.down(ctx, attributes.name);
      if (name === null) delete attributes.name;
      else attributes.name = name;
    }
    return true;
  },
};

const accessReviewStatus = at(['status'], all(textAt('reason'), textAt('evaluationError')));

/** SubjectAccessReview, LocalSubjectAccessReview. */
export const subjectAccessReviewConvertor = all(
  at(
    ['spec'],
    all(stringAt('user', userName), stringsAt('groups', groupName), optional('resourceAttributes', resourceAttributes)),
  ),
  accessReviewStatus,
);

export const selfSubjectAccessReviewConvertor = all(
  at(['spec'], optional('resourceAttributes', resourceAttributes)),
  accessReviewStatus,
);

export const selfSubjectRulesReviewConvertor = all(
  at(['spec'], stringAt('namespace', prefixed)),
  at(['status'], all(each(['resourceRules'], policyRule), textAt('evaluationError'))),
);
