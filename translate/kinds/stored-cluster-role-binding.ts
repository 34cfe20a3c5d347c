/**
 * Where a tenant's ClusterRoleBindings are stored upstream: as RoleBindings in its own
 * `<tid>-kube-system`, named `paddock.clusterrolebinding:<name>` and labelled
 * `kubezoo.io/cluster-role-binding-of=<tid>` (docs/isolation.md, "A tenant's footprint upstream").
 * kube's RBAC reads every ClusterRoleBinding of the cluster on every request of everyone, but only
 * the request's namespace's RoleBindings: stored so, a tenant's bindings cost nothing to anyone
 * else's requests. They stay dormant (their roleRef names `<tid>:<role>`, rbac.ts), so they grant
 * nothing by themselves, in that namespace or elsewhere; the grants carry their meaning
 * (tenants/tenant-grants.ts).
 *
 * The rest of the gateway keeps speaking of them in their *upstream form*: the ClusterRoleBinding
 * `<tid>-<name>` the conversion makes of the tenant's (rbac.ts). This module turns that form into
 * the stored RoleBinding and back, and the requests and answers of the one into the other's.
 * The tenant never sees the stored form: as RoleBindings they are hidden as the grants are.
 */
import { isObject, type Json } from '../../apiserver/json.js';
import { decodeSegment } from '../../apiserver/request-info.js';
import { addPrefix, stripPrefix, type TenantPrefix } from '../context.js';

/** The name of a stored binding is this and the tenant's name of it. Reserved: no tenant RoleBinding has it. */
export const STORED_BINDING_NAME_PREFIX = 'paddock.clusterrolebinding:';
/** Set to the tenant id on every stored binding, so that a list selects them (the grants beside them lack it). */
export const STORED_BINDING_LABEL = 'kubezoo.io/cluster-role-binding-of';
/** The tenant namespace that holds them: every tenant has it from the start and cannot delete it (request.ts). */
export const STORED_BINDINGS_NAMESPACE = 'kube-system';

const RBAC_V1 = '/apis/rbac.authorization.k8s.io/v1';
/** The upstream path of ClusterRoleBindings, which the tenant's requests name. */
export const CLUSTER_ROLE_BINDINGS_PATH = `${RBAC_V1}/clusterrolebindings`;

export function storedBindingsNamespace(tenant: TenantPrefix): string {
  return addPrefix(tenant, STORED_BINDINGS_NAMESPACE);
}

/** Where the tenant's stored bindings are listed: its namespace's RoleBindings, by the label. */
export function storedBindingsListPath(tenant: TenantPrefix): string {
  return `${RBAC_V1}/namespaces/${storedBindingsNamespace(tenant)}/rolebindings?labelSelector=${encodeURIComponent(
    `${STORED_BINDING_LABEL}=${tenant.tenantId}`,
  )}`;
}

export function isStoredBindingName(name: unknown): boolean {
  return typeof name === 'string' && name.startsWith(STORED_BINDING_NAME_PREFIX);
}

/** `<tid>-x` → `paddock.clusterrolebinding:x`; null for a name not the tenant's. */
export function storedBindingName(tenant: TenantPrefix, upstreamName: string): string | null {
  const name = stripPrefix(tenant, upstreamName);
  return name === null ? null : STORED_BINDING_NAME_PREFIX + name;
}

/** `paddock.clusterrolebinding:x` → `<tid>-x`; null for any other name. */
export function clusterRoleBindingName(tenant: TenantPrefix, storedName: string): string | null {
  return isStoredBindingName(storedName)
    ? addPrefix(tenant, storedName.slice(STORED_BINDING_NAME_PREFIX.length))
    : null;
}

/** A ClusterRoleBinding in its upstream form → the RoleBinding it is stored as (a new object). */
export function storedBindingUp(tenant: TenantPrefix, binding: Json): Json {
  const stored: Json = { ...binding, metadata: { ...(isObject(binding.metadata) ? binding.metadata : {}) } };
  if (stored.kind === 'ClusterRoleBinding') stored.kind = 'RoleBinding';
  const meta = stored.metadata;
  for (const field of ['name', 'generateName'] as const)
    if (typeof meta[field] === 'string') meta[field] = storedBindingName(tenant, meta[field]) ?? meta[field];
  meta.namespace = storedBindingsNamespace(tenant);
  meta.labels = { ...(isObject(meta.labels) ? meta.labels : {}), [STORED_BINDING_LABEL]: tenant.tenantId };
  return stored;
}

/**
 * A stored RoleBinding → the ClusterRoleBinding in its upstream form (the same object, changed);
 * null when it is no stored binding of the tenant's. An object without a name (a watch bookmark)
 * only changes its kind.
 */
