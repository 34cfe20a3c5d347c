import { createSecureContext } from 'node:tls';
import { Pool } from 'undici';
import { parseServerCredentials } from '../certs/index.js';
import {
  groupUp,
  tenantContext,
  tenantPrefix,
  type KindScope,
  type PodApi,
  type TenantContext,
} from '../translate/context.js';
import { RestClient } from '../apiserver/client/rest-client.js';
import { dispatchWhole } from '../apiserver/client/whole-answer.js';
import { readAhead } from './read-ahead.js';
import { countRestWatch, countStreamedWatch, type UpstreamWatchOpened } from './upstream-watches.js';
import { GATEWAY_CLAIM, UpstreamSeats, type SeatClaim } from './upstream-seats.js';
import type { ClusterConnection, UpstreamResponse } from './cluster-connection.js';

/** An answer read whole: its text, collected as it came (`UpstreamConnection.requestWhole`). */
export interface WholeUpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

interface ResourceEntry {
  namespaced: boolean;
  kind: string;
}

/**
 * The connection to one cluster, as the cluster roster keeps it (cluster-roster.ts): an undici
 * connection pool with the cluster's own credentials (tenants' requests run as tenant users through
 * impersonation headers), shared by seats (upstream-seats.ts) and read ahead (read-ahead.ts), a
 * pool of its own for long-running requests, the REST client of the gateway itself, and a cache of
 * the cluster's discovery — which resources are namespaced and what kinds they serve, and the
 * discovery documents themselves — refreshed when stale or when a lookup misses (a CRD was just
 * created) and dropped whenever a CRD changes through the gateway. What the layers above keep per
 * cluster (informers, indexes, authorizers) is theirs, made by the roster's `attach`.
 */
export class UpstreamConnection implements ClusterConnection {
  private readonly pool: Pool;
  /** Watches and followed logs hold a connection for minutes: they get their own, unbounded, pool so they can never starve short requests. */
  private readonly streams: Pool;
  private resources = new Map<string, ResourceEntry>();
  private kinds = new Map<string, boolean>();
  /** When the discovery held now began to be read; 0 once it is invalidated. */
  private fetchedAt = 0;
  /** Counts invalidations: a read that began before the latest one may miss what it was for. */
  private generation = 0;
  private refreshing: { promise: Promise<void>; generation: number } | undefined;
  private readonly documents = new Map<string, Promise<{ status: number; contentType: string; body: string }>>();
  /** The cluster as the gateway itself (no impersonation): grants, and requests the gateway authorized. */
  readonly admin: RestClient;
  /** The cluster's bearer token, for a cluster reached with one rather than a client certificate. */
  private readonly authorization: Record<string, string>;
  /** The cached discovery as `scope()` gives it: one object, which reads the maps as they are now. */
  private readonly view: UpstreamScope = {
    resource: (group, resource) => this.resources.get(`${group}/${resource}`),
    kindIsNamespaced: (group, kind) => this.kinds.get(`${group}/${kind}`),
    refresh: () => this.refresh(1000),
  };
  /** Each tenant's context over the view, made on its first request; forgotten when discovery is read again, so only recent tenants are kept. */
  private readonly contexts = new Map<string, TenantContext>();

  constructor(
    readonly name: string,
    kubeconfig: string,
    private readonly timeoutMs = 60_000,
    /** What bounds and shares the pool (upstream-seats.ts): a short request takes a seat first. */
    readonly seats = new UpstreamSeats(name),
    /** Told of every watch opened on the cluster, through the REST client or the stream pool (upstream-watches.ts). */
    private readonly watchOpened?: UpstreamWatchOpened,
    /** Where the tenants' pods on this cluster reach the gateway, once it listens (translate/kinds/pod-api.ts). */
    private readonly podApi: () => PodApi | undefined = () => undefined,
  ) {
    const parsed = parseServerCredentials(kubeconfig);
    this.authorization = parsed.token ? { authorization: `Bearer ${parsed.token}` } : {};
    this.admin = RestClient.fromKubeconfig(
      kubeconfig,
      watchOpened && ((method, path, req) => countRestWatch(watchOpened, method, path, req)),
    );
    const origin = new URL(parsed.server).origin;
    // One TLS context for every connection to the cluster: given the PEMs, each new connection
    // built its own (15% of the gateway's CPU while watches were being opened).
    const connect = {
      secureContext: createSecureContext({ ca: parsed.caPem, cert: parsed.certPem, key: parsed.keyPem }),
      rejectUnauthorized: !parsed.insecureSkipTlsVerify,
    };
    this.pool = new Pool(origin, {
      connections: seats.connections,
      connect,
      headersTimeout: timeoutMs,
      bodyTimeout: 0,
    });
    this.streams = new Pool(origin, { connect, headersTimeout: timeoutMs, bodyTimeout: 0 });
  }

