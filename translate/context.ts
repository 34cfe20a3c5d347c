import type { HostPort } from '../apiserver/host-port.js';
import { BUILTIN_API_GROUPS } from '../apiserver/resources/builtin-groups.js';

export { groupOfApiVersion } from '../apiserver/api-version.js';

/**
 * What protocol conversion knows about one tenant and the upstream cluster's kinds. Pure data
 * and functions: the gateway builds a TenantContext per request from its discovery cache.
 *
 * Vocabulary:
 * - **up** is tenant → upstream, **down** is upstream → tenant;
 * - the **prefix** is `<tid>-`: it goes in front of every namespace, every cluster-scoped name
 *   (except shared kinds such as Nodes) and every custom (CRD) API group upstream;
 * - a **tenant group** is an API group that is not a built-in Kubernetes group: the tenant's own
 *   CRD groups, which upstream carry the prefix (`stable.example.com` ↔ `<tid>-stable.example.com`);
 * - a **foreign** upstream object is one that does not carry this tenant's prefix where it must:
 *   it belongs to another tenant or the admin and never reaches this tenant.
 */
export interface TenantContext extends TenantPrefix {
  kinds: KindScope;
  /** Where the tenant's pods reach their API, the gateway (kinds/pod-api.ts); unset, pods are not pointed anywhere. */
  podApi?: PodApi;
  /**
   * Converting kubectl's record of what it applied (its last-applied annotation): always a whole
   * object, so a pod in it is pointed at the gateway in full, and read back as written, without the
   * token volume a pod itself shows (kubectl would otherwise compute the volume's deletion).
   */
  appliedRecord?: boolean;
}

/** The gateway as a tenant's pods reach it, and what a conversion up may add to a pod to point it there. */
export interface PodApi extends HostPort {
  /** `host` and `port`: an address in the cluster's network, its host an IP or a DNS name. */
  /** `host` when it is an IP address: what `hostAliases` can name. */
  ip?: string;
  /** The CA that signed the gateway's serving certificate, PEM. */
  caPem: string;
  /**
   * What a body converted up may be given: everything (a whole object, a server-side apply), or
   * the variables only (any other patch: a partial body, in which an added list would replace the
   * stored one).
   */
  adds: 'all' | 'env';
  /**
   * false when the pod's ServiceAccount turns `automountServiceAccountToken` off and the pod says
   * nothing (read by gateway/proxy/pod-account.ts): no token volume, as kube's admission adds none.
   */
  tokenVolume?: false;
}

/** The context with what a conversion up may add to a pod narrowed (PodApi.adds). */
export function podApiAdding(ctx: TenantContext, adds: PodApi['adds']): TenantContext {
  return ctx.podApi && ctx.podApi.adds !== adds ? { ...ctx, podApi: { ...ctx.podApi, adds } } : ctx;
}

/**
 * All that naming a tenant's objects upstream needs: a TenantContext is one, and code that holds
 * only a tenant id (tenants/, authentication, bench/) makes one with tenantPrefix, so that the
 * prefix is spelled in this module alone.
 */
export interface TenantPrefix {
  tenantId: string;
  /** `<tid>-` */
  prefix: string;
}

/** Scope of kinds and resources, in the tenant's view (unprefixed groups). */
export interface KindScope {
  /** Whether objects of this kind are namespaced; undefined when the kind is unknown. */
  kindIsNamespaced(group: string, kind: string): boolean | undefined;
  /** Whether this resource (plural) is namespaced; undefined when unknown. */
  resourceIsNamespaced(group: string, resource: string): boolean | undefined;
  /** The kind a resource serves (`pods` → `Pod`); undefined when unknown. */
  kindOf(group: string, resource: string): string | undefined;
}

/**
 * API groups served by Kubernetes itself, kept as they are in both directions. Every other group
 * is a CRD group and, for a tenant, its own (prefixed upstream).
 */
export const BUILTIN_GROUPS = BUILTIN_API_GROUPS;

/** Groups only the admin sees; hidden from tenants' discovery and refused (403). */
export const ADMIN_GROUPS: ReadonlySet<string> = new Set([
  'tenant.kubezoo.io',
  'cluster.karmada.io',
  'search.karmada.io',
]);

