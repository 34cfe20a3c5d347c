/**
 * Karmada's ResourceRegistry (`search.karmada.io/v1alpha1`, cluster-scoped): which resources of
 * which clusters the multi-cluster cache keeps. Its shape, validation and printing are Karmada's
 * (pkg/apis/search/v1alpha1, pkg/apis/search/validation, pkg/registry/search):
 *
 *   spec:   targetCluster (ClusterAffinity), resourceSelectors [{apiVersion, kind, namespace}],
 *           backendStore {openSearch {addresses, secretRef {namespace, name}}}
 *   status: conditions — Karmada declares them and sets none; neither does Paddock.
 */
import { goQuote } from '../apiserver/go-quote.js';
import { goUrlParse } from '../apiserver/go-url-parse.js';
import { isObject } from '../apiserver/json.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';
import type { Strategy } from '../apiserver/registry/strategy.js';
import type { ResourceInfo } from '../apiserver/resources/resource-info.js';
import { genericPrinter } from '../apiserver/table/printers/generic.js';
import type { Printer } from '../apiserver/table/printers/printer.js';
import { invalid, type Cause } from '../apiserver/validation/cause.js';
import { isDNS1123Label } from '../apiserver/validation/names.js';
import { PROVIDER_FIELD, REGION_FIELD, ZONE_FIELD, type ClusterAffinity } from '../clusters/cluster-affinity.js';

export const SEARCH_GROUP = 'search.karmada.io';
export const SEARCH_VERSION = 'v1alpha1';

export const RESOURCE_REGISTRY_RESOURCE: ResourceInfo = {
  group: SEARCH_GROUP,
  version: SEARCH_VERSION,
  resource: 'resourceregistries',
  kind: 'ResourceRegistry',
  listKind: 'ResourceRegistryList',
  singular: 'resourceregistry',
  namespaced: false,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  shortNames: [],
  categories: [],
  subresources: [{ name: 'status', kind: 'ResourceRegistry', verbs: ['get', 'patch', 'update'] }],
  // Not compiled into kubectl: client-side apply sends merge patches, as for custom resources.
  builtin: false,
};

/** Karmada serves it with the default table convertor: NAME, CREATED AT. */
export const RESOURCE_REGISTRY_PRINTER: Printer = genericPrinter;

export interface ResourceSelector {
  apiVersion: string;
  kind: string;
  /** '' or absent: all namespaces. */
  namespace?: string;
}

export interface ResourceRegistrySpec {
  targetCluster: ClusterAffinity;
  resourceSelectors: ResourceSelector[];
  backendStore?: { openSearch?: { addresses: string[]; secretRef: { namespace: string; name: string } } };
}

export interface ResourceRegistry {
  metadata: { name: string };
  spec: ResourceRegistrySpec;
}

const FIELD_SELECTOR_KEYS = [PROVIDER_FIELD, REGION_FIELD, ZONE_FIELD];
const FIELD_SELECTOR_OPERATORS = ['In', 'NotIn'];

/**
 * Karmada's ValidateResourceRegistrySpec: the target's field selector, each selector's apiVersion
 * and namespace, the OpenSearch addresses. labelSelector, clusterNames, exclude and kind are not
 * checked there; they are checked here only for being of the right JSON type, which Karmada's
 * decoding into Go structs enforces.
 */
export function validateResourceRegistry(registry: ApiObject): Cause[] {
  const spec: unknown = registry.spec ?? {};
  if (!isObject(spec)) return [invalid('spec', spec, 'must be an object')];
  return [
    ...validateTargetCluster(spec.targetCluster),
    ...validateResourceSelectors(spec.resourceSelectors),
    ...validateBackendStore(spec.backendStore),
  ];
}

