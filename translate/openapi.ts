import { isObject, type Json } from '../apiserver/json.js';
import { UNSERVED_SCHEME_GROUPS } from '../apiserver/resources/builtin-groups.js';
import { toValidOperationId } from '../apiserver/openapi/v3.js';
import { ADMIN_GROUPS, groupDown, groupUp, type TenantContext } from './context.js';

/**
 * OpenAPI v3 down (upstream → tenant) and its paths up. The tenant's index lists the built-in
 * group-versions and its own CRD groups without the prefix; a document of its own group reads
 * as kube-apiserver would write it for the unprefixed group: path keys, group-version-kinds,
 * CRD schema names (`com.example.<p>stable.v1.CronTab` → `com.example.stable.v1.CronTab`) and
 * the operation ids and tags kube derives from the group. Other tenants' and the admin's groups
 * appear nowhere.
 */

const OPENAPI_V3 = '/openapi/v3/';
const SCHEMA_REF = '#/components/schemas/';
const GVK = 'x-kubernetes-group-version-kind';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Upstream `/openapi/v3` index → tenant's: hidden groups removed, the tenant's CRD groups renamed in keys and URLs (the `hash` query kept as it is). */
export function openapiIndexDown(ctx: TenantContext, index: any): any {
  const paths: Json = {};
  for (const [key, entry] of Object.entries<Json>(index.paths ?? {})) {
    const keyDown = relativePathDown(ctx, key);
    const urlDown =
      typeof entry.serverRelativeURL === 'string' ? serverRelativeUrlDown(ctx, entry.serverRelativeURL) : null;
    if (keyDown !== null && urlDown !== null) paths[keyDown] = { ...entry, serverRelativeURL: urlDown };
  }
  return { ...index, paths };
}

/** The upstream path for a tenant's `/openapi/v3/<gv>` path (no query), or null when hidden (an admin group) or not under `/openapi/v3/`. */
export function openapiPathUp(ctx: TenantContext, path: string): string | null {
  if (!path.startsWith(OPENAPI_V3)) return null;
  const [root, group, ...rest] = path.slice(OPENAPI_V3.length).split('/');
  if (root !== 'apis' || group === undefined) return path;
  if (ADMIN_GROUPS.has(group)) return null;
  return OPENAPI_V3 + ['apis', groupUp(ctx, group), ...rest].join('/');
}

/**
 * Upstream group-version document → tenant's: the tenant's CRD groups renamed wherever kube
 * embeds them, and anything of a group the tenant may not see (another tenant's or the admin's
 * CRD group) left out: its paths, its schemas (those whose group-version-kinds are all of such
 * groups), its entries in group-version-kind lists and references to its schemas. Kube puts
 * none of these in a document of a group the tenant may ask for; they are dropped all the same,
 * so that no upstream document can carry another tenant's names down. Nothing else changes.
 */
export function openapiDocumentDown(ctx: TenantContext, doc: any): any {
  const hidden = hiddenSchemas(ctx, doc.components?.schemas);
  const out: Json = refsAndKindsDown(ctx, doc, hidden);
  if (isObject(out.paths)) out.paths = pathsDown(ctx, out.paths);
  if (isObject(out.components?.schemas)) {
    const schemas = Object.entries<unknown>(out.components.schemas)
      .filter(([name]) => !hidden.has(name))
      .map(([name, schema]) => [schemaNameDown(ctx, name), schema]);
    out.components = { ...out.components, schemas: Object.fromEntries(schemas) };
  }
  return out;
}

/** Schemas that are kinds only of groups the tenant may not see: kube marks every kind's schema with its group-version-kinds. */
function hiddenSchemas(ctx: TenantContext, schemas: unknown): Set<string> {
  const hidden = new Set<string>();
  if (!isObject(schemas)) return hidden;
  for (const [name, schema] of Object.entries(schemas)) {
    const gvks: unknown = isObject(schema) ? schema[GVK] : undefined;
    const list = Array.isArray(gvks) ? gvks : gvks === undefined ? [] : [gvks];
    if (
      list.length &&
      list.every((gvk) => isObject(gvk) && typeof gvk.group === 'string' && !visibleGroup(ctx, gvk.group))
    )
      hidden.add(name);
  }
  return hidden;
}

/** The tenant's own groups, Kubernetes' served ones and those its meta schemas name besides. */
const visibleGroup = (ctx: TenantContext, group: string) =>
  groupDown(ctx, group) !== null || UNSERVED_SCHEME_GROUPS.has(group);

/** `apis/<p>G[/...]` → `apis/G[/...]`; null for a hidden group; any other path unchanged. */
function relativePathDown(ctx: TenantContext, path: string): string | null {
  const [root, group, ...rest] = path.split('/');
  if (root !== 'apis' || !group) return path;
  const down = groupDown(ctx, group);
  return down === null ? null : ['apis', down, ...rest].join('/');
}

