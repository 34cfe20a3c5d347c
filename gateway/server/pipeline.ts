/**
 * The gateway's request pipeline, as kube-apiserver's handler chain: each stage one job, one
 * request record (request-record.ts) passed along (docs/architecture.md, "A request's way
 * through the gateway").
 *
 * Every request: authenticate (auth/authenticate.ts: one authenticator, each kind of credential
 * plugged in) → observe (metrics, the request log, the audit log) → health → the gateway's routes
 * (routes.ts: the admin, whoami, metrics, version, what a tenant may never reach). A tenant's
 * resource request then goes on: tenant context (its cluster, its share of the replica, its
 * kinds) → translate up → route (routes.ts, the tenant path's table) → authorize
 * (auth/tenant-credentials.ts, each cluster's one authorizer) → serve (proxy/, cached/: forward,
 * answer from the cache, stream) → translate back, its failures too.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { onClose, sendStatus } from '../../apiserver/handlers/http-io.js';
import { unauthorized, type ApiError, type Status } from '../../apiserver/status.js';
import type { ClusterRoster } from '../../clusters/cluster-roster.js';
import type { TenantRoster } from '../../tenants/tenant-roster.js';
import { pathNotFoundError, TranslationError } from '../../translate/context.js';
import { requestUp, type TranslatedRequest } from '../../translate/request.js';
import type { Authentication, Authenticator, TenantIdentity } from '../auth/authenticate.js';
import { authorizeUpstream, impersonation } from '../auth/tenant-credentials.js';
import type { TenantCache } from '../cached/tenant-cache.js';
import type { AuditLog } from '../observability/audit-log.js';
import { requesterOf } from '../observability/metrics.js';
import { logWhenClosed, type RequestLogSink } from '../observability/request-log.js';
import { proxyUpgrade, refuseUpgrade } from '../proxy/upgrade-proxy.js';
import type { UpstreamScope } from '../../clusters/upstream-connection.js';
import type { GatewayClusterState } from '../upstream/gateway-cluster-state.js';
import { clusterUnavailableStatus, failureStatus, tenantFailureStatus } from '../upstream/upstream-failure.js';
import { detach } from '../../apiserver/process-faults.js';
import {
  gatewayRoutes,
  requestRoute,
  tenantRoute,
  upgradeRoute,
  type GatewayExchange,
  type GatewayRoutesOptions,
  type TenantRoute,
} from './routes.js';
import { serveHealth, type HealthChecks } from './health-endpoints.js';
import type { OpenStreams } from './open-streams.js';
import { requestRecord, type RequestRecord } from './request-record.js';
import type { ServerDrain } from './server-drain.js';
import { isLongRunning, type TenantLimits } from './tenant-limits.js';
import { TenantRequest, type TenantPathServices } from './tenant-request.js';

/** How often a stream a token opened has the token reviewed again (each review is kept 500 ms). */
const TOKEN_STREAM_REVIEW_MS = 500;

export interface PipelineOptions extends Omit<GatewayRoutesOptions, 'tenant'> {
  authenticator: Authenticator;
  tenants: TenantRoster;
  clusters: ClusterRoster<GatewayClusterState>;
  /** Each tenant's share of this replica (tenant-limits.ts). */
  limits: TenantLimits;
  health: HealthChecks;
  drain: ServerDrain;
  /** What tenants' certificates have open, ended when their tenant stops accepting them. */
  openStreams: OpenStreams;
  /** The audit log (audit-log.ts), when there is one. */
  audit?: AuditLog;
  /** Gets one entry per request when it ends (request-log.ts), when set. */
  onRequest?: RequestLogSink;
  /** Key for sealing continue tokens, the same on every replica. */
  continueKey: Buffer;
  maxRequestBytes?: number;
  /** Reads answered from the cache, when resources are cached for tenants. */
  cache?: TenantCache;
}

export class RequestPipeline {
  private readonly routes;
  private readonly services: TenantPathServices;

  constructor(private readonly options: PipelineOptions) {
    this.routes = gatewayRoutes({ ...options, tenant: this });
    this.services = {
      continueKey: options.continueKey,
      maxRequestBytes: options.maxRequestBytes,
      metrics: options.metrics,
      cache: options.cache,
    };
  }

