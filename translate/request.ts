import { parseRequestInfo, type RequestInfo, type ResourceRequestInfo } from '../apiserver/request-info.js';
import { parseFieldSelector, type FieldRequirement } from '../apiserver/selectors/field-selector.js';
import {
  addPrefix,
  ADMIN_GROUPS,
  groupUp,
  isSharedResource,
  isTenantGroup,
  pathNotFoundError,
  type TenantContext,
  TranslationError,
} from './context.js';
import { isReservedRoleBindingName } from './kinds/rbac.js';
import { STORED_BINDING_LABEL, STORED_BINDINGS_NAMESPACE } from './kinds/stored-cluster-role-binding.js';
import { TENANT_LABEL } from './kinds/tenant-label.js';

/** A tenant's resource request, translated for the upstream cluster. */
export interface TranslatedRequest {
  /** The request as the tenant sent it (tenant names and groups). */
  info: ResourceRequestInfo;
  namespaced: boolean;
  /** The kind the resource serves, in the tenant's view. */
  kind: string;
  path: string;
  query: URLSearchParams;
}

const READ_VERBS = new Set(['get', 'list', 'watch']);

/**
 * Path and query up (docs/design.md, "Translation rules"): the namespace gets the prefix; so does the
 * name of a cluster-scoped object (shared kinds such as Nodes excepted, and read-only); a CRD's
 * name `plural.group` becomes `plural.<p>group`; a tenant CRD group in the URL gets the prefix;
 * field selectors on names and namespaces are rewritten; a namespace list is narrowed upstream to
 * the tenant's own namespaces by label. Returns null for a path that is not a resource request.
 */
export function requestUp(
  ctx: TenantContext,
  method: string,
  path: string,
  query: URLSearchParams,
  /** The request info of this method, path and query, when the caller has parsed it already. */
  info: RequestInfo = parseRequestInfo(method, path, query),
): TranslatedRequest | null {
  if (!info.isResourceRequest || !info.resource) return null;
  if (ADMIN_GROUPS.has(info.group)) {
    throw new TranslationError(
      403,
      'Forbidden',
      `${info.resource}.${info.group} is forbidden: tenants cannot use the API group "${info.group}"`,
      { group: info.group, kind: info.resource },
    );
  }
  const namespaced = ctx.kinds.resourceIsNamespaced(info.group, info.resource);
  const kind = ctx.kinds.kindOf(info.group, info.resource);
  if (namespaced === undefined || kind === undefined) {
    throw pathNotFoundError();
  }
  const shared = isSharedResource(info.group, info.resource);
  if (shared && !READ_VERBS.has(info.verb)) {
    const what = info.name ? `${info.resource} "${info.name}"` : info.resource;
    throw new TranslationError(
      403,
      'Forbidden',
      `${what} is forbidden: ${info.resource} are shared by all tenants and read-only`,
      { name: info.name, group: info.group, kind: info.resource },
    );
  }
  if (info.group === RBAC_GROUP && info.resource === 'rolebindings' && isReservedRoleBindingName(info.name)) {
    // The gateway's grants and stored ClusterRoleBindings are hidden from the tenant; by name they do not exist either.
    throw new TranslationError(404, 'NotFound', `rolebindings.${RBAC_GROUP} "${info.name}" not found`, {
      name: info.name,
      group: RBAC_GROUP,
      kind: info.resource,
    });
  }
  if (
    info.group === '' &&
    info.resource === 'namespaces' &&
    info.verb === 'delete' &&
    info.name === STORED_BINDINGS_NAMESPACE
  ) {
    // As kube's NamespaceLifecycle keeps kube-system: it holds the tenant's ClusterRoleBindings upstream.
    throw new TranslationError(
      403,
      'Forbidden',
      `namespaces "${info.name}" is forbidden: this namespace may not be deleted`,
      {
        name: info.name,
        kind: info.resource,
      },
    );
  }
  const group = groupUp(ctx, info.group);
  const segments = info.apiPrefix === 'api' ? ['api', info.version] : ['apis', group, info.version];
  if (namespaced && info.namespace) segments.push('namespaces', addPrefix(ctx, info.namespace));
  segments.push(info.resource);
  if (info.name) segments.push(nameUp(ctx, info.group, info.resource, info.name, namespaced, shared));
  if (info.subresource) segments.push(info.subresource, ...info.rest);
  const upstreamQuery = new URLSearchParams(query);
  const fieldSelector = query.get('fieldSelector');
  if (fieldSelector)
    upstreamQuery.set(
      'fieldSelector',
      fieldSelectorUp(ctx, info.group, info.resource, fieldSelector, namespaced, shared),
    );
  if (info.group === '' && info.resource === 'namespaces' && !info.name) {
    const labels = query.get('labelSelector');
    upstreamQuery.set(
      'labelSelector',
      labels ? `${labels},${TENANT_LABEL}=${ctx.tenantId}` : `${TENANT_LABEL}=${ctx.tenantId}`,
    );
  }
  if (info.group === RBAC_GROUP && info.resource === 'rolebindings' && info.verb === 'deletecollection') {
    // The gateway's grants and stored ClusterRoleBindings (labelled, hidden) survive a tenant's delete-collection of its bindings.
    const labels = query.get('labelSelector');
    const gateways = `!${TENANT_LABEL},!${STORED_BINDING_LABEL}`;
    upstreamQuery.set('labelSelector', labels ? `${labels},${gateways}` : gateways);
  }
  return { info, namespaced, kind, path: `/${segments.map(encodeURIComponent).join('/')}`, query: upstreamQuery };
}

