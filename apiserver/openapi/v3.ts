/**
 * OpenAPI v3: the `/openapi/v3` index and one document per group-version, with kube's paths,
 * operation ids and parameters, and the schemas of the kinds served there: Kubernetes' published
 * ones for built-in kinds, the CRD's own for custom resources. kubectl reads them for `explain`,
 * for whether a kind's PATCH accepts `fieldValidation` (so it validates server-side), whether a
 * kind takes strategic merge patches, and the merge keys of those patches (docs/design.md, "What
 * kubectl needs").
 */
import { createHash } from 'node:crypto';
import type { Json } from '../json.js';
import type { ResourceInfo, SubresourceInfo } from '../resources/resource-info.js';
import { customResourceSchemas } from './custom-resource-schemas.js';
import {
  kubernetesSchemaName,
  kubernetesSchemasWithReferences,
  referencedNames,
  type GroupVersionKind,
} from './kubernetes-schemas.js';

/** kube-apiserver puts its own version, without build metadata, in the document's info. */
const KUBERNETES_VERSION = 'v1.32.0';

export interface OpenAPIV3Index {
  paths: Record<string, { serverRelativeURL: string }>;
}

interface Schema {
  type: string;
  uniqueItems?: boolean;
}

interface Parameter {
  name: string;
  in: 'path' | 'query';
  description?: string;
  required?: boolean;
  schema: Schema;
}

interface RequestBody {
  content: Record<string, { schema: Schema }>;
  required?: boolean;
}

interface Operation {
  description: string;
  operationId: string;
  tags: string[];
  parameters?: Parameter[];
  requestBody?: RequestBody;
  responses: Record<string, { description: string }>;
  'x-kubernetes-action'?: string;
  'x-kubernetes-group-version-kind'?: GroupVersionKind;
}

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

type PathItem = Partial<Record<Method, Operation>> & { parameters?: Parameter[] };

export interface OpenAPIV3Document {
  openapi: '3.0.0';
  info: { title: string; version: string };
  paths: Record<string, PathItem>;
  components: { schemas: Record<string, Json> };
}

/** `/openapi/v3`: one entry per served group-version, its URL carrying the document's hash. */
export function openapiV3Index(resources: readonly ResourceInfo[]): OpenAPIV3Index {
  const keys = [...new Set(resources.map((r) => indexKey(r.group, r.version)))].sort();
  const paths: OpenAPIV3Index['paths'] = {};
  for (const key of keys) {
    paths[key] = {
      serverRelativeURL: `/openapi/v3/${key}?hash=${openapiV3DocumentHash(openapiV3Document(key, resources))}`,
    };
  }
  return { paths };
}

/** Uppercase hex SHA-512 of the serialized document, as kube-openapi computes its hashes. */
export function openapiV3DocumentHash(doc: OpenAPIV3Document): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
}

