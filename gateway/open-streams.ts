/** What a tenant's certificate has open: an HTTP response (watch, followed log, proxy) or an upgraded socket (exec, attach, port-forward). */
export interface Closable {
  destroy(): unknown;
  once(event: 'close', listener: () => void): unknown;
}

interface OpenStream {
  serial: string;
  stream: Closable;
}

/**
 * Every request and upgraded connection a tenant certificate has open on this replica, by
 * tenant. A request is authenticated once, when it starts; a watch or an exec session can then
 * run for hours. So when the tenant roster reports a change to a tenant (a rotation, a
 * revocation, Terminating, deleted), each of its open streams is checked again with the same
 * rule as a new request, and the refused ones are cut off at once — no polling per stream.
 * Destroying a response or socket ends the upstream side too (its 'close' hangs it up).
 */
export class OpenStreams {
  private readonly byTenant = new Map<string, Set<OpenStream>>();

  constructor(private readonly refusal: (tenantId: string, serial: string) => string | null) {}

  /** Keeps `stream` until it closes, so that a change to its tenant can end it. */
  track(identity: { tenant: string; serial: string }, stream: Closable): void {
    let streams = this.byTenant.get(identity.tenant);
    if (!streams) this.byTenant.set(identity.tenant, (streams = new Set()));
    const entry = { serial: identity.serial, stream };
    streams.add(entry);
    stream.once('close', () => {
      streams.delete(entry);
      if (streams.size === 0 && this.byTenant.get(identity.tenant) === streams) this.byTenant.delete(identity.tenant);
    });
  }

  /** Ends every open stream of the tenant whose certificate is no longer accepted. */
  recheck(tenantId: string): void {
    const streams = this.byTenant.get(tenantId);
    if (!streams) return;
    for (const entry of streams) {
      if (this.refusal(tenantId, entry.serial) !== null) entry.stream.destroy();
    }
  }
}