  /** The server's request handler. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    const started = process.hrtime.bigint();
    const authentication = this.options.authenticator.authenticate(req);
    if (authentication instanceof Promise)
      detach(
        authentication.then((identity) => this.handleAs(req, res, identity, started)),
        'gateway: a request',
      );
    else this.handleAs(req, res, authentication, started);
  }

  /** A request once its credential is known (at once for a certificate, after its review for a token). */
  private handleAs(req: IncomingMessage, res: ServerResponse, authentication: Authentication, started: bigint): void {
    const { health, drain, openStreams } = this.options;
    const record = requestRecord(req, authentication);
    this.observe(record, res, started);
    drain.track(req, res);
    const { identity } = record;
    // Health to anyone who presented no credentials, as kube's anonymous requests get it (probes and
    // balancers present none); credentials the gateway refuses are refused here too, as kube does.
    if ((!('refused' in identity) || identity.anonymous) && serveHealth(req, res, health)) return;
    if ('refused' in identity) return sendStatus(req, res, unauthorized());
    if (identity.kind === 'tenant') {
      openStreams.track(identity, res);
      if (identity.serial === undefined && isLongRunning(record.info)) this.reviewWhileOpen(req, res);
    }
    const exchange = record as GatewayExchange;
    const route = requestRoute(this.routes, exchange);
    if (!route) return;
    const failed = (err: unknown) => {
      if (!res.headersSent)
        sendStatus(req, res, failureStatus(err, `gateway, ${route.name}: ${req.method} ${req.url}`));
    };
    try {
      const serving = route.serve(exchange, res);
      if (serving) serving.catch(failed);
    } catch (err) {
      failed(err);
    }
  }

  /** The server's upgrade handler (exec, attach, port-forward, WebSockets). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const authentication = this.options.authenticator.authenticate(req);
    if (authentication instanceof Promise) {
      // Nothing may be lost from the socket while the token is reviewed.
      socket.pause();
      detach(
        authentication.then((identity) => this.upgradeAs(req, socket, head, identity)),
        'gateway: an upgrade',
      );
    } else this.upgradeAs(req, socket, head, authentication);
  }

  private upgradeAs(req: IncomingMessage, socket: Duplex, head: Buffer, authentication: Authentication): void {
    const { audit, onRequest, drain, openStreams } = this.options;
    const record = requestRecord(req, authentication);
    const { identity } = record;
    let code = 101;
    if (onRequest) logWhenClosed(onRequest, socket, { identity, verb: record.info.verb, url: req.url }, () => code);
    audit?.upgrade(req, socket, identity, () => code);
    const refuse = (status: Status) => {
      code = status.code;
      refuseUpgrade(socket, status);
    };
    if ('refused' in identity) return refuse(unauthorized().status);
    drain.trackUpgrade(socket);
    if (identity.kind === 'tenant') {
      openStreams.track(identity, socket);
      if (identity.serial === undefined) this.reviewWhileOpen(req, socket);
    }
    const exchange = record as GatewayExchange;
    upgradeRoute(this.routes, exchange)?.upgrade?.(exchange, socket, head, refuse);
  }

  /**
   * A token's stream (a watch, an exec session) is reviewed again every TOKEN_STREAM_REVIEW_MS
   * while it is open, and ended once its token is refused: its ServiceAccount or pod deleted
   * upstream, which no change to the Tenant tells (a certificate's streams end with the Tenant's
   * changes: open-streams.ts). Reviews are kept per token, so a client's many streams cost one.
   */
  private reviewWhileOpen(req: IncomingMessage, stream: ServerResponse | Duplex): void {
    const timer = setInterval(() => {
      detach(
        Promise.resolve(this.options.authenticator.authenticate(req)).then((again) => {
          if ('refused' in again) stream.destroy();
        }),
        'gateway: a token stream reviewed again',
      );
    }, TOKEN_STREAM_REVIEW_MS);
    timer.unref();
    stream.once('close', () => clearInterval(timer));
  }

  /** What is seen of every request: counted, logged and audited when it closes. */
  private observe(record: RequestRecord, res: ServerResponse, started: bigint): void {
    const { metrics, audit, onRequest } = this.options;
    const { req, identity, info } = record;
    const verb = info.verb;
    const requester = requesterOf(identity);
    // Counted when it closes, whether its answer ended or the client hung up (as a watch ends):
    // once its head was sent, its code is known; a client gone before any answer got none.
    const watchClosed = verb === 'watch' ? metrics.watchOpened(requester) : undefined;
    onClose(res, () => {
      watchClosed?.();
      if (res.headersSent)
        metrics.requestEnded(
          requester,
          verb,
          res.statusCode,
          Number(process.hrtime.bigint() - started) / 1e9,
          isLongRunning(info),
        );
    });
    if (onRequest) logWhenClosed(onRequest, res, { identity, verb, url: req.url }, () => res.statusCode);
    audit?.request(req, res, identity, info);
  }

