/**
 * CustomResourceDefinitions: the tenant's group gets the prefix, both in `spec.group` and in the
 * name (`crontabs.stable.example.com` ↔ `crontabs.<p>stable.example.com`). Built-in groups are
 * Kubernetes' own, shared by every tenant, so a tenant may not define kinds in them.
 */
import { isObject, nameForMessage } from '../../apiserver/json.js';
import { addPrefix, isTenantGroup, stripPrefix, TranslationError } from '../context.js';
import { ruled, type Invariant } from './invariants.js';
import { checkLength } from './name-limit.js';
import { all, at, requiredStringAt, type NameRule, type StringRule, type Convertor } from './convertor.js';
import { webhookClientConfig, webhookClientConfigInvariants } from './webhook-client-config.js';

const CRD = { kind: 'CustomResourceDefinition', group: 'apiextensions.k8s.io' };
const GROUP_LIMIT = 253;

const tenantGroup: StringRule = {
  up: (ctx, group) => {
    if (!isTenantGroup(group))
      throw new TranslationError(
        403,
        'Forbidden',
        `CustomResourceDefinitions in the built-in API group "${group}" are not allowed for tenants`,
      );
    return addPrefix(ctx, group);
  },
  down: (ctx, group) => {
    const stripped = stripPrefix(ctx, group);
    return stripped !== null && isTenantGroup(stripped) ? stripped : null;
  },
};

/** `plural.group` ↔ `plural.<p>group`; a name without a group is prefixed whole (the apiserver refuses it). */
export const crdName: NameRule = {
  upstreamLimit: 253,
  up: (ctx, name) => {
    const dot = name.indexOf('.');
    return dot < 0 ? addPrefix(ctx, name) : name.slice(0, dot + 1) + tenantGroup.up(ctx, name.slice(dot + 1));
  },
  down: (ctx, name) => {
    const dot = name.indexOf('.');
    const group = dot < 0 ? null : tenantGroup.down(ctx, name.slice(dot + 1));
    return group === null ? null : name.slice(0, dot + 1) + group;
  },
};

const groupFitsUpstream: Convertor = {
  up: (ctx, crd) => {
    const group = isObject(crd.spec) ? crd.spec.group : undefined;
    if (typeof group === 'string')
      checkLength(ctx, group, GROUP_LIMIT, { ...CRD, field: 'spec.group', name: nameForMessage(crd) });
  },
  down: () => true,
};

export const crdConvertor: Convertor = all(
  groupFitsUpstream,
  at(['spec'], requiredStringAt('group', tenantGroup)),
  at(['spec', 'conversion', 'webhook', 'clientConfig'], webhookClientConfig),
);

/** Its name follows its group (metadata); the group itself must be the tenant's. */
export const crdInvariants: readonly Invariant[] = [
  ruled(['spec', 'group'], tenantGroup, "must be one of the tenant's own API groups"),
  ...webhookClientConfigInvariants(['spec', 'conversion', 'webhook', 'clientConfig']),
];
