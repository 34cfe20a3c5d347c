import type { IncomingMessage, ServerResponse } from 'node:http';
import { onClose } from '../../apiserver/handlers/http-io.js';
import type { RequestInfo } from '../../apiserver/request-info.js';
import type { TenantContext } from '../../translate/context.js';
import type { TranslatedRequest } from '../../translate/request.js';
import type { RowKind } from '../../translate/table.js';
import type { TenantIdentity } from '../auth/authenticate.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { TenantCache } from '../cached/tenant-cache.js';
import type { TenantRequestLease } from './tenant-limits.js';
import type { UpstreamResponse } from '../../clusters/cluster-connection.js';
import type { UpstreamConnection, WholeUpstreamResponse } from '../../clusters/upstream-connection.js';
import type { GatewayClusterState } from '../upstream/gateway-cluster-state.js';
import { tenantClaim, type SeatClaim } from '../../clusters/upstream-seats.js';
import {
  storedBindingsPath,
  storedBindingsRequest,
  storedBindingsWatch,
  storedBindingsWhole,
} from '../proxy/stored-cluster-role-bindings.js';
import type { RequestRecord } from './request-record.js';

export type { TenantIdentity };
export type UpstreamHeaders = Record<string, string | string[]>;

/** Whether the cache may answer a read: the cluster would allow it, would not, or could not be asked. */
export type CacheDecision = 'allowed' | 'denied' | 'unavailable';

/** What every tenant request shares: the replica's settings and services. */
export interface TenantPathServices {
  /** Key for sealing continue tokens, the same on every replica. */
  continueKey: Buffer;
  maxRequestBytes?: number;
  metrics: GatewayMetrics;
  /** Reads answered from the cache (tenant-cache.ts); absent when no resource is cached for tenants. */
  cache?: TenantCache;
}

/**
 * One tenant request on its way through the pipeline (pipeline.ts): the request record (the
 * HTTP exchange, its request info, who asks), the tenant's context, its cluster (its connection
 * and what the gateway keeps of it: gateway-cluster-state.ts), the share of its
 * tenant's limits it holds, and — once translated up and authorized — the upstream request and
 * the credentials it goes with. Every stage of the tenant path takes this one object, so a new way
 * of answering (from a cache) needs nothing the others lack.
 */
export class TenantRequest {
  readonly req: IncomingMessage;
  readonly url: URL;
  /** The request's path without its trailing slashes. */
  readonly path: string;
  readonly identity: TenantIdentity;
  /** kube's request info of the path as the tenant sent it (request-record.ts). */
  readonly info: RequestInfo;
  private translation: TranslatedRequest | undefined;
  /** The headers upstream requests carry first: the credentials (the authorization stage's), accept, content type. */
  headers: UpstreamHeaders = {};
  /** The body as it goes upstream (writes and deletes). */
  body: string | Buffer | undefined;
  /** `includeObject=None` asked: upstream is asked for Metadata, so foreign rows can be told apart, and the objects dropped here. */
  wantsNoObject = false;
  /** For a read the cache answers, the authorization stage's decision on it (auth/tenant-credentials.ts). */
  cacheDecision: CacheDecision | undefined;
  private claim: SeatClaim | undefined;
  /** The tenant's cluster's connection (`cluster.connection`). */
  readonly upstream: UpstreamConnection;

  constructor(
    record: RequestRecord<TenantIdentity>,
    readonly res: ServerResponse,
    readonly ctx: TenantContext,
    readonly cluster: GatewayClusterState,
    readonly lease: TenantRequestLease,
    readonly services: TenantPathServices,
  ) {
    this.req = record.req;
    this.url = record.url;
    this.path = record.path;
    this.identity = record.identity;
    this.info = record.info;
    this.upstream = cluster.connection;
  }

  get method(): string {
    return this.req.method ?? 'GET';
  }

  get metrics(): GatewayMetrics {
    return this.services.metrics;
  }

  /** The request as it goes upstream; set once by `translatedAs()`. */
  get t(): TranslatedRequest {
    if (!this.translation) throw new Error('the tenant request is not translated yet');
    return this.translation;
  }

  translatedAs(t: TranslatedRequest): void {
    this.translation = t;
  }

  /** The kind of the rows of a Table answer. */
  get rowKind(): RowKind {
    return { group: this.t.info.group, kind: this.t.kind, namespaced: this.t.namespaced };
  }

  /** The request's claim on its cluster's seats: its tenant's flow, out of the queue when the client goes away. */
  get seatClaim(): SeatClaim {
    return (this.claim ??= tenantClaim(this.identity.tenant, (cancel) => onClose(this.res, cancel)));
  }

  /** One upstream request on the short-request pool, in one of its tenant's seats, its latency recorded under `verb`. */
  upstreamRequest(
    verb: string,
    method: string,
    path: string,
    headers: UpstreamHeaders,
    body?: string | Buffer,
  ): Promise<UpstreamResponse> {
    const call = (sent: string, sentHeaders: UpstreamHeaders, sentBody?: string | Buffer) =>
      this.metrics.upstream(this.upstream.name, verb, (seated) =>
        this.upstream.request(method, sent, sentHeaders, sentBody, undefined, { ...this.seatClaim, seated }),
      );
    const stored = storedBindingsPath(this.ctx, path);
    return stored === undefined
      ? call(path, headers, body)
      : storedBindingsRequest(this.ctx, stored, headers, body, call);
  }

  /** The same, its answer read whole (UpstreamConnection.requestWhole); timed to the answer's end, which for one object is its headers' moment. */
  upstreamWhole(
    verb: string,
    method: string,
    path: string,
    headers: UpstreamHeaders,
    body?: string | Buffer,
  ): Promise<WholeUpstreamResponse> {
    const call = (sent: string, sentHeaders: UpstreamHeaders, sentBody?: string | Buffer) =>
      this.metrics.upstream(this.upstream.name, verb, (seated) =>
        this.upstream.requestWhole(method, sent, sentHeaders, sentBody, { ...this.seatClaim, seated }),
      );
    const stored = storedBindingsPath(this.ctx, path);
    return stored === undefined
      ? call(path, headers, body)
      : storedBindingsWhole(this.ctx, stored, headers, body, call);
  }

  /** A watch upstream on the stream pool (no seat: long-running), its latency recorded as `watch`. */
  upstreamWatch(path: string, headers: UpstreamHeaders): Promise<UpstreamResponse> {
    const call = (sent: string, sentHeaders: UpstreamHeaders) =>
      this.metrics.upstream(this.upstream.name, 'watch', () => this.upstream.stream(sent, sentHeaders));
    const stored = storedBindingsPath(this.ctx, path);
    return stored === undefined ? call(path, headers) : storedBindingsWatch(this.ctx, stored, headers, call);
  }
}

export function pathWithQuery(path: string, query: URLSearchParams): string {
  const q = query.toString();
  return q ? `${path}?${q}` : path;
}