/** The upstream name of a named object in a URL or a field selector. */
function nameUp(
  ctx: TenantContext,
  group: string,
  resource: string,
  name: string,
  namespaced: boolean,
  shared: boolean,
): string {
  if (group === 'apiextensions.k8s.io' && resource === 'customresourcedefinitions') return crdNameUp(ctx, name);
  return namespaced || shared ? name : addPrefix(ctx, name);
}

/** `plural.group` → `plural.<p>group` (the CRD's name follows its group). */
export function crdNameUp(ctx: TenantContext, name: string): string {
  const dot = name.indexOf('.');
  if (dot < 0) return name;
  const group = name.slice(dot + 1);
  return isTenantGroup(group) ? `${name.slice(0, dot)}.${groupUp(ctx, group)}` : name;
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

const INVOLVED_OBJECT_FIELDS = ['involvedObject', 'regarding'];

/** Field selectors up: names and namespaces in the tenant's terms become upstream names. */
export function fieldSelectorUp(
  ctx: TenantContext,
  group: string,
  resource: string,
  text: string,
  namespaced: boolean,
  shared: boolean,
): string {
  let selector;
  try {
    selector = parseFieldSelector(text);
  } catch (err) {
    throw new TranslationError(400, 'BadRequest', (err as Error).message);
  }
  const requirements = selector.requirements.map((r) => ({ ...r }));
  const referencedKind = (prefix: string) =>
    requirements.find((r) => r.field === `${prefix}.kind` && r.operator === '=')?.value;
  for (const requirement of requirements) {
    if (requirement.field === 'metadata.namespace') requirement.value = addPrefix(ctx, requirement.value);
    else if (requirement.field === 'metadata.name')
      requirement.value = nameUp(ctx, group, resource, requirement.value, namespaced, shared);
    for (const reference of INVOLVED_OBJECT_FIELDS) {
      if (requirement.field === `${reference}.namespace` && requirement.value)
        requirement.value = addPrefix(ctx, requirement.value);
      if (requirement.field === `${reference}.name`) {
        const kind = referencedKind(reference);
        // The name of a cluster-scoped object (the kind says which) carries the prefix upstream.
        if (kind && ctx.kinds.kindIsNamespaced('', kind) === false && !isSharedResourceKind(kind))
          requirement.value = addPrefix(ctx, requirement.value);
      }
    }
  }
  return requirements.map(formatRequirement).join(',');
}

function isSharedResourceKind(kind: string): boolean {
  return kind === 'Node' || kind === 'ComponentStatus';
}

/** fields.EscapeValue: backslash, comma and equals are escaped in values. */
function formatRequirement(requirement: FieldRequirement): string {
  const value = requirement.value.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/=/g, '\\=');
  return `${requirement.field}${requirement.operator}${value}`;
}
