/**
 * CustomResourceDefinitions (apiextensions.k8s.io/v1): the resources a CRD serves, and kube's
 * validation of the CRD itself. Both see spec.names with kube's defaults applied (singular from
 * the kind, listKind as `<kind>List`), because kube defaults them before validating or serving.
 */
import { isObject } from '../json.js';
import { invalid, notSupported, required, type Cause } from '../validation/cause.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../validation/names.js';
import type { ResourceInfo, SubresourceInfo } from './resource-info.js';

/** The apiextensions server's verb list, in its (unsorted) order. */
const CUSTOM_RESOURCE_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
const SCOPES = ['Cluster', 'Namespaced'];

interface Names {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
}

type Json = Record<string, unknown>;

function record(value: unknown): Json {
  return isObject(value) ? value : {};
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function versionsOf(spec: Json): Json[] {
  return Array.isArray(spec.versions) ? spec.versions.map(record) : [];
}

function defaultedNames(spec: Json): Names {
  const names = record(spec.names);
  const kind = text(names.kind);
  return {
    plural: text(names.plural),
    singular: text(names.singular) || kind.toLowerCase(),
    kind,
    listKind: text(names.listKind) || (kind ? `${kind}List` : ''),
    shortNames: strings(names.shortNames),
    categories: strings(names.categories),
  };
}

/** One ResourceInfo per served version, with the status/scale subresources that version enables. */
export function resourceInfoFromCRD(crd: unknown): ResourceInfo[] {
  const spec = record(record(crd).spec);
  const names = defaultedNames(spec);
  const group = text(spec.group);
  return versionsOf(spec)
    .filter((v) => v.served === true)
    .map((v) => {
      const enabled = record(v.subresources);
      const subresources: SubresourceInfo[] = [];
      // status before scale: the apiextensions server lists them in that order.
      if (enabled.status != null)
        subresources.push({ name: 'status', kind: names.kind, verbs: ['get', 'patch', 'update'] });
      if (enabled.scale != null)
        subresources.push({
          name: 'scale',
          kind: 'Scale',
          group: 'autoscaling',
          version: 'v1',
          verbs: ['get', 'patch', 'update'],
        });
      return {
        group,
        version: text(v.name),
        resource: names.plural,
        kind: names.kind,
        listKind: names.listKind,
        singular: names.singular,
        namespaced: spec.scope === 'Namespaced',
        verbs: [...CUSTOM_RESOURCE_VERBS],
        shortNames: [...names.shortNames],
        categories: [...names.categories],
        subresources,
        builtin: false,
        ...(record(v.schema).openAPIV3Schema !== undefined
          ? { openAPIV3Schema: record(v.schema).openAPIV3Schema }
          : {}),
      };
    });
}

/**
 * kube's main CRD validation rules for apiextensions.k8s.io/v1, with its field paths and
 * messages. metadata.name is checked only against the rule special to CRDs (it must be
 * `<plural>.<group>`): the generic ObjectMeta rules are validateObjectMeta's. Not covered:
 * structural-schema rules, conversion webhooks, printer columns, selectable fields.
 */
export function validateCRD(crd: unknown): Cause[] {
  const object = record(crd);
  const spec = record(object.spec);
  const names = defaultedNames(spec);
  const group = text(spec.group);
  const causes: Cause[] = [];

  const name = text(record(object.metadata).name);
  if (name && name !== `${names.plural}.${group}`)
    causes.push(invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));

  const groupErrors = isDNS1123Subdomain(group);
  if (!group) causes.push(required('spec.group'));
  else if (groupErrors.length) causes.push(invalid('spec.group', group, groupErrors.join(',')));
  else if (!group.includes('.')) causes.push(invalid('spec.group', group, 'should be a domain with at least one dot'));

  const scope = text(spec.scope);
  if (!scope) causes.push(required('spec.scope'));
  else if (!SCOPES.includes(scope)) causes.push(notSupported('spec.scope', scope, SCOPES));

  const versions = versionsOf(spec);
  // The v1 API requires a schema for every version, served or not.
  versions.forEach((v, i) => {
    if (record(v.schema).openAPIV3Schema == null)
      causes.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
  });
  versions.forEach((v, i) => {
    const errs = isDNS1035Label(text(v.name));
    if (errs.length) causes.push(invalid(`spec.versions[${i}].name`, text(v.name), errs.join(',')));
  });
  const versionNames = versions.map((v) => text(v.name));
  if (new Set(versionNames).size !== versionNames.length)
    causes.push(invalid('spec.versions', spec.versions, 'must contain unique version names'));
  if (versions.filter((v) => v.storage === true).length !== 1) {
    causes.push(
      invalid('spec.versions', spec.versions ?? [], 'must have exactly one version marked as storage version'),
    );
  }

  for (const field of ['plural', 'singular', 'kind', 'listKind'] as const) {
    if (!names[field]) causes.push(required(`spec.names.${field}`));
  }
  causes.push(...validateNames(names));
  return causes;
}

/** kube's ValidateCustomResourceDefinitionNames, for spec.names. */
function validateNames(names: Names): Cause[] {
  const causes: Cause[] = [];
  const label = (field: string, value: string) => {
    const errs = isDNS1035Label(value);
    if (value && errs.length) causes.push(invalid(`spec.names.${field}`, value, errs.join(',')));
  };
  const mixedCase = (field: string, value: string) => {
    const errs = isDNS1035Label(value.toLowerCase());
    if (value && errs.length)
      causes.push(
        invalid(`spec.names.${field}`, value, `may have mixed case, but should otherwise match: ${errs.join(',')}`),
      );
  };
  label('plural', names.plural);
  label('singular', names.singular);
  mixedCase('kind', names.kind);
  mixedCase('listKind', names.listKind);
  names.shortNames.forEach((shortName, i) => {
    const errs = isDNS1035Label(shortName);
    if (errs.length) causes.push(invalid(`spec.names.shortNames[${i}]`, shortName, errs.join(',')));
  });
  // The same string for both would make list and item responses ambiguous.
  if (names.kind && names.kind === names.listKind)
    causes.push(invalid('spec.names.listKind', names.listKind, 'kind and listKind may not be the same'));
  names.categories.forEach((category, i) => {
    const errs = isDNS1035Label(category);
    if (errs.length) causes.push(invalid(`spec.names.categories[${i}]`, category, errs.join(',')));
  });
  return causes;
}
