import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '../store/index.js';
import type { ResourceCatalog } from './catalog.js';
import { handleDiscovery } from './handlers/discovery-handler.js';
import { sendJson, sendStatus } from './handlers/http-io.js';
import { OpenApiHandler } from './handlers/openapi-handler.js';
import { handleResource } from './handlers/resource-handler.js';
import { GenericRegistry, type NamespaceLookup } from './registry/generic-registry.js';
import type { StrategyFor } from './registry/strategy.js';
import type { LongRunningRequests } from './longrunning-requests.js';
import { parseRequestInfo, type RequestInfo, type ResourceRequestInfo, requestUrl } from './request-info.js';
import type { ResourceInfo } from './resources/resource-info.js';
import { ApiError, pathNotFound, statusOf, toApiError } from './status.js';
import type { Printer } from './table/printers-by-resource.js';
import { BARE_TEXT, errorText, logger } from '../log/log.js';

/** Internal errors (500) of the requests served, as `<method> <url>: <stack>` in text mode. */
const log = logger('apiserver', { text: BARE_TEXT });

/** The user a request runs as (from its client certificate, a token, or impersonation). */
export interface UserInfo {
  name: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** Decides whether a user may do what a request asks; null lets it through. */
export type RequestAuthorizer = (user: UserInfo, info: RequestInfo) => { allowed: boolean; message: string } | null;

/** Serves a resource that is not stored (reviews, tokens, streams); returns false to decline. */
export type VirtualResourceHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  info: ResourceRequestInfo,
  user: UserInfo,
) => Promise<boolean>;

export interface ApiServerOptions {
  store: Store;
  catalog: ResourceCatalog;
  strategyFor: StrategyFor;
  printerFor: (info: ResourceInfo) => Printer;
  /** What `/version` answers; kubectl's dispatcher picks its binary by `minor`. */
  version: Record<string, string>;
  /** host:port clients reach the server at, for `/api`'s serverAddressByClientCIDRs. */
  serverAddress: string;
  /** How often a watch that allows bookmarks gets one (kube-apiserver: about a minute). */
  bookmarkIntervalMs?: number;
  /** Authorization of every request (the devcluster's RBAC); absent: everyone may do everything. */
  authorize?: RequestAuthorizer;
  virtualResources?: VirtualResourceHandler;
  /** Where a namespaced write finds its namespace when the catalog serves no namespaces (the gateway's fixed ones). */
  namespaces?: NamespaceLookup;
  /** Counts the long-running requests and serves them on `GET /metrics` (the devcluster's, as kube-apiserver's). */
  longRunningRequests?: LongRunningRequests;
}

/**
 * The Kubernetes REST API over a store: discovery, OpenAPI, health, version, and every resource
 * in the catalog through the generic registry. Authentication happens before `handle`.
 */
export class ApiServer {
  private readonly registries = new Map<string, GenericRegistry>();
  private readonly openapi: OpenApiHandler;

  constructor(readonly options: ApiServerOptions) {
    this.openapi = new OpenApiHandler(options.catalog);
  }

  /** The registry serving a resource at one version (registries share storage across versions). */
  registryFor(info: ResourceInfo): GenericRegistry {
    const key = `${info.group}/${info.version}/${info.resource}`;
    let registry = this.registries.get(key);
    if (!registry || registry.info !== info) {
      registry = new GenericRegistry(this.options.store, info, this.options.strategyFor(info), (name) =>
        this.lookupNamespace(name),
      );
      this.registries.set(key, registry);
    }
    return registry;
  }

  /** The registry of a group-resource at its first served version. */
  registryOf(group: string, resource: string): GenericRegistry | undefined {
    const info = this.options.catalog.versionsOf(group, resource)[0];
    return info ? this.registryFor(info) : undefined;
  }

  async handle(req: IncomingMessage, res: ServerResponse, user: UserInfo): Promise<void> {
    const url = requestUrl(req.url);
    const path = url.pathname.replace(/\/+$/, '') || '/';
    try {
      const info = parseRequestInfo(req.method ?? 'GET', path, url.searchParams);
      const denied = this.options.authorize?.(user, info);
      if (denied && !denied.allowed) {
        const details = info.isResourceRequest ? { name: info.name, group: info.group, kind: info.resource } : {};
        throw new ApiError(statusOf(403, 'Forbidden', denied.message, details));
      }
      if (this.handleNonResource(req, res, path, url.searchParams)) return;
      if (await this.serveMetrics(req, res, path)) return;
      if (!info.isResourceRequest || !info.resource) throw pathNotFound();
      this.options.longRunningRequests?.track(info, url.searchParams, res);
      if (await this.options.virtualResources?.(req, res, info, user)) return;
      const resource = this.options.catalog.lookup(info.group, info.version, info.resource);
      if (!resource) throw pathNotFound();
      const registry = this.registryFor(resource);
      await handleResource(req, res, info, url.searchParams, {
        store: this.options.store,
        registry,
        printer: this.options.printerFor(resource),
        bookmarkIntervalMs: this.options.bookmarkIntervalMs ?? 60_000,
      });
    } catch (err) {
      const apiError = err instanceof ApiError ? err : toApiError(err);
      if (apiError.code >= 500 && apiError.status.reason === 'InternalError')
        log.error(`${req.method} ${req.url}`, { method: req.method, url: req.url, error: errorText(err) });
      sendStatus(req, res, apiError);
    }
  }

  private handleNonResource(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): boolean {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (path === '/version') {
      sendJson(req, res, 200, this.options.version);
      return true;
    }
    if (path === '/healthz' || path === '/readyz' || path === '/livez') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('ok');
      return true;
    }
    if (this.openapi.handle(req, res, path, query)) return true;
    return handleDiscovery(req, res, path, this.options.catalog, this.options.serverAddress);
  }

  /** `GET /metrics`, when the server counts its long-running requests; RBAC has already allowed it (a nonResourceURL). */
  private async serveMetrics(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const metrics = this.options.longRunningRequests;
    if (!metrics || path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    const { contentType, body } = await metrics.text();
    res.writeHead(200, { 'Content-Type': contentType });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  }

  private async lookupNamespace(name: string) {
    if (this.options.namespaces) return this.options.namespaces(name);
    const registry = this.registryOf('', 'namespaces');
    if (!registry) return null;
    try {
      return (await registry.objects.get('', name)).object;
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return null;
      throw err;
    }
  }
}
