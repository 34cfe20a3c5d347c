/**
 * The route stage of the pipeline (pipeline.ts): which module answers a request, in two ordered
 * tables where the first route that matches serves. The gateway's (docs/design.md, "Routing"), for
 * every authenticated request or upgrade: the admin, whoami, metrics, version and health, what a
 * tenant may never reach; its last route hands a tenant's request to the tenant path (its
 * cluster, its share, its kinds). Then the tenant path's (docs/translate.md, "The request path"):
 * discovery and OpenAPI by their paths, then resource requests, translated up, by what they ask.
 * Matching is this module's own job: a request is matched here, not in the modules that answer it.
 */
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiServer } from '../../apiserver/api-server.js';
import { sendStatus } from '../../apiserver/handlers/http-io.js';
import type { RequestInfo } from '../../apiserver/request-info.js';
import { statusOf, type Status } from '../../apiserver/status.js';
import { CLUSTER_SECRET_NAMESPACE, isClusterSecretRequest } from '../../clusters/cluster-secrets.js';
import { ADMIN_GROUPS, pathNotFoundError } from '../../translate/context.js';
import type { AdminRouter } from '../admin/admin-router.js';
import type { AdminIdentity, Identity, TenantIdentity } from '../auth/authenticate.js';
import { clientImpersonationRefusal } from '../auth/client-impersonation.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { answerSelfSubjectReview, SELF_SUBJECT_REVIEW_PATH, shownUserName } from '../auth/self-subject-review.js';
import type { RequestRecord } from './request-record.js';
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

/** An authenticated request or upgrade, as the routes match it. */
export type GatewayExchange = RequestRecord<Identity>;

/** What serves a tenant's requests past these routes: the tenant path of the pipeline (pipeline.ts). */
export interface TenantPath {
  serve(exchange: RequestRecord<TenantIdentity>, res: ServerResponse): Promise<void>;
  upgradeTenant(
    exchange: RequestRecord<TenantIdentity>,
    socket: Duplex,
    head: Buffer,
    refuse: (status: Status) => void,
  ): void;
}

export interface GatewayRoute {
  readonly name: string;
  matches(exchange: GatewayExchange): boolean;
  serve(exchange: GatewayExchange, res: ServerResponse): Promise<void> | void;
  /** How the route answers an upgrade (exec, attach, port-forward, WebSockets); routes without one never match upgrades. */
  upgrade?(exchange: GatewayExchange, socket: Duplex, head: Buffer, refuse: (status: Status) => void): void;
}

export interface GatewayRoutesOptions {
  api: ApiServer;
  admin: AdminRouter;
  metrics: GatewayMetrics;
  tenant: TenantPath;
}

const GATEWAY_PATHS = new Set(['/version', '/healthz', '/readyz', '/livez']);

/** In order; the first that matches serves. */
export function gatewayRoutes(options: GatewayRoutesOptions): GatewayRoute[] {
  const { api, admin, metrics, tenant } = options;
  return [
    {
      name: "a tenant's own impersonation",
      matches: ({ req, identity }) =>
        identity.kind === 'tenant' && clientImpersonationRefusal(req.headers) !== undefined,
      serve: ({ req }, res) => sendStatus(req, res, clientImpersonationRefusal(req.headers)!),
    },
    {
      name: 'whoami',
      matches: ({ req, path }) => req.method === 'POST' && path === SELF_SUBJECT_REVIEW_PATH,
      serve: ({ req, identity }, res) => answerSelfSubjectReview(req, res, identity),
    },
    {
      name: 'metrics',
      matches: ({ req, path }) => path === '/metrics' && req.method === 'GET',
      serve: async ({ req, identity }, res) => {
        if (identity.kind !== 'admin')
          return sendStatus(
            req,
            res,
            statusOf(403, 'Forbidden', `forbidden: User "${shownUserName(identity)}" cannot get path "/metrics"`),
          );
        res.writeHead(200, { 'Content-Type': metrics.registry.contentType });
        res.end(await metrics.registry.metrics());
      },
    },
    {
      name: 'admin',
      matches: ({ identity }) => identity.kind === 'admin',
      serve: ({ req, identity }, res) => admin.handle(req, res, asAdmin(identity)),
      upgrade: ({ req, identity }, socket, head) => admin.upgrade(req, socket, head, asAdmin(identity)),
    },
    {
      name: "the gateway's version and health",
      matches: ({ path }) => GATEWAY_PATHS.has(path),
      serve: ({ req, identity }, res) =>
        api.handle(req, res, { name: shownUserName(identity), groups: identity.groups }),
    },
    {
      name: 'admin only',
      matches: ({ info, url, identity }) => adminOnlyRefusal(info, url, shownUserName(identity)) !== undefined,
      serve: ({ req, info, url, identity }, res) =>
        sendStatus(req, res, adminOnlyRefusal(info, url, shownUserName(identity))!),
    },
    {
      name: "the tenant's cluster",
      matches: ({ identity }) => identity.kind === 'tenant',
      serve: (exchange, res) => tenant.serve(asTenant(exchange), res),
      upgrade: (exchange, socket, head, refuse) => tenant.upgradeTenant(asTenant(exchange), socket, head, refuse),
    },
  ];
}

