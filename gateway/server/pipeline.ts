import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendStatus } from '../../apiserver/handlers/http-io.js';
import type { ApiError } from '../../apiserver/status.js';
import { requestUrl } from '../../apiserver/request-info.js';
import { pathNotFoundError, tenantContext, TranslationError } from '../../translate/context.js';
import { requestUp, type TranslatedRequest } from '../../translate/request.js';
import type { TenantCache } from '../cached/tenant-cache.js';
import { credentialsFor } from '../auth/tenant-credentials.js';
import { isLongRunning, type TenantLimits } from './tenant-limits.js';
import { TenantRequest, type TenantIdentity, type TenantPathServices } from './tenant-request.js';
import { TENANT_ROUTES, type TenantRoute } from './tenant-routes.js';
import { tenantKindScope, type UpstreamConnection, type UpstreamScope } from '../upstream/upstream-connection.js';
import { failureStatus, tenantFailureStatus } from '../upstream/upstream-failure.js';
import { WatchLineMemo } from '../proxy/watch-lines.js';
import type { GatewayMetrics } from '../observability/metrics.js';

export interface TenantProxyOptions {
  /** Key for sealing continue tokens, the same on every replica. */
  continueKey: Buffer;
  maxRequestBytes?: number;
  metrics: GatewayMetrics;
  /** Each tenant's share of this replica (tenant-limits.ts). */
  limits: TenantLimits;
  /** Reads answered from the cache, when resources are cached for tenants. */
  cache?: TenantCache;
}

/**
 * The tenant path of the gateway: every request translated up (translate/), forwarded to the
 * tenant's cluster with the cluster's credentials and the tenant user's identity as
 * impersonation headers, and every response translated down — objects, lists in full pages,
 * Tables, watch streams line by line, Status errors, discovery and OpenAPI. Which module answers
 * a request is the routing table's choice (tenant-routes.ts).
 */
export class TenantProxy {
  private readonly watchLineMemos = new WeakMap<UpstreamConnection, WatchLineMemo>();
  private readonly services: TenantPathServices;

  constructor(private readonly options: TenantProxyOptions) {
    this.services = {
      continueKey: options.continueKey,
      maxRequestBytes: options.maxRequestBytes,
      metrics: options.metrics,
      watchLineMemo: (upstream) => this.watchLineMemo(upstream),
      cache: options.cache,
    };
  }

  /** A tenant request, admitted within its tenant's limits (429 beyond them) and counted until it ends. */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    identity: TenantIdentity,
    upstream: UpstreamConnection,
  ): Promise<void> {
    let lease;
    try {
      lease = this.options.limits.begin(identity.tenant);
    } catch (err) {
      return sendStatus(req, res, err as ApiError);
    }
    try {
      let scope: UpstreamScope;
      try {
        scope = await upstream.scope();
      } catch (err) {
        // The cluster's discovery could not be read: told as any request's failure to reach the cluster.
        this.options.metrics.upstreamFailed(upstream.name, err);
        return sendStatus(req, res, failureStatus(err, `tenant proxy: ${req.method} ${req.url}`));
      }
      const ctx = tenantContext(identity.tenant, tenantKindScope(scope, identity.tenant));
      const r = new TenantRequest(req, res, identity, ctx, upstream, lease, requestUrl(req.url), this.services);
      let route: TenantRoute | undefined;
      try {
        route = await this.routeFor(r, scope);
        await route.serve(r);
      } catch (err) {
        // A reset once the client is gone may be the client's own connection: only the cluster's are counted.
        if (!req.socket.destroyed) this.options.metrics.upstreamFailed(upstream.name, err);
        const where = `tenant proxy, ${route?.name ?? 'routing'}: ${req.method} ${req.url}`;
        if (res.headersSent) res.destroy();
        else sendStatus(req, res, tenantFailureStatus(ctx, err, where));
      }
    } finally {
      lease.end();
    }
  }

  /** The first route that matches; the request is translated before the first route that reads it translated. */
  private async routeFor(r: TenantRequest, scope: UpstreamScope): Promise<TenantRoute> {
    let translated = false;
    for (const route of TENANT_ROUTES) {
      if (route.translated && !translated) {
        await this.translate(r, scope);
        translated = true;
      }
      if (route.matches(r)) return route;
    }
    throw pathNotFoundError();
  }

  /** The request translated up, counted as one of the tenant's streams when it is long-running, and its credentials chosen. */
  private async translate(r: TenantRequest, scope: UpstreamScope): Promise<void> {
    const up = () => r.metrics.time('up', () => requestUp(r.ctx, r.method, r.path, r.url.searchParams));
    let t: TranslatedRequest | null;
    try {
      t = up();
    } catch (err) {
      // A resource the cached discovery does not know may be a CRD created a moment ago.
      if (!(err instanceof TranslationError && err.code === 404)) throw err;
      await scope.refresh();
      t = up();
    }
    if (!t) throw pathNotFoundError();
    r.translatedAs(t);
    if (isLongRunning(t.info)) r.lease.openStream();
    r.headers = { ...(await credentialsFor(r)) };
  }

  private watchLineMemo(upstream: UpstreamConnection): WatchLineMemo {
    let memo = this.watchLineMemos.get(upstream);
    if (!memo) this.watchLineMemos.set(upstream, (memo = new WatchLineMemo()));
    return memo;
  }
}
