/**
 * The route stage of the tenant path (docs/translate.md, "The request path"): which module answers
 * a tenant's request — discovery and OpenAPI by their paths, then resource requests, translated
 * up, by what they ask. Matching is this table's own job: a request is matched here, not in the
 * modules that answer it.
 */
import { openContinue } from '../../translate/sealed-continue.js';
import { accessReviewOf, answerAccessReview } from '../auth/access-review.js';
import { readsFromCache, serveFromCache } from '../cached/cached-read.js';
import { deleteOptionsUp, readRequestBody, writeUp, contentTypeOf } from '../proxy/body-up.js';
import { streamContainerLog } from '../proxy/container-log.js';
import { forwardRequest } from '../proxy/forwarded-request.js';
import { deleteOwnCollection } from '../proxy/own-collection-delete.js';
import { serveDiscovery } from '../proxy/tenant-discovery.js';
import { listInPages } from '../proxy/tenant-list.js';
import { serveOpenApiV3, serveOpenApiV2 } from '../proxy/tenant-openapi.js';
import type { TenantRequest } from './tenant-request.js';
import { watch } from '../proxy/tenant-watch.js';
import { proxySubresource } from '../proxy/workload-proxy.js';

/** One entry of the table: what it serves, which requests, and how. */
export interface TenantRoute {
  readonly name: string;
  matches(r: TenantRequest): boolean;
  serve(r: TenantRequest): Promise<void> | void;
  /** The route reads the translated request (`r.t`): the request is translated up and its credentials chosen first. */
  readonly translated: boolean;
}

/** The discovery documents: `/api`, `/api/v1`, `/apis`, `/apis/<group>`, `/apis/<group>/<version>` (empty segments ignored). */
const DISCOVERY_PATH = /^\/+(?:api(?:\/+[^/]+)?|apis(?:\/+[^/]+){0,2})$/;

function isDiscovery(r: TenantRequest): boolean {
  return r.method === 'GET' && DISCOVERY_PATH.test(r.path);
}

function isOpenApiV3(r: TenantRequest): boolean {
  return r.path === '/openapi/v3' || r.path.startsWith('/openapi/v3/');
}

/** A write has a body, converted and checked on its way up. */
function isWrite(r: TenantRequest): boolean {
  const method = r.method;
  return method === 'POST' || method === 'PUT' || method === 'PATCH';
}

/** A delete-collection across namespaces, or of a cluster-scoped kind (own-collection-delete.ts). */
function deletesBeyondNamespace(r: TenantRequest): boolean {
  return r.t.info.verb === 'deletecollection' && !(r.t.namespaced && r.t.info.namespace);
}

function isContainerLog(r: TenantRequest): boolean {
  return r.t.info.resource === 'pods' && r.t.info.subresource === 'log' && r.method === 'GET';
}

/** Access reviews the gateway answers itself (access-review.ts). */
const ACCESS_REVIEWS: Readonly<Record<string, 'SelfSubjectAccessReview' | 'SubjectAccessReview'>> = {
  selfsubjectaccessreviews: 'SelfSubjectAccessReview',
  subjectaccessreviews: 'SubjectAccessReview',
};

/**
 * In order; the first that matches serves. Writes come before the reads' routes, which never
 * match a POST, PUT or PATCH, so that every write has its body converted and checked.
 */
export const TENANT_ROUTES: readonly TenantRoute[] = [
  { name: 'openapi v2', translated: false, matches: (r) => r.path === '/openapi/v2', serve: serveOpenApiV2 },
  { name: 'openapi v3', translated: false, matches: isOpenApiV3, serve: serveOpenApiV3 },
  { name: 'discovery', translated: false, matches: isDiscovery, serve: serveDiscovery },
  {
    name: 'workload proxy',
    translated: true,
    matches: (r) => r.t.info.subresource === 'proxy',
    serve: (r) =>
      proxySubresource(r.req, r.res, r.ctx, r.t, r.upstream, r.headers, r.url.pathname, r.services.maxRequestBytes),
  },
  { name: 'access review', translated: true, matches: (r) => reviewKind(r) !== undefined, serve: forwarded(review) },
  { name: 'write', translated: true, matches: isWrite, serve: forwarded(write) },
  {
    name: 'delete beyond a namespace',
    translated: true,
    matches: deletesBeyondNamespace,
    serve: forwarded(deleteOwnCollection),
  },
  {
    name: 'cached read',
    translated: true,
    matches: readsFromCache,
    serve: (r) => serveFromCache(r, () => forwardRead(r)),
  },
  { name: 'watch', translated: true, matches: (r) => r.t.info.verb === 'watch', serve: forwarded(watch) },
  { name: 'container log', translated: true, matches: isContainerLog, serve: forwarded(streamContainerLog) },
  { name: 'list', translated: true, matches: (r) => r.t.info.verb === 'list', serve: forwarded(listInPages) },
  { name: 'object', translated: true, matches: () => true, serve: forwarded((r) => forwardRequest(r)) },
];

/** A get, list or watch the cache could not answer in time, sent to the cluster as it would have been. */
function forwardRead(r: TenantRequest): Promise<void> {
  const verb = r.t.info.verb;
  return forwarded(verb === 'watch' ? watch : verb === 'list' ? listInPages : (q) => forwardRequest(q))(r);
}

/**
 * What every request sent on upstream needs first: an answer the gateway can read, the tenant's
 * continue token opened, `includeObject=None` asked as Metadata, a DELETE's options.
 */
function forwarded(serve: (r: TenantRequest) => Promise<void>): (r: TenantRequest) => Promise<void> {
  return async (r) => {
    const { t } = r;
    r.headers.accept = acceptUp(r.req.headers.accept);
    const continueToken = t.query.get('continue');
    if (continueToken) t.query.set('continue', openContinue(r.services.continueKey, r.ctx.tenantId, continueToken));
    r.wantsNoObject = t.query.get('includeObject') === 'None';
    if (r.wantsNoObject) t.query.set('includeObject', 'Metadata');
    if (r.method === 'DELETE') await deleteOptionsUp(r);
    return serve(r);
  };
}

async function write(r: TenantRequest): Promise<void> {
  const raw = await readRequestBody(r);
  return forwardRequest(r, writeUp(r, raw));
}

/** An access review about a resource is answered by the gateway's own decision; any other is forwarded as a write. */
async function review(r: TenantRequest): Promise<void> {
  const raw = await readRequestBody(r);
  const asked = accessReviewOf(contentTypeOf(r), raw);
  if (asked && (await answerAccessReview(r.req, r.res, r.ctx, r.identity, r.cluster.authorizer, reviewKind(r)!, asked)))
    return;
  return forwardRequest(r, writeUp(r, raw));
}

function reviewKind(r: TenantRequest): 'SelfSubjectAccessReview' | 'SubjectAccessReview' | undefined {
  return r.method === 'POST' && r.t.info.group === 'authorization.k8s.io'
    ? ACCESS_REVIEWS[r.t.info.resource]
    : undefined;
}

/** JSON or a JSON Table, never protobuf: the gateway must be able to read the answer. */
function acceptUp(accept: string | undefined): string {
  if (accept === undefined || accept === 'application/json') return 'application/json';
  const kept = (accept ?? 'application/json')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.startsWith('application/json') || s === '*/*');
  return kept.length ? kept.join(',') : 'application/json';
}