/** Cluster-scoped kinds every tenant shares read-only, with names unchanged. */
export const SHARED_KINDS: ReadonlySet<string> = new Set([
  '/Node',
  '/ComponentStatus',
  'apiregistration.k8s.io/APIService',
  'flowcontrol.apiserver.k8s.io/FlowSchema',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
]);

/** Resources (plural) of the shared kinds, for request paths. */
export const SHARED_RESOURCES: ReadonlySet<string> = new Set([
  '/nodes',
  '/componentstatuses',
  'apiregistration.k8s.io/apiservices',
  'flowcontrol.apiserver.k8s.io/flowschemas',
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations',
]);

export function isSharedKind(group: string, kind: string): boolean {
  return SHARED_KINDS.has(`${group}/${kind}`);
}

export function isSharedResource(group: string, resource: string): boolean {
  return SHARED_RESOURCES.has(`${group}/${resource}`);
}

export function isTenantGroup(group: string): boolean {
  return !BUILTIN_GROUPS.has(group) && !ADMIN_GROUPS.has(group);
}

export function tenantPrefix(tenantId: string): TenantPrefix {
  return { tenantId, prefix: `${tenantId}-` };
}

export function tenantContext(tenantId: string, kinds: KindScope): TenantContext {
  return { ...tenantPrefix(tenantId), kinds };
}

/** Name up: `foo` → `<tid>-foo`. */
export function addPrefix(ctx: TenantPrefix, name: string): string {
  return ctx.prefix + name;
}

/** Name down: `<tid>-foo` → `foo`; null when the name is not this tenant's. */
export function stripPrefix(ctx: TenantPrefix, name: string): string | null {
  return withoutPrefix(ctx.prefix, name);
}

/** The namespace's tenant id by its prefix (`<tid>-…`; a tenant id has no `-`); undefined for any other namespace. */
export function namespaceTenantId(namespace: string): string | undefined {
  const dash = namespace.indexOf('-');
  return dash > 0 && dash < namespace.length - 1 ? namespace.slice(0, dash) : undefined;
}

/** Whether an upstream name is the tenant's own: under its prefix, with something after it. */
export function hasPrefix(ctx: TenantPrefix, name: string): boolean {
  return stripPrefix(ctx, name) !== null;
}

/** `name` after `prefix`; null unless it starts with it and goes on (the rule of `<tid>:` role names too). */
export function withoutPrefix(prefix: string, name: string): string | null {
  return name.startsWith(prefix) && name.length > prefix.length ? name.slice(prefix.length) : null;
}

/** Group up: tenant CRD groups get the prefix, built-in groups stay. */
export function groupUp(ctx: TenantPrefix, group: string): string {
  return isTenantGroup(group) ? addPrefix(ctx, group) : group;
}

/** Group down: the tenant's CRD groups lose the prefix; null for any other custom group. */
export function groupDown(ctx: TenantPrefix, group: string): string | null {
  if (BUILTIN_GROUPS.has(group)) return group;
  const stripped = stripPrefix(ctx, group);
  return stripped !== null && isTenantGroup(stripped) ? stripped : null;
}

/** `group/version` (or `v1`) up. */
export function apiVersionUp(ctx: TenantContext, apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : `${groupUp(ctx, apiVersion.slice(0, slash))}${apiVersion.slice(slash)}`;
}

/** `group/version` down; null when the group is not this tenant's to see. */
export function apiVersionDown(ctx: TenantContext, apiVersion: string): string | null {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return apiVersion;
  const group = groupDown(ctx, apiVersion.slice(0, slash));
  return group === null ? null : `${group}${apiVersion.slice(slash)}`;
}

/**
 * A request the conversion refuses, shaped as the Kubernetes Status the gateway answers with
 * (translate/ does no I/O and knows nothing of HTTP; the gateway sends it).
 */
export class TranslationError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: {
      name?: string;
      group?: string;
      kind?: string;
      causes?: { reason: string; field: string; message: string }[];
    },
  ) {
    super(message);
  }
}

/** A path the gateway does not serve, answered as kube answers one: with empty `details` (apiserver/status.ts, pathNotFound). */
export function pathNotFoundError(): TranslationError {
  return new TranslationError(404, 'NotFound', 'the server could not find the requested resource', {});
}