function serverRelativeUrlDown(ctx: TenantContext, url: string): string | null {
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  if (!path.startsWith(OPENAPI_V3)) return url;
  const down = relativePathDown(ctx, path.slice(OPENAPI_V3.length));
  return down === null ? null : OPENAPI_V3 + down + (queryAt < 0 ? '' : url.slice(queryAt));
}

/**
 * Every `$ref` to a schema and every group-version-kind extension, wherever it sits: a reference
 * to a hidden schema is dropped (what referred to it accepts anything), and so is a
 * group-version-kind of a group the tenant may not see.
 */
function refsAndKindsDown(ctx: TenantContext, node: unknown, hidden: ReadonlySet<string>): any {
  if (Array.isArray(node)) return node.map((child) => refsAndKindsDown(ctx, child, hidden));
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_REF)) {
      const name = value.slice(SCHEMA_REF.length);
      if (!hidden.has(name)) out[key] = SCHEMA_REF + schemaNameDown(ctx, name);
    } else if (key === GVK) {
      const gvks = (Array.isArray(value) ? value : [value]).filter(
        (gvk) => !isObject(gvk) || typeof gvk.group !== 'string' || visibleGroup(ctx, gvk.group),
      );
      const down = gvks.map((gvk) => gvkDown(ctx, gvk));
      if (Array.isArray(value)) out[key] = down;
      else if (down.length) out[key] = down[0];
    } else out[key] = refsAndKindsDown(ctx, value, hidden);
  }
  return out;
}

function gvkDown(ctx: TenantContext, gvk: unknown): unknown {
  return isObject(gvk) && typeof gvk.group === 'string'
    ? { ...gvk, group: groupDown(ctx, gvk.group) ?? gvk.group }
    : gvk;
}

/** Path keys `/apis/<p>G/...`, with the operation ids and tags kube derived from `<p>G`; paths of hidden groups left out. */
function pathsDown(ctx: TenantContext, paths: Json): Json {
  const out: Json = {};
  for (const [path, item] of Object.entries(paths)) {
    const [empty, root, upstreamGroup, ...rest] = path.split('/');
    const group = root === 'apis' && upstreamGroup ? groupDown(ctx, upstreamGroup) : undefined;
    if (group === null) continue;
    if (group === undefined || group === upstreamGroup) out[path] = item;
    else out[[empty, root, group, ...rest].join('/')] = operationNamesDown(item, upstreamGroup, group);
  }
  return out;
}

function operationNamesDown(item: Json, upstreamGroup: string, group: string): Json {
  const out: Json = { ...item };
  const upstreamId = operationIdGroup(upstreamGroup, true);
  const id = operationIdGroup(group, true);
  const upstreamTag = operationIdGroup(upstreamGroup, false);
  const tag = operationIdGroup(group, false);
  for (const method of METHODS) {
    const operation = item[method];
    if (!isObject(operation)) continue;
    const renamed: Json = { ...operation };
    if (typeof operation.operationId === 'string') {
      // kube writes `<verb><Group><Version><Kind...>`, the verb in lower case (`listStableExampleComV1...`).
      const verb = /^[a-z]*/.exec(operation.operationId)![0];
      if (operation.operationId.startsWith(upstreamId, verb.length))
        renamed.operationId = verb + id + operation.operationId.slice(verb.length + upstreamId.length);
    }
    if (Array.isArray(operation.tags)) {
      // Tags are `<group>_<version>` (`stableExampleCom_v1`), or the group alone.
      renamed.tags = operation.tags.map((t: unknown) =>
        t === upstreamTag
          ? tag
          : typeof t === 'string' && t.startsWith(`${upstreamTag}_`)
            ? tag + t.slice(upstreamTag.length)
            : t,
      );
    }
    out[method] = renamed;
  }
  return out;
}

/** The group part of kube's operation ids and tags (apiserver's GetOperationIDAndTags). */
function operationIdGroup(group: string, capitalizeFirstLetter: boolean): string {
  return toValidOperationId(group.replace(/\.k8s\.io$/, ''), capitalizeFirstLetter);
}

/**
 * kube names a CRD's schemas `<group, dot-separated parts reversed>.<version>.<Kind>`
 * (kube-openapi's ToRESTFriendlyName of `<group>/<version>.<Kind>`). A name whose group part is
 * the tenant's own CRD group gets the unprefixed group; every other name (built-in `io.k8s...`)
 * stays as it is.
 */
function schemaNameDown(ctx: TenantContext, name: string): string {
  const parts = name.split('.');
  if (parts.length < 3) return name;
  const upstreamGroup = parts.slice(0, -2).reverse().join('.');
  const group = groupDown(ctx, upstreamGroup);
  return group === null || group === upstreamGroup
    ? name
    : [...group.split('.').reverse(), ...parts.slice(-2)].join('.');
}