function indexKey(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** Accepts the index key (`api/v1`, `apis/apps/v1`) or the discovery form (`v1`, `apps/v1`). */
function parseGroupVersion(groupVersion: string): { group: string; version: string } {
  const parts = groupVersion.split('/');
  if (parts[0] === 'api' && parts.length === 2) return { group: '', version: parts[1] };
  if (parts[0] === 'apis' && parts.length === 3) return { group: parts[1], version: parts[2] };
  return parts.length === 1 ? { group: '', version: parts[0] } : { group: parts[0], version: parts[1] };
}

/**
 * The document for one group-version. Deterministic for the same input, so its hash is stable
 * until the resources change. Custom-resource-only group-versions get the apiextensions
 * server's title.
 */
export function openapiV3Document(groupVersion: string, resources: readonly ResourceInfo[]): OpenAPIV3Document {
  const { group, version } = parseGroupVersion(groupVersion);
  const served = resources.filter((r) => r.group === group && r.version === version);
  const paths: Record<string, PathItem> = {};
  if (served.length) {
    const names = operationNames(group, version);
    const urlPrefix = group ? `/apis/${group}/${version}` : `/api/${version}`;
    paths[`${urlPrefix}/`] = {
      get: {
        description: 'get available resources',
        operationId: `get${names.idPrefix}APIResources`,
        tags: [names.tag],
        responses: responses('200'),
      },
    };
    for (const r of served) Object.assign(paths, resourcePaths(r, urlPrefix, names));
  }
  const custom = served.length > 0 && served.every((r) => !r.builtin);
  return {
    openapi: '3.0.0',
    info: custom
      ? { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' }
      : { title: 'Kubernetes', version: KUBERNETES_VERSION },
    paths: Object.fromEntries(
      Object.keys(paths)
        .sort()
        .map((path) => [path, paths[path]]),
    ),
    components: { schemas: schemasOf(served) },
  };
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
/** What every group-version's operations take or answer besides its kinds. */
const OPERATION_SCHEMAS = ['APIResourceList', 'DeleteOptions', 'Patch', 'Status', 'WatchEvent'].map(
  (name) => `${META}.${name}`,
);

/**
 * The schemas of the served kinds, their lists and their subresources' kinds, with everything
 * they reference, sorted by name as kube writes them.
 */
function schemasOf(served: readonly ResourceInfo[]): Record<string, Json> {
  if (!served.length) return {};
  const custom: Record<string, Json> = {};
  const builtinNames = new Set(OPERATION_SCHEMAS);
  const addKind = (gvk: GroupVersionKind) => {
    const name = kubernetesSchemaName(gvk);
    if (name) builtinNames.add(name);
  };
  for (const r of served) {
    if (r.builtin) {
      addKind(r);
      addKind({ group: r.group, version: r.version, kind: r.listKind });
    } else {
      Object.assign(custom, customResourceSchemas(r));
    }
    for (const sub of r.subresources)
      addKind({ group: sub.group ?? r.group, version: sub.version ?? r.version, kind: sub.kind });
  }
  for (const name of referencedNames(custom)) builtinNames.add(name);
  const all = { ...kubernetesSchemasWithReferences(builtinNames), ...custom };
  return Object.fromEntries(
    Object.keys(all)
      .sort()
      .map((name) => [name, all[name]]),
  );
}

interface OperationNames {
  /** Goes between the verb and the rest of an operation id: `patch` + `AppsV1` + `NamespacedDeployment`. */
  idPrefix: string;
  tag: string;
}

/** kube-openapi's GetOperationIDAndTags, for the paths of one group-version. */
function operationNames(group: string, version: string): OperationNames {
  const trimmed = group ? group.replace(/\.k8s\.io$/, '') : 'core';
  return {
    idPrefix: toValidOperationId(trimmed, true) + toValidOperationId(version, true),
    tag: `${toValidOperationId(trimmed, false)}_${toValidOperationId(version, false)}`,
  };
}

/** kube-openapi's ToValidOperationID: drops non-letters, capitalizing the letter after each. */
export function toValidOperationId(text: string, capitalizeFirstLetter: boolean): string {
  let out = '';
  let capitalize = capitalizeFirstLetter;
  [...text].forEach((ch, i) => {
    if (/\p{L}/u.test(ch) || ch === '_' || (i !== 0 && /\p{Nd}/u.test(ch))) {
      out += capitalize ? ch.toUpperCase() : ch;
      capitalize = false;
    } else {
      capitalize = true;
    }
  });
  return out;
}

const query = (name: string, type = 'string'): Parameter => ({
  name,
  in: 'query',
  schema: { type, uniqueItems: true },
});

const LIST_PARAMS = [
  query('allowWatchBookmarks', 'boolean'),
  query('continue'),
  query('fieldSelector'),
  query('labelSelector'),
  query('limit', 'integer'),
  query('resourceVersion'),
  query('resourceVersionMatch'),
  query('sendInitialEvents', 'boolean'),
  query('timeoutSeconds', 'integer'),
  query('watch', 'boolean'),
];
const WRITE_PARAMS = [query('dryRun'), query('fieldManager'), query('fieldValidation')];
const PATCH_PARAMS = [...WRITE_PARAMS, query('force', 'boolean')];
const DELETE_PARAMS = [
  query('dryRun'),
  query('gracePeriodSeconds', 'integer'),
  query('ignoreStoreReadErrorWithClusterBreakingPotential', 'boolean'),
  query('orphanDependents', 'boolean'),
  query('propagationPolicy'),
];
const DELETE_COLLECTION_PARAMS = [
  ...LIST_PARAMS.filter((p) => p.name !== 'allowWatchBookmarks' && p.name !== 'watch'),
  ...DELETE_PARAMS,
].sort((a, b) => (a.name < b.name ? -1 : 1));

const PRETTY: Parameter = query('pretty');
const NAMESPACE: Parameter = {
  name: 'namespace',
  in: 'path',
  description: 'object name and auth scope, such as for teams and projects',
  required: true,
  schema: { type: 'string', uniqueItems: true },
};
const nameParam = (kind: string): Parameter => ({
  name: 'name',
  in: 'path',
  description: `name of the ${kind}`,
  required: true,
  schema: { type: 'string', uniqueItems: true },
});

const RESPONSE_TEXT: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
  '401': 'Unauthorized',
};

function responses(...codes: string[]): Operation['responses'] {
  return Object.fromEntries([...codes, '401'].map((code) => [code, { description: RESPONSE_TEXT[code] }]));
}

const OBJECT: Schema = { type: 'object' };
const JSON_BODY: RequestBody = { content: { '*/*': { schema: OBJECT } }, required: true };
const DELETE_BODY: RequestBody = { content: { '*/*': { schema: OBJECT } } };

/** Strategic merge patch needs the Go types; kube offers it for built-in kinds only. */
function patchBody(builtin: boolean): RequestBody {
  const types = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json'];
  if (builtin) types.push('application/strategic-merge-patch+json');
  return { content: Object.fromEntries(types.map((t) => [t, { schema: OBJECT }])), required: true };
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Methods in the order an OpenAPI path item lists them. */
const METHOD_ORDER: Method[] = ['get', 'put', 'post', 'delete', 'patch'];
const METHOD_OF_VERB: Record<string, Method> = {
  get: 'get',
  update: 'put',
  create: 'post',
  delete: 'delete',
  patch: 'patch',
};

/** How kube documents an operation on one object (or, for post, on a collection). */
interface OperationShape {
  idVerb: string;
  action: string;
  parameters?: Parameter[];
  requestBody?: RequestBody;
  codes: string[];
}

function shapeOf(method: Method, builtin: boolean): OperationShape {
  switch (method) {
    case 'get':
      return { idVerb: 'read', action: 'get', codes: ['200'] };
    case 'put':
      return {
        idVerb: 'replace',
        action: 'put',
        parameters: WRITE_PARAMS,
        requestBody: JSON_BODY,
        codes: ['200', '201'],
      };
    case 'post':
      return {
        idVerb: 'create',
        action: 'post',
        parameters: WRITE_PARAMS,
        requestBody: JSON_BODY,
        codes: ['200', '201', '202'],
      };
    case 'delete':
      return {
        idVerb: 'delete',
        action: 'delete',
        parameters: DELETE_PARAMS,
        requestBody: DELETE_BODY,
        codes: ['200', '202'],
      };
    case 'patch':
      return {
        idVerb: 'patch',
        action: 'patch',
        parameters: PATCH_PARAMS,
        requestBody: patchBody(builtin),
        codes: ['200', '201'],
      };
  }
}

function operation(
  names: OperationNames,
  shape: OperationShape,
  rest: string,
  description: string,
  gvk: GroupVersionKind,
): Operation {
  return {
    description,
    operationId: `${shape.idVerb}${names.idPrefix}${rest}`,
    tags: [names.tag],
    ...(shape.parameters ? { parameters: shape.parameters } : {}),
    ...(shape.requestBody ? { requestBody: shape.requestBody } : {}),
    responses: responses(...shape.codes),
    'x-kubernetes-action': shape.action,
    'x-kubernetes-group-version-kind': gvk,
  };
}

function pathItem(operations: Partial<Record<Method, Operation>>, parameters: Parameter[]): PathItem {
  const item: PathItem = {};
  for (const method of METHOD_ORDER) if (operations[method]) item[method] = operations[method];
  item.parameters = parameters;
  return item;
}

const ITEM_DESCRIPTIONS: Record<Method, (kind: string) => string> = {
  get: (kind) => `read the specified ${kind}`,
  put: (kind) => `replace the specified ${kind}`,
  post: (kind) => `create a ${kind}`,
  delete: (kind) => `delete a ${kind}`,
  patch: (kind) => `partially update the specified ${kind}`,
};

const SUBRESOURCE_DESCRIPTIONS: Record<Method, (sub: string, kind: string) => string> = {
  get: (sub, kind) => `read ${sub} of the specified ${kind}`,
  put: (sub, kind) => `replace ${sub} of the specified ${kind}`,
  post: (sub, kind) => `create ${sub} of a ${kind}`,
  delete: (sub, kind) => `delete ${sub} of a ${kind}`,
  patch: (sub, kind) => `partially update ${sub} of the specified ${kind}`,
};

/**
 * The collection, item and (for namespaced kinds) all-namespaces paths of a resource, and one
 * path per subresource, with kube's URL layout: `/api/v1/namespaces/{namespace}/pods/{name}`.
 */
function resourcePaths(r: ResourceInfo, urlPrefix: string, names: OperationNames): Record<string, PathItem> {
  const gvk = { group: r.group, version: r.version, kind: r.kind };
  const scoped = `${r.namespaced ? 'Namespaced' : ''}${r.kind}`;
  const collection = r.namespaced ? `${urlPrefix}/namespaces/{namespace}/${r.resource}` : `${urlPrefix}/${r.resource}`;
  const scopeParams = r.namespaced ? [NAMESPACE, PRETTY] : [PRETTY];
  const itemParams = [nameParam(r.kind), ...scopeParams];
  const list = (rest: string) =>
    operation(
      names,
      { idVerb: 'list', action: 'list', parameters: LIST_PARAMS, codes: ['200'] },
      rest,
      `list or watch objects of kind ${r.kind}`,
      gvk,
    );
  const paths: Record<string, PathItem> = {};

  const collectionOps: Partial<Record<Method, Operation>> = {};
  if (r.verbs.includes('list')) collectionOps.get = list(scoped);
  if (r.verbs.includes('create'))
    collectionOps.post = operation(names, shapeOf('post', r.builtin), scoped, ITEM_DESCRIPTIONS.post(r.kind), gvk);
  if (r.verbs.includes('deletecollection')) {
    const shape = {
      idVerb: 'delete',
      action: 'deletecollection',
      parameters: DELETE_COLLECTION_PARAMS,
      requestBody: DELETE_BODY,
      codes: ['200'],
    };
    collectionOps.delete = operation(names, shape, `Collection${scoped}`, `delete collection of ${r.kind}`, gvk);
  }
  if (Object.keys(collectionOps).length) paths[collection] = pathItem(collectionOps, scopeParams);

  const itemOps: Partial<Record<Method, Operation>> = {};
  for (const verb of ['get', 'update', 'delete', 'patch']) {
    const method = METHOD_OF_VERB[verb];
    if (r.verbs.includes(verb))
      itemOps[method] = operation(names, shapeOf(method, r.builtin), scoped, ITEM_DESCRIPTIONS[method](r.kind), gvk);
  }
  if (Object.keys(itemOps).length) paths[`${collection}/{name}`] = pathItem(itemOps, itemParams);

  if (r.namespaced && r.verbs.includes('list'))
    paths[`${urlPrefix}/${r.resource}`] = pathItem({ get: list(`${r.kind}ForAllNamespaces`) }, [PRETTY]);

  for (const sub of r.subresources) {
    paths[`${collection}/{name}/${sub.name}`] = pathItem(
      subresourceOperations(r, sub, `${scoped}${capitalize(sub.name)}`, names),
      itemParams,
    );
  }
  return paths;
}

function subresourceOperations(
  r: ResourceInfo,
  sub: SubresourceInfo,
  rest: string,
  names: OperationNames,
): Partial<Record<Method, Operation>> {
  const gvk = { group: sub.group ?? r.group, version: sub.version ?? r.version, kind: sub.kind };
  // exec, attach, portforward and proxy stream instead of returning objects: kube's "connect".
  const connect = sub.kind.endsWith('Options');
  const operations: Partial<Record<Method, Operation>> = {};
  for (const verb of sub.verbs) {
    const method = METHOD_OF_VERB[verb];
    if (!method) continue;
    operations[method] = connect
      ? operation(
          names,
          { idVerb: 'connect', action: 'connect', codes: ['200'] },
          `${capitalize(method)}${rest}`,
          `connect ${method.toUpperCase()} requests to ${sub.name} of ${r.kind}`,
          gvk,
        )
      : operation(names, shapeOf(method, r.builtin), rest, SUBRESOURCE_DESCRIPTIONS[method](sub.name, r.kind), gvk);
  }
  return operations;
}
