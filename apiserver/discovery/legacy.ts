/**
 * The legacy (unaggregated) discovery documents: `/api` (APIVersions), `/apis` (APIGroupList)
 * and the per-group-version APIResourceLists, shaped field for field as kube-apiserver 1.32
 * serves them. client-go falls back to these when a response is not aggregated discovery, and
 * `kubectl auth can-i` reads `/api/v1` regardless.
 */
import type { ResourceInfo } from '../resources/resource-info.js';
import { legacyGroupOrder } from './group-order.js';

export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: { clientCIDR: string; serverAddress: string }[];
}

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIGroup {
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

export interface APIResourceList {
  kind: 'APIResourceList';
  /** kube-apiserver omits it for `/api/v1` and sets it for `/apis/<group>/<version>`. */
  apiVersion?: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

/** `/api`: the core group's versions and the address clients should use. */
export function apiVersions(serverAddress: string): APIVersions {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/** `/apis`: every named group (the core group is never listed here), preferred version first. */
export function apiGroupList(resources: readonly ResourceInfo[]): APIGroupList {
  const groups = legacyGroupOrder(resources.filter((r) => r.group !== '')).map(({ group, versions }) => {
    const forDiscovery = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
    return { name: group, versions: forDiscovery, preferredVersion: forDiscovery[0] };
  });
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/**
 * `/api/v1` or `/apis/<group>/<version>`: the group-version's resources sorted by name, each
 * followed by its subresources (`pods/log`), which carry no singular name and name their own
 * group-version only when it differs.
 */
export function apiResourceList(groupVersion: string, resources: readonly ResourceInfo[]): APIResourceList {
  const [group, version] = groupVersion.includes('/') ? groupVersion.split('/') : ['', groupVersion];
  const entries: APIResource[] = [];
  const matching = resources
    .filter((r) => r.group === group && r.version === version)
    .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  for (const r of matching) {
    entries.push({
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: [...r.verbs],
      ...(r.shortNames.length ? { shortNames: [...r.shortNames] } : {}),
      ...(r.categories.length ? { categories: [...r.categories] } : {}),
    });
    for (const sub of r.subresources) {
      entries.push({
        name: `${r.resource}/${sub.name}`,
        singularName: '',
        namespaced: r.namespaced,
        ...(sub.group !== undefined ? { group: sub.group } : {}),
        ...(sub.version !== undefined ? { version: sub.version } : {}),
        kind: sub.kind,
        verbs: [...sub.verbs],
      });
    }
  }
  return { kind: 'APIResourceList', ...(group ? { apiVersion: 'v1' as const } : {}), groupVersion, resources: entries };
}
