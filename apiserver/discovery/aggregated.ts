/**
 * Aggregated discovery (apidiscovery.k8s.io APIGroupDiscoveryList): every resource of `/api` or
 * `/apis` in one response. client-go decides how to parse a discovery body only from the
 * response Content-Type, so the server must send the exact media type with its parameters.
 */
import type { ResourceInfo, SubresourceInfo } from '../resources/resource-info.js';
import { aggregatedGroupOrder } from './group-order.js';

export type AggregatedDiscoveryVersion = 'v2' | 'v2beta1';

const DISCOVERY_GROUP = 'apidiscovery.k8s.io';
const DISCOVERY_KIND = 'APIGroupDiscoveryList';

export const AGGREGATED_DISCOVERY_CONTENT_TYPE = aggregatedDiscoveryContentType('v2');

export function aggregatedDiscoveryContentType(version: AggregatedDiscoveryVersion): string {
  return `application/json;g=${DISCOVERY_GROUP};v=${version};as=${DISCOVERY_KIND}`;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface APISubresourceDiscovery {
  subresource: string;
  responseKind: GroupVersionKind;
  verbs: string[];
}

export interface APIResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKind;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

export interface APIVersionDiscovery {
  version: string;
  resources: APIResourceDiscovery[];
  freshness: 'Current';
}

export interface APIGroupDiscovery {
  metadata: { name?: string; creationTimestamp: null };
  versions: APIVersionDiscovery[];
}

export interface APIGroupDiscoveryList {
  kind: typeof DISCOVERY_KIND;
  apiVersion: string;
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

/**
 * The body for `/api` (the core group only) or `/apis` (every named group). Built-in resources
 * leave responseKind's group and version empty when they equal the containing group-version, as
 * kube-apiserver does; custom resources spell them out, as the apiextensions server does.
 */
export function aggregatedDiscovery(
  resources: readonly ResourceInfo[],
  which: 'api' | 'apis',
  version: AggregatedDiscoveryVersion = 'v2',
): APIGroupDiscoveryList {
  const inScope = resources.filter((r) => (which === 'api') === (r.group === ''));
  const items = aggregatedGroupOrder(inScope).map(({ group, versions }) => ({
    metadata: group ? { name: group, creationTimestamp: null } : { creationTimestamp: null },
    versions: versions.map((v) => ({
      version: v,
      resources: inScope
        .filter((r) => r.group === group && r.version === v)
        .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0))
        .map(resourceDiscovery),
      freshness: 'Current' as const,
    })),
  }));
  return { kind: DISCOVERY_KIND, apiVersion: `${DISCOVERY_GROUP}/${version}`, metadata: {}, items };
}

function resourceDiscovery(r: ResourceInfo): APIResourceDiscovery {
  return {
    resource: r.resource,
    responseKind: { group: r.builtin ? '' : r.group, version: r.builtin ? '' : r.version, kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: [...r.verbs],
    ...(r.shortNames.length ? { shortNames: [...r.shortNames] } : {}),
    ...(r.categories.length ? { categories: [...r.categories] } : {}),
    ...(r.subresources.length ? { subresources: r.subresources.map((sub) => subresourceDiscovery(r, sub)) } : {}),
  };
}

function subresourceDiscovery(r: ResourceInfo, sub: SubresourceInfo): APISubresourceDiscovery {
  return {
    subresource: sub.name,
    responseKind: {
      group: sub.group ?? (r.builtin ? '' : r.group),
      version: sub.version ?? (r.builtin ? '' : r.version),
      kind: sub.kind,
    },
    verbs: [...sub.verbs],
  };
}

/** Media types kube-apiserver can answer discovery in; parameters decide whether it is aggregated. */
const DISCOVERY_MEDIA_TYPES = new Set([
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
  'application/*',
  '*/*',
]);

interface AcceptClause {
  type: string;
  q: number;
  params: Map<string, string>;
}

function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const part of header.split(',')) {
    const [mediaType, ...rawParams] = part.split(';').map((s) => s.trim());
    if (!mediaType) continue;
    const params = new Map<string, string>();
    let q = 1;
    for (const raw of rawParams) {
      const eq = raw.indexOf('=');
      if (eq < 0) continue;
      const key = raw.slice(0, eq).trim();
      const value = raw
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      if (key === 'q') q = Number(value);
      else params.set(key, value);
    }
    if (q > 0) clauses.push({ type: mediaType.toLowerCase(), q, params });
  }
  // Like kube's goautoneg: higher q first, concrete types before wildcards, otherwise as sent.
  const wildness = (c: AcceptClause) => (c.type === '*/*' ? 2 : c.type.endsWith('/*') ? 1 : 0);
  return clauses
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.q - a.c.q || wildness(a.c) - wildness(b.c) || a.i - b.i)
    .map(({ c }) => c);
}

/**
 * Which aggregated discovery version the Accept header asks for, or null for the legacy
 * documents. Like kube's content negotiation, the first acceptable clause decides: a clause
 * asking for some other conversion (say `as=Table`) is skipped, a plain one means legacy.
 */
export function acceptsAggregatedDiscovery(acceptHeader: string): AggregatedDiscoveryVersion | null {
  for (const clause of parseAccept(acceptHeader)) {
    if (!DISCOVERY_MEDIA_TYPES.has(clause.type)) continue;
    const { params } = clause;
    if (!params.has('as') && !params.has('g') && !params.has('v')) return null;
    const version = params.get('v');
    if (
      params.get('g') === DISCOVERY_GROUP &&
      params.get('as') === DISCOVERY_KIND &&
      (version === 'v2' || version === 'v2beta1')
    )
      return version;
  }
  return null;
}