export function storedBindingDown(tenant: TenantPrefix, stored: Json): Json | null {
  const meta = isObject(stored.metadata) ? stored.metadata : undefined;
  if (stored.kind === 'RoleBinding') stored.kind = 'ClusterRoleBinding';
  if (meta === undefined || meta.name === undefined) return stored;
  const name = clusterRoleBindingName(tenant, String(meta.name));
  if (name === null || (meta.namespace !== undefined && meta.namespace !== storedBindingsNamespace(tenant)))
    return null;
  meta.name = name;
  if (typeof meta.generateName === 'string')
    meta.generateName = clusterRoleBindingName(tenant, meta.generateName) ?? meta.generateName;
  delete meta.namespace;
  // The label stays: it is part of the upstream form, hidden from the tenant by the conversion (rbac.ts).
  return stored;
}

/** Stored RoleBindings (list items, which carry no kind) → the tenant's ClusterRoleBindings in their upstream form; any other dropped. */
export function clusterRoleBindingsStoredAs(tenant: TenantPrefix, items: readonly Json[]): Json[] {
  return items.flatMap((item) => {
    const binding = storedBindingDown(tenant, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      ...item,
    });
    return binding ? [binding] : [];
  });
}

/**
 * A request of the ClusterRoleBindings API (`path?query` as the conversion made it) → the same
 * request of the stored RoleBindings; undefined when the path is not of ClusterRoleBindings. The
 * collection is narrowed to the stored bindings by their label, and names in field selectors are
 * the stored ones; a ClusterRoleBinding's namespace is `""`, which upstream is the storing one.
 */
export function storedBindingsPathUp(tenant: TenantPrefix, pathWithQuery: string): string | undefined {
  const [path, search = ''] = splitOnce(pathWithQuery, '?');
  if (path !== CLUSTER_ROLE_BINDINGS_PATH && !path.startsWith(`${CLUSTER_ROLE_BINDINGS_PATH}/`)) return undefined;
  const rest = path.slice(CLUSTER_ROLE_BINDINGS_PATH.length + 1);
  const [encodedName, subresource] = splitOnce(rest, '/');
  let stored = `${RBAC_V1}/namespaces/${storedBindingsNamespace(tenant)}/rolebindings`;
  if (encodedName) {
    const name = storedBindingName(tenant, decodeSegment(encodedName));
    // Never the case for a request the gateway checked (prefix-check.ts): a name of no stored binding.
    stored += `/${encodeURIComponent(name ?? `${STORED_BINDING_NAME_PREFIX}/`)}`;
    if (subresource !== undefined) stored += `/${subresource}`;
  }
  const query = new URLSearchParams(search);
  if (!encodedName) {
    const labels = query.get('labelSelector');
    const own = `${STORED_BINDING_LABEL}=${tenant.tenantId}`;
    query.set('labelSelector', labels ? `${labels},${own}` : own);
  }
  const fields = query.get('fieldSelector');
  if (fields) query.set('fieldSelector', fieldSelectorUp(tenant, fields));
  const text = query.toString();
  return text ? `${stored}?${text}` : stored;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/**
 * A field selector on ClusterRoleBindings, names upstream (`<tid>-x`, as request.ts made them),
 * turned to the stored bindings': `metadata.name` the stored name, `metadata.namespace` the
 * storing namespace for `""` (request.ts made it `<tid>-`) and a name no namespace has otherwise.
 * Values are escaped as fields.EscapeValue does; the selector was parsed once already.
 */
function fieldSelectorUp(tenant: TenantPrefix, selector: string): string {
  return splitUnescaped(selector, ',')
    .map((requirement) => {
      const match = /^(metadata\.name|metadata\.namespace)(==|!=|=)(.*)$/.exec(requirement);
      if (!match) return requirement;
      const [, field, operator, escaped] = match;
      const value = unescapeValue(escaped);
      const stored =
        field === 'metadata.name'
          ? (storedBindingName(tenant, value) ?? `${STORED_BINDING_NAME_PREFIX}/`)
          : value === tenant.prefix
            ? storedBindingsNamespace(tenant)
            : `${value}/`;
      return `${field}${operator}${escapeValue(stored)}`;
    })
    .join(',');
}

function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && i + 1 < text.length) {
      current += text[i] + text[i + 1];
      i++;
    } else if (text[i] === separator) {
      parts.push(current);
      current = '';
    } else current += text[i];
  }
  parts.push(current);
  return parts;
}

function unescapeValue(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

function escapeValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/=/g, '\\=');
}

