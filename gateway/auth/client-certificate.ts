/**
 * Client certificates, the gateway's first kind of credential (authenticate.ts): a certificate
 * that chains to the CA (docs/design.md, "Identity"), then
 * - OU[0] a tenant id and CN `<OU[0]>-…` → that tenant's user, if the tenant exists, is Active
 *   and still accepts the certificate's serial;
 * - O `system:masters` and no OU → the admin;
 * - anything else → refused (401), with the reason for the log.
 * The tenant's state and the serial are checked on every request, so a revocation takes effect
 * on open connections too; requests and upgraded sessions already running are checked again
 * on every change to their tenant (gateway/server/open-streams.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { identityFromPeerCertificate } from '../../certs/index.js';
import { isTenantId } from '../../tenants/tenant-resource.js';
import type { TenantRoster } from '../../tenants/tenant-roster.js';
import { hasPrefix, tenantPrefix } from '../../translate/context.js';
import type { Authentication, CredentialKind, Identity, Refusal } from './authenticate.js';

/**
 * A connection's certificate cannot change, so it is decoded once per socket, not per request (it
 * was a tenth of a GET's CPU), into the identity every request on it shares, or null for none (a
 * token's connection); only the tenant's admission is asked again per request.
 */
const bySocket = new WeakMap<TLSSocket, Identity | Refusal | null>();

export function clientCertificates(tenants: TenantRoster): CredentialKind {
  return {
    name: 'client certificate',
    authenticate(req: IncomingMessage): Authentication | undefined {
      const socket = req.socket as TLSSocket;
      let identity = bySocket.get(socket);
      if (identity === undefined) {
        // Decoded once: each call decodes the certificate anew, with its three fingerprints.
        const peer = socket.getPeerCertificate();
        // Not `authorized` first: Node calls a resumed TLS 1.3 session authorized though it holds no
        // certificate (a resumption looks like PSK), and HAProxy resumes its health checks' sessions.
        identity = presentedNoCertificate(peer) ? null : certificateIdentity(socket, peer);
        bySocket.set(socket, identity);
      }
      if (identity === null) return undefined;
      if ('refused' in identity || identity.kind === 'admin') return identity;
      const refusal = tenants.refusal(identity.tenant, identity.serial);
      return refusal === null ? identity : { refused: refusal };
    },
  };
}

function certificateIdentity(socket: TLSSocket, peer: PeerCertificate): Identity | Refusal {
  if (!socket.authorized)
    return { refused: `client certificate not verified: ${String(socket.authorizationError ?? 'none presented')}` };
  let certificate;
  try {
    certificate = identityFromPeerCertificate(peer);
  } catch (err) {
    return { refused: (err as Error).message };
  }
  const tenant = certificate.organizationalUnits[0];
  if (tenant !== undefined) {
    if (!isTenantId(tenant) || !hasPrefix(tenantPrefix(tenant), certificate.user))
      return { refused: `certificate of ${certificate.user} names no tenant it belongs to` };
    return { kind: 'tenant', tenant, user: certificate.user, groups: certificate.groups, serial: certificate.serial };
  }
  if (certificate.groups.includes('system:masters'))
    return { kind: 'admin', user: certificate.user, groups: certificate.groups };
  return { refused: `certificate of ${certificate.user} is neither a tenant's nor an administrator's` };
}

/** Whether the client presented no certificate at all (kube-apiserver's anonymous request), rather than one that failed. */
function presentedNoCertificate(peer: PeerCertificate): boolean {
  return Object.keys(peer).length === 0;
}