  /**
   * A tenant's request past the gateway's routes: on the tenant's cluster, within its tenant's
   * limits (429 beyond them) and counted until it ends.
   */
  async serve(record: RequestRecord<TenantIdentity>, res: ServerResponse): Promise<void> {
    const { req, identity } = record;
    const { limits, metrics } = this.options;
    const cluster = this.clusterOf(identity);
    if (!cluster) return sendStatus(req, res, clusterUnavailableStatus(identity.tenant));
    const upstream = cluster.connection;
    let lease;
    try {
      lease = limits.begin(identity.tenant);
    } catch (err) {
      return sendStatus(req, res, err as ApiError);
    }
    try {
      let scope: UpstreamScope;
      try {
        scope = await upstream.scope();
      } catch (err) {
        // The cluster's discovery could not be read: told as any request's failure to reach the cluster.
        metrics.upstreamFailed(upstream.name, err);
        return sendStatus(req, res, failureStatus(err, `tenant proxy: ${req.method} ${req.url}`));
      }
      const ctx = upstream.tenantContext(identity.tenant);
      const r = new TenantRequest(record, res, ctx, cluster, lease, this.services);
      let route: TenantRoute | undefined;
      try {
        route = await tenantRoute(r, () => this.translate(r, scope));
        if (route.translated) await authorizeUpstream(r, route.fromCache === true);
        await route.serve(r);
      } catch (err) {
        // A reset once the client is gone may be the client's own connection: only the cluster's are counted.
        if (!req.socket.destroyed) metrics.upstreamFailed(upstream.name, err);
        const where = `tenant proxy, ${route?.name ?? 'routing'}: ${req.method} ${req.url}`;
        if (res.headersSent) res.destroy();
        else sendStatus(req, res, tenantFailureStatus(ctx, err, where));
      }
    } finally {
      lease.end();
    }
  }

  /** A tenant's upgrade (exec, attach, port-forward): one of the tenant's streams until its socket closes. */
  upgradeTenant(
    record: RequestRecord<TenantIdentity>,
    socket: Duplex,
    head: Buffer,
    refuse: (status: Status) => void,
  ): void {
    const { req, identity } = record;
    const { tenants, clusters, limits, metrics } = this.options;
    const cluster = tenants.clusterOf(identity.tenant);
    const member = cluster ? clusters.get(cluster) : undefined;
    if (!member) return refuse(clusterUnavailableStatus(identity.tenant));
    const { connection, upgradeTarget: target } = member;
    let lease;
    try {
      lease = limits.begin(identity.tenant);
      lease.openStream();
    } catch (err) {
      lease?.end();
      return refuse((err as ApiError).status);
    }
    socket.once('close', () => lease.end());
    detach(
      connection.scope().then(
        () =>
          proxyUpgrade(
            req,
            socket,
            head,
            connection.tenantContext(identity.tenant),
            impersonation(identity),
            target,
            (err) => metrics.upstreamFailed(member.name, err),
          ),
        (err: unknown) => {
          metrics.upstreamFailed(member.name, err);
          refuse(failureStatus(err, `upgrade: ${req.method} ${req.url}`));
        },
      ),
      `tenant ${identity.tenant} upgrade ${req.method} ${req.url}`,
    );
  }

  /** The tenant's cluster, where the tenant lives now: its connection and what the gateway keeps of it. */
  private clusterOf(identity: TenantIdentity): GatewayClusterState | undefined {
    const cluster = this.options.tenants.clusterOf(identity.tenant);
    return cluster ? this.options.clusters.get(cluster)?.state : undefined;
  }

  /** The request translated up, counted as one of the tenant's streams when it is long-running. */
  private async translate(r: TenantRequest, scope: UpstreamScope): Promise<void> {
    const up = () => r.metrics.time('up', () => requestUp(r.ctx, r.method, r.path, r.url.searchParams, r.info));
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
  }
}