/**
 * A JSON body of the ClusterRoleBindings API in its upstream form (an object, a list, a patch)
 * → the stored RoleBindings'. A merge or strategic patch names no namespace, and keeps what it
 * says of labels (the conversion keeps the tenant off the label: rbac.ts); a JSON patch's names
 * are the stored ones.
 */
export function storedBindingBodyUp(tenant: TenantPrefix, body: unknown): unknown {
  if (Array.isArray(body))
    return body.map((operation) =>
      isObject(operation) && operation.path === '/metadata/name' && typeof operation.value === 'string'
        ? { ...operation, value: storedBindingName(tenant, operation.value) ?? operation.value }
        : operation,
    );
  if (!isObject(body) || body.kind === 'DeleteOptions') return body;
  if (body.kind === undefined) {
    // A merge patch: only its name, if it has one.
    const meta = isObject(body.metadata) ? body.metadata : undefined;
    if (typeof meta?.name !== 'string') return body;
    return { ...body, metadata: { ...meta, name: storedBindingName(tenant, meta.name) ?? meta.name } };
  }
  return storedBindingUp(tenant, body);
}

/** Kube's messages and details name the resource and the kind; the stored ones become the tenant's. */
function statusDown(tenant: TenantPrefix, status: Json): Json {
  const names = (text: string) =>
    text
      .replace(
        /(^|[^a-z])rolebindings\.rbac\.authorization\.k8s\.io/g,
        '$1clusterrolebindings.rbac.authorization.k8s.io',
      )
      .replace(
        /(^|[^A-Za-z])RoleBinding\.rbac\.authorization\.k8s\.io/g,
        '$1ClusterRoleBinding.rbac.authorization.k8s.io',
      )
      .replaceAll(`"${STORED_BINDING_NAME_PREFIX}`, `"${tenant.prefix}`);
  if (typeof status.message === 'string') status.message = names(status.message);
  const details = isObject(status.details) ? status.details : undefined;
  if (details) {
    if (details.kind === 'rolebindings') details.kind = 'clusterrolebindings';
    if (details.kind === 'RoleBinding') details.kind = 'ClusterRoleBinding';
    if (typeof details.name === 'string') details.name = clusterRoleBindingName(tenant, details.name) ?? details.name;
    if (Array.isArray(details.causes))
      for (const cause of details.causes)
        if (isObject(cause) && typeof cause.message === 'string') cause.message = names(cause.message);
  }
  return status;
}

/** A Table of stored bindings → the Table of the ClusterRoleBindings (the same columns, kube's printer's). */
function tableDown(tenant: TenantPrefix, table: Json): Json {
  if (Array.isArray(table.columnDefinitions))
    for (const column of table.columnDefinitions)
      if (isObject(column) && typeof column.description === 'string')
        column.description = column.description.replace('the roleBinding', 'the clusterRoleBinding');
  if (Array.isArray(table.rows))
    table.rows = table.rows.filter((row: unknown) => {
      if (!isObject(row)) return false;
      const object = isObject(row.object) ? row.object : undefined;
      const name = object && isObject(object.metadata) ? object.metadata.name : undefined;
      if (object && object.kind === 'RoleBinding' && storedBindingDown(tenant, object) === null) return false;
      if (object && object.kind !== 'RoleBinding' && isObject(object.metadata)) {
        if (clusterRoleBindingName(tenant, String(name)) === null) return false;
        object.metadata.name = clusterRoleBindingName(tenant, String(name));
        delete object.metadata.namespace;
      }
      if (Array.isArray(row.cells) && typeof row.cells[0] === 'string') {
        const cell = clusterRoleBindingName(tenant, row.cells[0]);
        if (cell === null) return false;
        row.cells[0] = cell;
      }
      return true;
    });
  return table;
}

/** Any answer of the stored RoleBindings' API, parsed → the ClusterRoleBindings' (changed in place); null to drop it (a watch event of no stored binding). */
export function storedBindingsAnswerDown(tenant: TenantPrefix, answer: Json): Json | null {
  if (typeof answer.type === 'string' && isObject(answer.object)) {
    const object = storedBindingsAnswerDown(tenant, answer.object);
    return object === null ? null : answer;
  }
  switch (answer.kind) {
    case 'Status':
      return statusDown(tenant, answer);
    case 'Table':
      return tableDown(tenant, answer);
    case 'RoleBindingList':
      answer.kind = 'ClusterRoleBindingList';
      if (Array.isArray(answer.items))
        answer.items = answer.items.filter(
          (item: unknown) => isObject(item) && storedBindingDown(tenant, item) !== null,
        );
      return answer;
    default:
      return storedBindingDown(tenant, answer);
  }
}
