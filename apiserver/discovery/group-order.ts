/**
 * The order in which kube-apiserver lists API groups and, within a group, versions (the first
 * version is the preferred one). kube-aggregator orders APIServices by group priority, highest
 * first; built-in groups have fixed priorities, custom resources' groups 1000 and their versions
 * 100, so those fall back to names and kube-aware version order (v2 > v1 > v1beta2 > v1alpha1).
 */
import type { ResourceInfo } from '../resources/resource-info.js';

export interface OrderedGroup {
  group: string;
  /** Highest priority first; versions[0] is the preferred version. */
  versions: string[];
}

interface Priority {
  group: number;
  version: number;
}

/** kube-apiserver's APIService priorities for the group-versions it serves. */
const BUILTIN_PRIORITIES: Readonly<Record<string, Priority>> = {
  '/v1': { group: 18000, version: 1 },
  'apps/v1': { group: 17800, version: 15 },
  'events.k8s.io/v1': { group: 17750, version: 15 },
  'authentication.k8s.io/v1': { group: 17700, version: 15 },
  'authorization.k8s.io/v1': { group: 17600, version: 15 },
  'autoscaling/v1': { group: 17500, version: 15 },
  'autoscaling/v2': { group: 17500, version: 30 },
  'batch/v1': { group: 17400, version: 15 },
  'certificates.k8s.io/v1': { group: 17300, version: 15 },
  'networking.k8s.io/v1': { group: 17200, version: 15 },
  'policy/v1': { group: 17100, version: 15 },
  'rbac.authorization.k8s.io/v1': { group: 17000, version: 15 },
  'storage.k8s.io/v1': { group: 16800, version: 15 },
  'apiextensions.k8s.io/v1': { group: 16700, version: 15 },
  'admissionregistration.k8s.io/v1': { group: 16700, version: 15 },
  'scheduling.k8s.io/v1': { group: 16600, version: 15 },
  'coordination.k8s.io/v1': { group: 16500, version: 15 },
  'node.k8s.io/v1': { group: 16300, version: 15 },
  'discovery.k8s.io/v1': { group: 16200, version: 15 },
  'flowcontrol.apiserver.k8s.io/v1': { group: 16100, version: 21 },
};

/** What kube's CRD registration controller gives every custom resource group-version. */
const CUSTOM_PRIORITY: Priority = { group: 1000, version: 100 };

function priorityOf(group: string, version: string): Priority {
  return BUILTIN_PRIORITIES[`${group}/${version}`] ?? CUSTOM_PRIORITY;
}

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const STABILITY = { alpha: 0, beta: 1, ga: 2 } as const;

/** apimachinery's CompareKubeAwareVersionStrings: positive when `a` sorts before (is newer than) `b`. */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const pa = KUBE_VERSION.exec(a);
  const pb = KUBE_VERSION.exec(b);
  if (!pa && !pb) return a < b ? 1 : -1;
  if (!pa) return -1;
  if (!pb) return 1;
  const stabilityA = STABILITY[(pa[2] as 'alpha' | 'beta' | undefined) ?? 'ga'];
  const stabilityB = STABILITY[(pb[2] as 'alpha' | 'beta' | undefined) ?? 'ga'];
  if (stabilityA !== stabilityB) return stabilityA - stabilityB;
  if (pa[1] !== pb[1]) return Number(pa[1]) - Number(pb[1]);
  return Number(pa[3] ?? 0) - Number(pb[3] ?? 0);
}

function distinctGroupVersions(resources: readonly ResourceInfo[]): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const r of resources) seen.set(`${r.group}/${r.version}`, { group: r.group, version: r.version });
  return [...seen.values()];
}

function byVersionPriority(group: string) {
  return (a: string, b: string): number => {
    const pa = priorityOf(group, a).version;
    const pb = priorityOf(group, b).version;
    return pa !== pb ? pb - pa : compareKubeAwareVersions(b, a);
  };
}

function orderGroups(
  resources: readonly ResourceInfo[],
  tieBreakKey: (gv: { group: string; version: string }) => string,
): OrderedGroup[] {
  const gvs = distinctGroupVersions(resources).sort((a, b) => {
    const pa = priorityOf(a.group, a.version).group;
    const pb = priorityOf(b.group, b.version).group;
    if (pa !== pb) return pb - pa;
    const ka = tieBreakKey(a);
    const kb = tieBreakKey(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  const groups = new Map<string, string[]>();
  for (const gv of gvs) groups.set(gv.group, [...(groups.get(gv.group) ?? []), gv.version]);
  return [...groups].map(([group, versions]) => ({ group, versions: versions.sort(byVersionPriority(group)) }));
}

/**
 * The legacy `/apis` order: kube-aggregator breaks group-priority ties by APIService name,
 * which is `<version>.<group>`.
 */
export function legacyGroupOrder(resources: readonly ResourceInfo[]): OrderedGroup[] {
  return orderGroups(resources, (gv) => `${gv.version}.${gv.group}`);
}

/** The aggregated-discovery order: group-priority ties are broken by group name. */
export function aggregatedGroupOrder(resources: readonly ResourceInfo[]): OrderedGroup[] {
  return orderGroups(resources, (gv) => gv.group);
}
