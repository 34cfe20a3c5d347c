import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiServer } from '../../apiserver/api-server.js';
import type { ResourceCatalog } from '../../apiserver/catalog.js';
import { sendJson, sendStatus } from '../../apiserver/handlers/http-io.js';
import { parseRequestInfo, requestUrl } from '../../apiserver/request-info.js';
import { isClusterSecretRequest } from '../../clusters/cluster-secrets.js';
import type { ClusterMember } from '../../clusters/cluster-roster.js';
import { ADMIN_GROUPS } from '../../translate/context.js';
import type { AdminIdentity } from '../auth/authenticate.js';
import { passThrough, passThroughUpgrade } from './admin-passthrough.js';
import { refuseUpgrade } from '../proxy/upgrade-proxy.js';
import { defaultClusterUnavailable, type UpstreamFailures } from '../upstream/upstream-failure.js';
import { AdminDiscovery } from './admin-discovery.js';
import { emptyEventList, isOwnObjectEventList } from './own-object-events.js';

/**
 * The search API's `proxying` and `search` paths (the multi-cluster cache): each returns false
 * for a path it does not serve, which then goes to the gateway's own API (ResourceRegistries) or,
 * for an upgrade, to the default cluster.
 */
export interface SearchRoutes {
  handle(req: IncomingMessage, res: ServerResponse, admin: AdminIdentity, pathname: string): Promise<boolean>;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, admin: AdminIdentity, pathname: string): boolean;
}

const GATEWAY_PATHS = new Set(['/version', '/healthz', '/readyz', '/livez']);

/**
 * Where an admin request goes (docs/design.md, "Routing"): the gateway's own groups
 * (`tenant.kubezoo.io`, `cluster.karmada.io`, `search.karmada.io`), the Secrets of
 * `karmada-cluster`, `/version` and health are served by the gateway's API from the store;
 * discovery and `/openapi/v3` are the default cluster's with the gateway's groups added, served
 * while that cluster is down (AdminDiscovery); anything else, upgrades included, passes through
 * unchanged to the default cluster, as the admin.
 */
export class AdminRouter {
  private readonly discovery: AdminDiscovery;

  constructor(
    private readonly options: {
      api: ApiServer;
      catalog: ResourceCatalog;
      defaultCluster: () => ClusterMember | undefined;
      search?: SearchRoutes;
      /** Where failures to reach the default cluster are counted. */
      metrics: UpstreamFailures;
    },
  ) {
    this.discovery = new AdminDiscovery(options.catalog);
  }

  async handle(req: IncomingMessage, res: ServerResponse, admin: AdminIdentity): Promise<void> {
    const url = requestUrl(req.url);
    const pathname = url.pathname.replace(/\/+$/, '') || '/';
    const user = { name: admin.user, groups: admin.groups };
    // The seam of the search API: its proxying and search paths are the cache's, not the store's.
    if (this.options.search && ownGroupOf(pathname) === 'search.karmada.io') {
      if (await this.options.search.handle(req, res, admin, pathname)) return;
    }
    if (this.servedByGateway(req.method ?? 'GET', pathname, url.searchParams))
      return this.options.api.handle(req, res, user);
    const cluster = this.options.defaultCluster();
    if (this.discovery.serves(req.method ?? 'GET', pathname)) return this.discovery.handle(req, res, pathname, cluster);
    const info = parseRequestInfo(req.method ?? 'GET', pathname, url.searchParams);
    if (await isOwnObjectEventList(info, url.searchParams, this.options.catalog, this.options.api))
      return sendJson(req, res, 200, emptyEventList());
    if (!cluster) return sendStatus(req, res, defaultClusterUnavailable(undefined));
    await passThrough(req, res, admin, cluster, this.options.metrics);
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, admin: AdminIdentity): void {
    const pathname = requestUrl(req.url).pathname;
    if (this.options.search?.upgrade(req, socket, head, admin, pathname)) return;
    const cluster = this.options.defaultCluster();
    if (!cluster) return refuseUpgrade(socket, defaultClusterUnavailable(undefined));
    passThroughUpgrade(req, socket, head, admin, cluster, this.options.metrics);
  }

  private servedByGateway(method: string, pathname: string, query: URLSearchParams): boolean {
    if (GATEWAY_PATHS.has(pathname) || ownGroupOf(pathname) !== undefined) return true;
    const openapi = /^\/openapi\/v3\/apis\/([^/]+)\//.exec(`${pathname}/`);
    if (openapi && ADMIN_GROUPS.has(openapi[1])) return true;
    return isClusterSecretRequest(parseRequestInfo(method, pathname, query));
  }
}

/** The gateway's own group a path is under (`/apis/<group>…`), or undefined. */
function ownGroupOf(pathname: string): string | undefined {
  const group = /^\/apis\/([^/]+)/.exec(pathname)?.[1];
  return group !== undefined && ADMIN_GROUPS.has(group) ? group : undefined;
}
