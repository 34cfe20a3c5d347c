import type { TLSSocket } from 'node:tls';
import { identityFromPeerCertificate } from '../../certs/index.js';
import { isTenantId } from '../../tenants/tenant-resource.js';
import { hasPrefix, tenantPrefix } from '../../translate/context.js';
import type { TenantRoster } from '../../tenants/tenant-roster.js';

export type Identity =
  | { kind: 'admin'; user: string; groups: string[] }
  | { kind: 'tenant'; tenant: string; user: string; groups: string[]; serial: string };

export type AdminIdentity = Extract<Identity, { kind: 'admin' }>;

type CertificateIdentity = ReturnType<typeof identityFromPeerCertificate>;

/** A connection's certificate cannot change, so it is decoded once per socket, not per request (it was a tenth of a GET's CPU). */
const bySocket = new WeakMap<TLSSocket, CertificateIdentity | { refused: string }>();

function certificateIdentity(socket: TLSSocket): CertificateIdentity | { refused: string } {
  let identity = bySocket.get(socket);
  if (!identity) {
    try {
      identity = identityFromPeerCertificate(socket.getPeerCertificate());
    } catch (err) {
      identity = { refused: (err as Error).message };
    }
    bySocket.set(socket, identity);
  }
  return identity;
}

/** Whether the client presented no certificate at all (kube-apiserver's anonymous request), rather than one that failed. */
export function presentedNoCertificate(socket: TLSSocket): boolean {
  return Object.keys(socket.getPeerCertificate()).length === 0;
}

/**
 * Who a request is (docs/design.md, "Identity"): a client certificate that chains to the CA, then
 * - OU[0] a tenant id and CN `<OU[0]>-…` → that tenant's user, if the tenant exists, is Active
 *   and still accepts the certificate's serial;
 * - O `system:masters` and no OU → the admin;
 * - anything else → refused (401), with the reason for the log.
 * The tenant's state and the serial are checked on every request, so a revocation takes effect
 * on open connections too; requests and upgraded sessions already running are checked again
 * on every change to their tenant (open-streams.ts).
 */
export function authenticate(socket: TLSSocket, tenants: TenantRoster): Identity | { refused: string } {
  if (!socket.authorized)
    return { refused: `client certificate not verified: ${String(socket.authorizationError ?? 'none presented')}` };
  const identity = certificateIdentity(socket);
  if ('refused' in identity) return identity;
  const tenant = identity.organizationalUnits[0];
  if (tenant !== undefined) {
    if (!isTenantId(tenant) || !hasPrefix(tenantPrefix(tenant), identity.user))
      return { refused: `certificate of ${identity.user} names no tenant it belongs to` };
    const refusal = tenants.refusal(tenant, identity.serial);
    if (refusal) return { refused: refusal };
    return { kind: 'tenant', tenant, user: identity.user, groups: identity.groups, serial: identity.serial };
  }
  if (identity.groups.includes('system:masters'))
    return { kind: 'admin', user: identity.user, groups: identity.groups };
  return { refused: `certificate of ${identity.user} is neither a tenant's nor an administrator's` };
}