function asAdmin(identity: Identity): AdminIdentity {
  if (identity.kind !== 'admin') throw new Error("the admin's route matched a tenant");
  return identity;
}

function asTenant(exchange: GatewayExchange): RequestRecord<TenantIdentity> {
  if (exchange.identity.kind !== 'tenant') throw new Error("the tenants' route matched the admin");
  return exchange as RequestRecord<TenantIdentity>;
}

/** The first route that matches a request. */
export function requestRoute(routes: readonly GatewayRoute[], exchange: GatewayExchange): GatewayRoute | undefined {
  return routes.find((route) => route.matches(exchange));
}

/** The first route that answers upgrades and matches this one. */
export function upgradeRoute(routes: readonly GatewayRoute[], exchange: GatewayExchange): GatewayRoute | undefined {
  return routes.find((route) => route.upgrade && route.matches(exchange));
}

/**
 * What a tenant may never reach, whatever its RBAC: the gateway's own groups (Tenants, Clusters,
 * the search API) and the cluster Secrets of `karmada-cluster`. Their Status is kube's RBAC refusal.
 */
function adminOnlyRefusal(info: RequestInfo, url: URL, user: string): Status | undefined {
  const group = /^\/apis\/([^/]+)/.exec(url.pathname)?.[1];
  if (group !== undefined && ADMIN_GROUPS.has(group)) {
    if (!info.isResourceRequest)
      return statusOf(403, 'Forbidden', `forbidden: User "${user}" cannot ${info.verb} path "${url.pathname}"`);
    return statusOf(
      403,
      'Forbidden',
      `${info.resource}.${group} is forbidden: User "${user}" cannot ${info.verb} resource "${info.resource}" in API group "${group}" at the cluster scope`,
      { group, kind: info.resource },
    );
  }
  if (isClusterSecretRequest(info))
    return statusOf(
      403,
      'Forbidden',
      `secrets is forbidden: User "${user}" cannot ${info.verb} resource "secrets" in API group "" in the namespace "${CLUSTER_SECRET_NAMESPACE}"`,
      { kind: 'secrets' },
    );
  return undefined;
}

/** One entry of the tenant path's table: what it serves, which requests, and how. */
export interface TenantRoute {
  readonly name: string;
  matches(r: TenantRequest): boolean;
  serve(r: TenantRequest): Promise<void> | void;
  /** The route reads the translated request (`r.t`): the request is translated up and its credentials chosen first. */
  readonly translated: boolean;
  /** The route answers from the gateway's cache: the authorization stage decides whether the cache may answer. */
  readonly fromCache?: boolean;
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
const TENANT_ROUTES: readonly TenantRoute[] = [
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
    fromCache: true,
    matches: readsFromCache,
    serve: (r) => serveFromCache(r, () => forwardRead(r)),
  },
  { name: 'watch', translated: true, matches: (r) => r.t.info.verb === 'watch', serve: forwarded(watch) },
  { name: 'container log', translated: true, matches: isContainerLog, serve: forwarded(streamContainerLog) },
  { name: 'list', translated: true, matches: (r) => r.t.info.verb === 'list', serve: forwarded(listInPages) },
  { name: 'object', translated: true, matches: () => true, serve: forwarded((r) => forwardRequest(r)) },
];

/**
 * The first route of the tenant path's table that matches; `translate` runs once, before the first
 * route that reads the request translated (the routes before it match by path alone).
 */
export async function tenantRoute(r: TenantRequest, translate: () => Promise<void>): Promise<TenantRoute> {
  let translated = false;
  for (const route of TENANT_ROUTES) {
    if (route.translated && !translated) {
      await translate();
      translated = true;
    }
    if (route.matches(r)) return route;
  }
  throw pathNotFoundError();
}

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
  return forwardRequest(r, await writeUp(r, raw));
}

/** An access review about a resource is answered by the gateway's own decision; any other is forwarded as a write. */
async function review(r: TenantRequest): Promise<void> {
  const raw = await readRequestBody(r);
  const asked = accessReviewOf(contentTypeOf(r), raw);
  if (
    asked &&
    (await answerAccessReview(r.req, r.res, r.ctx, r.identity, r.cluster.requestAuthorizer, reviewKind(r)!, asked))
  )
    return;
  return forwardRequest(r, await writeUp(r, raw));
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
