/**
 * The gateway's routing table (docs/design.md, "Routing"): what an authenticated request or
 * upgrade reaches, for the admin and for tenants, in one ordered list. A tenant's resource
 * request goes on to the tenant path's own table (tenant-routes.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiServer } from '../../apiserver/api-server.js';
import { sendStatus } from '../../apiserver/handlers/http-io.js';
import { parseRequestInfo } from '../../apiserver/request-info.js';
import { statusOf, type ApiError, type Status } from '../../apiserver/status.js';
import { CLUSTER_SECRET_NAMESPACE, isClusterSecretRequest } from '../../clusters/cluster-secrets.js';
import type { ClusterRoster } from '../../clusters/cluster-roster.js';
import { ADMIN_GROUPS, tenantContext } from '../../translate/context.js';
import type { TenantRoster } from '../../tenants/tenant-roster.js';
import type { AdminRouter } from '../admin/admin-router.js';
import type { AdminIdentity, Identity } from '../auth/authenticate.js';
import { clientImpersonationRefusal } from '../auth/client-impersonation.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { answerSelfSubjectReview, SELF_SUBJECT_REVIEW_PATH } from '../auth/self-subject-review.js';
import { impersonation } from '../auth/tenant-credentials.js';
import type { TenantIdentity } from './tenant-request.js';
import type { TenantLimits } from './tenant-limits.js';
import type { TenantProxy } from './pipeline.js';
import { proxyUpgrade } from '../proxy/upgrade-proxy.js';
import { clusterUnavailableStatus, failureStatus } from '../upstream/upstream-failure.js';
import { tenantKindScope, type UpstreamConnection } from '../upstream/upstream-connection.js';
import { detach } from '../../apiserver/process-faults.js';

/** An authenticated request or upgrade, as the routes match it. */
export interface GatewayExchange {
  req: IncomingMessage;
  identity: Identity;
  url: URL;
  /** The path without its trailing slashes. */
  pathname: string;
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
  tenants: TenantRoster;
  clusters: ClusterRoster<UpstreamConnection>;
  proxy: TenantProxy;
  limits: TenantLimits;
  metrics: GatewayMetrics;
}

const GATEWAY_PATHS = new Set(['/version', '/healthz', '/readyz', '/livez']);

/** In order; the first that matches serves. */
export function gatewayRoutes(options: GatewayRoutesOptions): GatewayRoute[] {
  const { api, admin, tenants, clusters, proxy, limits, metrics } = options;
  return [
    {
      name: "a tenant's own impersonation",
      matches: ({ req, identity }) =>
        identity.kind === 'tenant' && clientImpersonationRefusal(req.headers) !== undefined,
      serve: ({ req }, res) => sendStatus(req, res, clientImpersonationRefusal(req.headers)!),
    },
    {
      name: 'whoami',
      matches: ({ req, pathname }) => req.method === 'POST' && pathname === SELF_SUBJECT_REVIEW_PATH,
      serve: ({ req, identity }, res) => answerSelfSubjectReview(req, res, identity),
    },
    {
      name: 'metrics',
      matches: ({ req, pathname }) => pathname === '/metrics' && req.method === 'GET',
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
      matches: ({ pathname }) => GATEWAY_PATHS.has(pathname),
      serve: ({ req, identity }, res) => api.handle(req, res, { name: identity.user, groups: identity.groups }),
    },
    {
      name: 'admin only',
      matches: ({ req, url, identity }) => adminOnlyRefusal(req.method ?? 'GET', url, identity.user) !== undefined,
      serve: ({ req, url, identity }, res) =>
        sendStatus(req, res, adminOnlyRefusal(req.method ?? 'GET', url, identity.user)!),
    },
    {
      name: "the tenant's cluster",
      matches: ({ identity }) => identity.kind === 'tenant',
      serve: ({ req, identity }, res) => {
        const tenant = asTenant(identity);
        const cluster = tenants.clusterOf(tenant.tenant);
        const connection = cluster ? clusters.get(cluster)?.connection : undefined;
        if (!connection) return sendStatus(req, res, clusterUnavailableStatus(tenant.tenant));
        return proxy.handle(req, res, tenant, connection);
      },
      upgrade: ({ req, identity }, socket, head, refuse) => {
        const tenant = asTenant(identity);
        const cluster = tenants.clusterOf(tenant.tenant);
        const member = cluster ? clusters.get(cluster) : undefined;
        if (!member) return refuse(clusterUnavailableStatus(tenant.tenant));
        const { connection, upgradeTarget: target } = member;
        // An exec, attach or port-forward session is one of the tenant's streams until its socket closes.
        let lease;
        try {
          lease = limits.begin(tenant.tenant);
          lease.openStream();
        } catch (err) {
          lease?.end();
          return refuse((err as ApiError).status);
        }
        socket.once('close', () => lease.end());
        detach(
          connection.scope().then(
            (scope) =>
              proxyUpgrade(
                req,
                socket,
                head,
                tenantContext(tenant.tenant, tenantKindScope(scope, tenant.tenant)),
                impersonation(tenant),
                target,
                (err) => metrics.upstreamFailed(member.name, err),
              ),
            (err: unknown) => {
              metrics.upstreamFailed(member.name, err);
              refuse(failureStatus(err, `upgrade: ${req.method} ${req.url}`));
            },
          ),
          `tenant ${tenant.tenant} upgrade ${req.method} ${req.url}`,
        );
      },
    },
  ];
}

function asAdmin(identity: Identity): AdminIdentity {
  if (identity.kind !== 'admin') throw new Error("the admin's route matched a tenant");
  return identity;
}

function asTenant(identity: Identity): TenantIdentity {
  if (identity.kind !== 'tenant') throw new Error("the tenants' route matched the admin");
  return identity;
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
function adminOnlyRefusal(method: string, url: URL, user: string): Status | undefined {
  const info = parseRequestInfo(method, url.pathname, url.searchParams);
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
