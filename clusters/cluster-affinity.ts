/**
 * Karmada's ClusterAffinity (`policy.karmada.io/v1alpha1`), as ResourceRegistries and placements
 * select clusters with it, and `clusterMatches`, Karmada's `ClusterMatches` (pkg/util/selector.go):
 * which clusters an affinity selects. Pure: no I/O.
 */
import {
  labelSelectorFromObject,
  parseLabelSelector,
  type LabelSelector,
} from '../apiserver/selectors/label-selector.js';
import { isQualifiedName } from '../apiserver/validation/names.js';

/** The cluster fields a field selector may name (Karmada's ProviderField, RegionField, ZoneField). */
export const PROVIDER_FIELD = 'provider';
export const REGION_FIELD = 'region';
export const ZONE_FIELD = 'zone';

/** corev1.NodeSelectorRequirement, which Karmada's field selector reuses. */
export interface FieldSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** metav1.LabelSelector. */
export interface ClusterLabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface ClusterAffinity {
  labelSelector?: ClusterLabelSelector | null;
  fieldSelector?: { matchExpressions?: FieldSelectorRequirement[] } | null;
  clusterNames?: string[];
  /** Karmada's `ExcludeClusters`, spelled `exclude` on the wire. */
  exclude?: string[];
}

/** What matching reads of a `cluster.karmada.io/v1alpha1` Cluster. */
export interface AffinityCluster {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: {
    provider?: string;
    region?: string;
    /** Deprecated in Karmada in favour of `zones`, and not read by matching. */
    zone?: string;
    zones?: string[];
  };
}

/**
 * Whether the affinity selects the cluster: not excluded (exclusion beats everything), then every
 * part that is set must match — labelSelector (`{}` matches all, an invalid one nothing),
 * fieldSelector, clusterNames.
 */
export function clusterMatches(cluster: AffinityCluster, affinity: ClusterAffinity): boolean {
  const name = cluster.metadata.name;
  if (affinity.exclude?.includes(name)) return false;
  if (affinity.labelSelector) {
    const selector = selectorOrNull(() => labelSelectorFromObject(affinity.labelSelector));
    if (!selector?.matches(cluster.metadata.labels)) return false;
  }
  if (affinity.fieldSelector && !fieldSelectorMatches(cluster, affinity.fieldSelector.matchExpressions ?? []))
    return false;
  const names = affinity.clusterNames ?? [];
  return names.length === 0 || names.includes(name);
}

/**
 * `zone` requirements are checked against the cluster's zones; the others form a label selector
 * over `{provider, region}`, each present only when set (so NotIn on an unset field matches).
 */
function fieldSelectorMatches(cluster: AffinityCluster, requirements: FieldSelectorRequirement[]): boolean {
  const zones = cluster.spec?.zones ?? [];
  if (!requirements.filter((r) => r.key === ZONE_FIELD).every((r) => zonesMatch(r, zones))) return false;
  const others = requirements.filter((r) => r.key !== ZONE_FIELD);
  if (others.length === 0) return true;
  const selectors = selectorsOrNull(others);
  const fields = clusterFields(cluster);
  return selectors?.every((selector) => selector.matches(fields)) ?? false;
}

/**
 * The requirements as label selectors, as Karmada converts node selector requirements
 * (NodeSelectorRequirementsAsSelector), or null when one is invalid. Gt and Lt have no
 * metav1.LabelSelector operator, so they go through the selector syntax, once the key is a
 * qualified name and the value an integer (what kube demands of them), so nothing else can be
 * spelled into the text.
 */
function selectorsOrNull(requirements: FieldSelectorRequirement[]): LabelSelector[] | null {
  const setBased = requirements.filter((r) => SET_OPERATORS.includes(r.operator));
  const compared = requirements.filter((r) => !SET_OPERATORS.includes(r.operator));
  if (compared.some((r) => !COMPARISON_OPERATORS.has(r.operator))) return null;
  const selectors: (LabelSelector | null)[] = [
    selectorOrNull(() => labelSelectorFromObject({ matchExpressions: setBased })),
    ...compared.map((r) =>
      r.values?.length === 1 && /^[+-]?[0-9]+$/.test(r.values[0]) && isQualifiedName(r.key).length === 0
        ? selectorOrNull(() => parseLabelSelector(`${r.key}${COMPARISON_OPERATORS.get(r.operator)}${r.values![0]}`))
        : null,
    ),
  ];
  return selectors.every((s) => s !== null) ? selectors : null;
}

const SET_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];
const COMPARISON_OPERATORS = new Map([
  ['Gt', '>'],
  ['Lt', '<'],
]);

/** The label set Karmada matches provider/region requirements against (extractClusterFields). */
export function clusterFields(cluster: AffinityCluster): Record<string, string> {
  const fields: Record<string, string> = {};
  if (cluster.spec?.provider) fields[PROVIDER_FIELD] = cluster.spec.provider;
  if (cluster.spec?.region) fields[REGION_FIELD] = cluster.spec.region;
  return fields;
}

/**
 * Karmada's matchZones: In needs a zone in common (no zones: no match), NotIn none in common (no
 * zones: a match), Exists at least one zone, DoesNotExist none; any other operator never matches.
 */
export function zonesMatch(requirement: FieldSelectorRequirement, zones: readonly string[]): boolean {
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return zones.some((zone) => values.includes(zone));
    case 'NotIn':
      return !zones.some((zone) => values.includes(zone));
    case 'Exists':
      return zones.length > 0;
    case 'DoesNotExist':
      return zones.length === 0;
    default:
      return false;
  }
}

/** An invalid selector selects nothing, as Karmada treats a conversion error. */
function selectorOrNull(build: () => LabelSelector): LabelSelector | null {
  try {
    return build();
  } catch {
    return null;
  }
}
