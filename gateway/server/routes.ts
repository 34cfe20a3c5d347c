/**
 * The gateway's routing table (docs/design.md, "Routing"): what an authenticated request or
 * upgrade reaches, for the admin and for tenants, in one ordered list. A tenant's resource
 * request goes on to the tenant path's own table (tenant-routes.ts).
 */
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiServer } from '../../apiserver/api-server.js';
import { sendStatus } from '../../apiserver/handlers/http-io.js';
import type { RequestInfo } from '../../apiserver/request-info.js';
import { statusOf, type Status } from '../../apiserver/status.js';
import { CLUSTER_SECRET_NAMESPACE, isClusterSecretRequest } from '../../clusters/cluster-secrets.js';
import { ADMIN_GROUPS } from '../../translate/context.js';
import type { AdminRouter } from '../admin/admin-router.js';
import type { AdminIdentity, Identity, TenantIdentity } from '../auth/authenticate.js';
import { clientImpersonationRefusal } from '../auth/client-impersonation.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { answerSelfSubjectReview, SELF_SUBJECT_REVIEW_PATH } from '../auth/self-subject-review.js';
import type { RequestRecord } from './request-record.js';

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
            statusOf(403, 'Forbidden', `forbidden: User "${identity.user}" cannot get path "/metrics"`),
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
      serve: ({ req, identity }, res) => api.handle(req, res, { name: identity.user, groups: identity.groups }),
    },
    {
      name: 'admin only',
      matches: ({ info, url, identity }) => adminOnlyRefusal(info, url, identity.user) !== undefined,
      serve: ({ req, info, url, identity }, res) => sendStatus(req, res, adminOnlyRefusal(info, url, identity.user)!),
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