  async request(
    method: string,
    path: string,
    headers: Record<string, string | string[]>,
    body?: string | Buffer,
    timeoutMs?: number,
    claim: SeatClaim = GATEWAY_CLAIM,
  ): Promise<UpstreamResponse> {
    const seat = await this.seats.acquire(claim);
    try {
      return readAhead(
        await this.send(this.pool, method, path, headers, body, timeoutMs ?? this.timeoutMs),
        seat.release,
      );
    } catch (err) {
      seat.release();
      throw err;
    }
  }

  /** A request whose answer is read whole (a get: whole-answer.ts), holding its seat until it is read. */
  async requestWhole(
    method: string,
    path: string,
    headers: Record<string, string | string[]>,
    body?: string | Buffer,
    claim: SeatClaim = GATEWAY_CLAIM,
  ): Promise<WholeUpstreamResponse> {
    const seat = await this.seats.acquire(claim);
    try {
      return await dispatchWhole(this.pool, {
        method,
        path,
        headers: this.upstreamHeaders(headers),
        body,
        headersTimeout: this.timeoutMs,
      });
    } finally {
      seat.release();
    }
  }

  /** A long-lived response (watch, followed log, proxied workload), on the stream pool; its headers may come late (a log waits for its container). */
  async stream(
    path: string,
    headers: Record<string, string | string[]>,
    method = 'GET',
    body?: Buffer,
  ): Promise<UpstreamResponse> {
    return this.send(this.streams, method, path, headers, body, 0);
  }

  private async send(
    pool: Pool,
    method: string,
    path: string,
    headers: Record<string, string | string[]>,
    body: string | Buffer | undefined,
    headersTimeout: number,
  ): Promise<UpstreamResponse> {
    const res = await pool.request({
      method: method,
      path,
      headers: this.upstreamHeaders(headers),
      body,
      headersTimeout,
    });
    if (this.watchOpened) countStreamedWatch(this.watchOpened, method, path, res.statusCode, res.body);
    return { status: res.statusCode, headers: res.headers, body: res.body as unknown as UpstreamResponse['body'] };
  }

  /** The request's headers as they go upstream: uncompressed answers, the gateway's own credentials. */
  private upstreamHeaders(headers: Record<string, string | string[]>): Record<string, string | string[]> {
    return { 'accept-encoding': 'identity', ...headers, ...this.authorization };
  }

  /** Where the tenants' pods on this cluster reach the gateway now, if it says. */
  podApiNow(): PodApi | undefined {
    return this.podApi();
  }

  /** The scope of upstream resources, keyed by upstream group. */
  async scope(): Promise<UpstreamScope> {
    if (Date.now() - this.fetchedAt > 30_000) await this.refresh();
    return this.view;
  }

  /** The tenant's TenantContext on this cluster (its kinds: tenantKindScope), made once, not per request. */
  tenantContext(tenantId: string): TenantContext {
    let ctx = this.contexts.get(tenantId);
    if (!ctx) {
      const podApi = this.podApi;
      // Read when used: the gateway's address is known once it listens, and a context may be made before.
      ctx = {
        ...tenantContext(tenantId, tenantKindScope(this.view, tenantId)),
        get podApi() {
          return podApi();
        },
      };
      this.contexts.set(tenantId, ctx);
    }
    return ctx;
  }

