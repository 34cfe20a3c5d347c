import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiServer } from '../apiserver/api-server.js';
import type { ResourceCatalog } from '../apiserver/catalog.js';
import { aggregatedDiscovery, type AggregatedDiscoveryVersion } from '../apiserver/discovery/aggregated.js';
import { apiGroupList } from '../apiserver/discovery/legacy.js';
import { sendJson, sendStatus } from '../apiserver/handlers/http-io.js';
import { openapiV3Index } from '../apiserver/openapi/v3.js';
import { parseRequestInfo, requestUrl } from '../apiserver/request-info.js';
import { statusOf } from '../apiserver/status.js';
import { isClusterSecretRequest } from '../clusters/cluster-secrets.js';
import type { ClusterMember } from '../clusters/cluster-roster.js';
import { ADMIN_GROUPS } from '../translate/context.js';
import type { AdminIdentity } from './authenticate.js';
import { passThrough, passThroughUpgrade } from './admin-passthrough.js';
import { refuseUpgrade } from './upgrade-proxy.js';
import type { UpstreamFailures } from './upstream-failure.js';

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
 * `/apis` and `/openapi/v3` are the default cluster's with the gateway's groups added; anything
 * else, upgrades included, passes through unchanged to the default cluster, as the admin.
 */
export class AdminRouter {
  constructor(
    private readonly options: {
      api: ApiServer;
      catalog: ResourceCatalog;
      defaultCluster: () => ClusterMember | undefined;
      search?: SearchRoutes;
      /** Where failures to reach the default cluster are counted. */
      metrics: UpstreamFailures;
    },
  ) {}

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
    if (req.method === 'GET' && pathname === '/apis') return this.mergedGroups(req, res, cluster);
    if (req.method === 'GET' && pathname === '/openapi/v3') return this.mergedOpenApiIndex(req, res, cluster);
    if (!cluster) return sendStatus(req, res, noDefaultCluster());
    await passThrough(req, res, admin, cluster, this.options.metrics);
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, admin: AdminIdentity): void {
    const pathname = requestUrl(req.url).pathname;
    if (this.options.search?.upgrade(req, socket, head, admin, pathname)) return;
    const cluster = this.options.defaultCluster();
    if (!cluster) return refuseUpgrade(socket, noDefaultCluster());
    passThroughUpgrade(req, socket, head, admin, cluster, this.options.metrics);
  }

  private servedByGateway(method: string, pathname: string, query: URLSearchParams): boolean {
    if (GATEWAY_PATHS.has(pathname) || ownGroupOf(pathname) !== undefined) return true;
    const openapi = /^\/openapi\/v3\/apis\/([^/]+)\//.exec(`${pathname}/`);
    if (openapi && ADMIN_GROUPS.has(openapi[1])) return true;
    return isClusterSecretRequest(parseRequestInfo(method, pathname, query));
  }

  /** The gateway's own resources: those of its groups (what the admin's discovery adds to the cluster's). */
  private ownResources() {
    return this.options.catalog.resources().filter((r) => ADMIN_GROUPS.has(r.group));
  }

  /** `/apis`, legacy or aggregated as asked: the default cluster's groups, then the gateway's. */
  private async mergedGroups(req: IncomingMessage, res: ServerResponse, cluster: ClusterMember | undefined) {
    const accept = req.headers.accept ?? 'application/json';
    const upstream = cluster ? await fetchJson(cluster, '/apis', accept) : undefined;
    const contentType = upstream?.contentType ?? 'application/json';
    const aggregated = /as=APIGroupDiscoveryList/.exec(contentType) ? aggregatedVersion(contentType) : null;
    const own = this.ownResources();
    if (aggregated) {
      const mine = aggregatedDiscovery(own, 'apis', aggregated);
      const theirs = (upstream?.body?.items ?? []) as { metadata?: { name?: string } }[];
      const names = new Set(theirs.map((g) => g.metadata?.name));
      const body = { ...mine, items: [...theirs, ...mine.items.filter((g) => !names.has(g.metadata.name))] };
      return sendJson(req, res, 200, body, { 'Content-Type': contentType, Vary: 'Accept' });
    }
    const mine = apiGroupList(own);
    const theirs = (upstream?.body?.groups ?? []) as { name: string }[];
    const names = new Set(theirs.map((g) => g.name));
    sendJson(
      req,
      res,
      200,
      { ...mine, groups: [...theirs, ...mine.groups.filter((g) => !names.has(g.name))] },
      { Vary: 'Accept' },
    );
  }

  /** `/openapi/v3`: the default cluster's documents, and the gateway's for its own groups. */
  private async mergedOpenApiIndex(req: IncomingMessage, res: ServerResponse, cluster: ClusterMember | undefined) {
    const upstream = cluster ? await fetchJson(cluster, '/openapi/v3', 'application/json') : undefined;
    const mine = openapiV3Index(this.options.catalog.resources()).paths;
    const paths: Record<string, unknown> = { ...(upstream?.body?.paths ?? {}) };
    for (const [key, entry] of Object.entries(mine)) if (ADMIN_GROUPS.has(key.split('/')[1])) paths[key] = entry;
    sendJson(req, res, 200, { paths }, { 'Cache-Control': 'no-cache, private' });
  }
}

/** The gateway's own group a path is under (`/apis/<group>…`), or undefined. */
function ownGroupOf(pathname: string): string | undefined {
  const group = /^\/apis\/([^/]+)/.exec(pathname)?.[1];
  return group !== undefined && ADMIN_GROUPS.has(group) ? group : undefined;
}

function aggregatedVersion(contentType: string): AggregatedDiscoveryVersion {
  return /v=v2beta1/.test(contentType) ? 'v2beta1' : 'v2';
}

/** A discovery document of the default cluster; undefined when it cannot be had (the gateway's part is served anyway). */
async function fetchJson(
  cluster: ClusterMember,
  path: string,
  accept: string,
): Promise<{ contentType: string; body: any } | undefined> {
  try {
    const res = await cluster.connection.request('GET', path, { accept });
    const text = await res.body.text();
    if (res.status !== 200) return undefined;
    return { contentType: String(res.headers['content-type'] ?? 'application/json'), body: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

function noDefaultCluster() {
  return statusOf(503, 'ServiceUnavailable', 'no default cluster is registered and reachable');
}