function validateTargetCluster(target: unknown): Cause[] {
  const path = 'spec.targetCluster';
  if (target === undefined || target === null) return [];
  if (!isObject(target)) return [invalid(path, target, 'must be an object')];
  const causes = [
    ...stringListCauses(`${path}.clusterNames`, target.clusterNames),
    ...stringListCauses(`${path}.exclude`, target.exclude),
  ];
  if (target.labelSelector !== undefined && target.labelSelector !== null && !isObject(target.labelSelector))
    causes.push(invalid(`${path}.labelSelector`, target.labelSelector, 'must be an object'));
  const fieldSelector = target.fieldSelector;
  if (fieldSelector === undefined || fieldSelector === null) return causes;
  const expressions = isObject(fieldSelector) ? (fieldSelector.matchExpressions ?? []) : undefined;
  if (!Array.isArray(expressions) || !expressions.every(isRequirement))
    return [...causes, invalid(`${path}.fieldSelector`, fieldSelector, 'must be an object with matchExpressions')];
  // ValidatePolicyFieldSelector stops at the first bad expression, key before operator.
  for (const expression of expressions) {
    const key = expression.key ?? '';
    const operator = expression.operator ?? '';
    const problem = !FIELD_SELECTOR_KEYS.includes(key)
      ? `unsupported key ${goQuote(key)}, must be provider, region, or zone`
      : !FIELD_SELECTOR_OPERATORS.includes(operator)
        ? `unsupported operator ${goQuote(operator)}, must be In or NotIn`
        : undefined;
    if (problem) return [...causes, invalid(`${path}.fieldSelector`, goFieldSelectorJson(expressions), problem)];
  }
  return causes;
}

function isRequirement(
  value: unknown,
): value is { key?: string | null; operator?: string | null; values?: string[] | null } {
  return (
    isObject(value) &&
    typeof (value.key ?? '') === 'string' &&
    typeof (value.operator ?? '') === 'string' &&
    (value.values === undefined || value.values === null || isStringList(value.values))
  );
}

/** The field selector as Go's encoding/json writes it in the error: empty fields omitted, keys in struct order. */
function goFieldSelectorJson(
  expressions: { key?: string | null; operator?: string | null; values?: string[] | null }[],
): unknown {
  if (expressions.length === 0) return {};
  return {
    matchExpressions: expressions.map(({ key, operator, values }) => ({
      key: key ?? '',
      operator: operator ?? '',
      ...(values?.length ? { values } : {}),
    })),
  };
}

function validateResourceSelectors(selectors: unknown): Cause[] {
  const path = 'spec.resourceSelectors';
  if (selectors === undefined || selectors === null) return [];
  if (!Array.isArray(selectors)) return [invalid(path, selectors, 'must be a list of resource selectors')];
  return selectors.flatMap((selector: unknown, i): Cause[] => {
    const at = `${path}[${i}]`;
    if (!isObject(selector)) return [invalid(at, selector, 'must be an object')];
    const typeCauses = (['apiVersion', 'kind', 'namespace'] as const)
      .filter((field) => selector[field] !== undefined && typeof selector[field] !== 'string')
      .map((field) => invalid(`${at}.${field}`, selector[field], 'must be a string'));
    if (typeCauses.length) return typeCauses;
    const { apiVersion, namespace } = selector as Partial<ResourceSelector>;
    const causes: Cause[] = [];
    if (apiVersion && apiVersion.split('/').length > 2)
      causes.push(invalid(`${at}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    if (namespace)
      causes.push(...isDNS1123Label(namespace).map((problem) => invalid(`${at}.namespace`, namespace, problem)));
    return causes;
  });
}

function validateBackendStore(backendStore: unknown): Cause[] {
  const path = 'spec.backendStore';
  if (backendStore === undefined || backendStore === null) return [];
  if (!isObject(backendStore)) return [invalid(path, backendStore, 'must be an object')];
  const openSearch = backendStore.openSearch;
  if (openSearch === undefined || openSearch === null) return [];
  if (!isObject(openSearch)) return [invalid(`${path}.openSearch`, openSearch, 'must be an object')];
  const addresses = openSearch.addresses ?? [];
  if (!isStringList(addresses)) return stringListCauses(`${path}.openSearch.addresses`, addresses);
  return addresses.flatMap((address, i) => {
    const at = `${path}.openSearch.addresses[${i}]`;
    const url = goUrlParse(address);
    if ('error' in url) return [invalid(at, address, url.error)];
    return url.scheme === '' || url.host === '' || (url.scheme !== 'http' && url.scheme !== 'https')
      ? [invalid(at, address, 'must be a valid http or https URL with non-empty scheme and host')]
      : [];
  });
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function stringListCauses(path: string, value: unknown): Cause[] {
  return value === undefined || value === null || isStringList(value)
    ? []
    : [invalid(path, value, 'must be a list of strings')];
}

/**
 * Karmada's strategy: names are DNS subdomains (the default rule), nothing is defaulted, and
 * status is written through the status subresource.
 */
export const resourceRegistryStrategy: Strategy = {
  validate: (registry) => validateResourceRegistry(registry),
};
