import type { ServerResponse } from 'node:http';

/** What a tenant's certificate has open: an HTTP response (watch, followed log, proxy) or an upgraded socket (exec, attach, port-forward). */
export interface Closable {
  destroy(): unknown;
  once(event: 'close', listener: () => void): unknown;
}

interface OpenStream {
  serial?: string;
  /** The cluster the tenant lived on when the stream opened. */
  cluster: string | undefined;
  stream: Closable;
}

/** What a tenant's open streams are checked against. */
export interface StreamRules {
  /** Why the certificate (or, with no serial, a token of the tenant) is refused now, or null. */
  refusal(tenantId: string, serial?: string): string | null;
  /** Where the tenant lives now. */
  clusterOf(tenantId: string): string | undefined;
}

/**
 * kube's answer to a watch whose history is gone: the client lists again, then watches from the
 * list's version. A tenant moved to another cluster (eviction/) is in that state: the old
 * cluster's resourceVersions mean nothing on the new one. The message names no cluster: tenants
 * do not see them.
 */
const MOVED_EVENT = `${JSON.stringify({
  type: 'ERROR',
  object: {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: "too old resource version: the tenant's objects moved; list them again",
    reason: 'Expired',
    code: 410,
  },
})}\n`;

/**
 * Every request and upgraded connection a tenant certificate has open on this replica, by
 * tenant. A request is authenticated once, when it starts; a watch or an exec session can then
 * run for hours. So when the tenant roster reports a change to a tenant (a rotation, a
 * revocation, Terminating, deleted, moved to another cluster), each of its open streams is
 * checked again with the same rule as a new request, and the refused ones are cut off at once —
 * no polling per stream. Destroying a response or socket ends the upstream side too (its 'close'
 * hangs it up). A tenant moved elsewhere has its watches ended with 410 Expired, so that clients
 * list again there, and its other streams (exec, logs: of the old cluster's Pods) cut.
 */
export class OpenStreams {
  private readonly byTenant = new Map<string, Set<OpenStream>>();

  constructor(private readonly rules: StreamRules) {}

  /** Keeps `stream` until it closes, so that a change to its tenant can end it. */
  track(identity: { tenant: string; serial?: string }, stream: Closable): void {
    let streams = this.byTenant.get(identity.tenant);
    if (!streams) this.byTenant.set(identity.tenant, (streams = new Set()));
    const entry = { serial: identity.serial, cluster: this.rules.clusterOf(identity.tenant), stream };
    streams.add(entry);
    stream.once('close', () => {
      streams.delete(entry);
      if (streams.size === 0 && this.byTenant.get(identity.tenant) === streams) this.byTenant.delete(identity.tenant);
    });
  }

  /** Ends every open stream of the tenant whose certificate is no longer accepted, or that reads a cluster it left. */
  recheck(tenantId: string): void {
    const streams = this.byTenant.get(tenantId);
    if (!streams) return;
    const cluster = this.rules.clusterOf(tenantId);
    for (const entry of streams) {
      if (this.rules.refusal(tenantId, entry.serial) !== null) entry.stream.destroy();
      else if (entry.cluster !== undefined && entry.cluster !== cluster) endMoved(entry.stream);
    }
  }
}

function endMoved(stream: Closable): void {
  const res = stream as Partial<ServerResponse>;
  const watch = res.req?.url !== undefined && /[?&]watch=(1|true)(&|$)/.test(res.req.url);
  if (watch && res.headersSent && !res.writableEnded && res.write && res.end) {
    res.write(MOVED_EVENT);
    res.end();
  } else stream.destroy();
}
