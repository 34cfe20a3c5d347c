import type { Json } from '../apiserver/json.js';
import { ADMIN_GROUPS, apiVersionDown, groupDown, groupUp, type TenantContext } from './context.js';

/**
 * Discovery documents down (upstream → tenant) and discovery paths up. A tenant sees the
 * built-in groups as they are and its own CRD groups without the prefix; admin groups and every
 * other custom group (other tenants', the admin's CRDs) are left out.
 */

/** Upstream `/apis` or `/api` body (legacy APIGroupList / APIVersions, or aggregated APIGroupDiscoveryList v2 or v2beta1) → the tenant's view. */
export function discoveryRootDown(ctx: TenantContext, body: any): any {
  switch (body?.kind) {
    case 'APIVersions':
      return withoutServerAddresses(body);
    case 'APIGroupList':
      return { ...body, groups: visible(body.groups, (group) => apiGroupDown(ctx, group)) };
    case 'APIGroupDiscoveryList':
      return { ...body, items: visible(body.items, (item) => groupDiscoveryDown(ctx, item)) };
    default:
      // Passing an unknown document through could show the tenant groups it must not see.
      throw new Error(`unexpected discovery document kind ${JSON.stringify(body?.kind)}`);
  }
}

/** Upstream `/apis/<group>` (APIGroup) → tenant's, or null when the group is not the tenant's to see. */
export function apiGroupDown(ctx: TenantContext, body: any): any {
  const name = groupDown(ctx, String(body.name ?? ''));
  if (name === null) return null;
  const versionDown = (v: Json) => ({ ...v, groupVersion: `${name}/${v.version}` });
  return {
    ...withoutServerAddresses(body),
    name,
    versions: (body.versions ?? []).map(versionDown),
    ...(body.preferredVersion ? { preferredVersion: versionDown(body.preferredVersion) } : {}),
  };
}

/** Upstream `/api/v1` or `/apis/<g>/<v>` (APIResourceList) → tenant's, or null when hidden. */
export function apiResourceListDown(ctx: TenantContext, body: any): any {
  const groupVersion = apiVersionDown(ctx, String(body.groupVersion ?? ''));
  if (groupVersion === null) return null;
  return {
    ...body,
    groupVersion,
    // A subresource names its group only when it differs from the list's (scale → autoscaling).
    resources: (body.resources ?? []).map((r: Json) =>
      typeof r.group === 'string' ? { ...r, group: renamedGroup(ctx, r.group) } : r,
    ),
  };
}

/**
 * The upstream path for a tenant discovery path (`/apis/stable.example.com/v1` →
 * `/apis/<p>stable.example.com/v1`), or null when the tenant may not see that group (an admin
 * group) or the path (without its query) is not a discovery path. Any other group the tenant
 * names is its own and gets the prefix, so another tenant's group cannot be reached.
 */
export function discoveryPathUp(ctx: TenantContext, path: string): string | null {
  const segments = path.split('/').filter(Boolean);
  if (segments[0] === 'api' && segments.length <= 2) return `/${segments.join('/')}`;
  if (segments[0] !== 'apis' || segments.length > 3) return null;
  const [, group, version] = segments;
  if (group === undefined) return '/apis';
  if (ADMIN_GROUPS.has(group)) return null;
  return ['', 'apis', groupUp(ctx, group), ...(version === undefined ? [] : [version])].join('/');
}

/** One APIGroupDiscovery (an aggregated item; the core group's has no name), or null when hidden. */
function groupDiscoveryDown(ctx: TenantContext, item: Json): Json | null {
  const upstreamName: string = item.metadata?.name ?? '';
  const name = groupDown(ctx, upstreamName);
  if (name === null) return null;
  return {
    ...item,
    metadata: upstreamName ? { ...item.metadata, name } : item.metadata,
    versions: (item.versions ?? []).map((v: Json) => ({
      ...v,
      resources: (v.resources ?? []).map((r: Json) => ({
        ...r,
        responseKind: kindDown(ctx, r.responseKind),
        ...(Array.isArray(r.subresources)
          ? { subresources: r.subresources.map((s: Json) => ({ ...s, responseKind: kindDown(ctx, s.responseKind) })) }
          : {}),
      })),
    })),
  };
}

function kindDown(ctx: TenantContext, kind: Json | undefined): Json | undefined {
  return kind && typeof kind.group === 'string' ? { ...kind, group: renamedGroup(ctx, kind.group) } : kind;
}

/**
 * A group named inside a visible group's document: the tenant's own loses the prefix, any other
 * stays (a response kind of a visible resource is its own group or a built-in one).
 */
function renamedGroup(ctx: TenantContext, group: string): string {
  return groupDown(ctx, group) ?? group;
}

/** The upstream server's address must not reach tenants; clients do not need it. */
function withoutServerAddresses(body: Json): Json {
  const out = { ...body };
  delete out.serverAddressByClientCIDRs;
  return out;
}

function visible(entries: Json[] | undefined, down: (entry: Json) => Json | null): Json[] {
  return (entries ?? []).flatMap((entry) => {
    const converted = down(entry);
    return converted === null ? [] : [converted];
  });
}