  /** A discovery or OpenAPI document, cached until the next invalidation. */
  document(path: string, accept: string): Promise<{ status: number; contentType: string; body: string }> {
    const key = `${accept}\n${path}`;
    let cached = this.documents.get(key);
    if (!cached) {
      cached = this.request('GET', path, { accept }).then(async (res) => ({
        status: res.status,
        contentType: String(res.headers['content-type'] ?? 'application/json'),
        body: await res.body.text(),
      }));
      cached.catch(() => this.documents.delete(key));
      this.documents.set(key, cached);
    }
    return cached;
  }

  /** Forget discovery: a CRD was created, changed or deleted. */
  invalidate(): void {
    this.generation++;
    this.fetchedAt = 0;
    this.documents.clear();
  }

  async close(): Promise<void> {
    this.seats.close();
    this.admin.close();
    await Promise.all([this.pool.close(), this.streams.close()]);
  }

  /** Close at once, cutting whatever is open (a watch, a log stream): the cluster was removed or its credentials changed. */
  async destroy(): Promise<void> {
    this.seats.close();
    this.admin.close();
    await Promise.all([this.pool.destroy(), this.streams.destroy()]);
  }

  /**
   * Re-read discovery, at most once per `minAgeMs` unless invalidated since. A read in flight that
   * began before the latest invalidation is followed by another, so the caller sees the change.
   */
  private refresh(minAgeMs = 0): Promise<void> {
    if (Date.now() - this.fetchedAt < minAgeMs) return Promise.resolve();
    const inFlight = this.refreshing;
    if (inFlight?.generation === this.generation) return inFlight.promise;
    const generation = this.generation;
    const promise = (inFlight?.promise.catch(() => undefined) ?? Promise.resolve())
      .then(() => this.readDiscovery(generation))
      .finally(() => {
        if (this.refreshing?.promise === promise) this.refreshing = undefined;
      });
    this.refreshing = { promise, generation };
    return promise;
  }

  private async readDiscovery(generation: number): Promise<void> {
    const startedAt = Date.now();
    const getJson = async (path: string) => {
      const res = await this.request('GET', path, { accept: 'application/json' });
      const text = await res.body.text();
      return res.status === 200 ? JSON.parse(text) : undefined;
    };
    const resources = new Map<string, ResourceEntry>();
    const kinds = new Map<string, boolean>();
    const groupVersions: [string, string][] = [['', '/api/v1']];
    for (const group of (await getJson('/apis'))?.groups ?? []) {
      for (const version of group.versions ?? []) groupVersions.push([group.name, `/apis/${version.groupVersion}`]);
    }
    await Promise.all(
      groupVersions.map(async ([group, path]) => {
        for (const resource of (await getJson(path))?.resources ?? []) {
          if (String(resource.name).includes('/')) continue;
          if (!resources.has(`${group}/${resource.name}`))
            resources.set(`${group}/${resource.name}`, { namespaced: resource.namespaced, kind: resource.kind });
          kinds.set(`${group}/${resource.kind}`, resource.namespaced);
        }
      }),
    );
    this.resources = resources;
    this.kinds = kinds;
    // Invalidated while reading: what was read may predate the change, so the next lookup reads again.
    this.fetchedAt = generation === this.generation ? startedAt : 0;
    this.documents.clear();
    this.contexts.clear();
  }
}

export interface UpstreamScope {
  resource(group: string, resource: string): ResourceEntry | undefined;
  kindIsNamespaced(group: string, kind: string): boolean | undefined;
  refresh(): Promise<void>;
}

/** The tenant's KindScope over the upstream scope: tenant groups are looked up with their prefix. */
function tenantKindScope(scope: UpstreamScope, tenantId: string): KindScope {
  const tenant = tenantPrefix(tenantId);
  return {
    kindIsNamespaced: (group, kind) => scope.kindIsNamespaced(groupUp(tenant, group), kind),
    resourceIsNamespaced: (group, resource) => scope.resource(groupUp(tenant, group), resource)?.namespaced,
    kindOf: (group, resource) => scope.resource(groupUp(tenant, group), resource)?.kind,
  };
}
