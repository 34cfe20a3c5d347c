import { X509Certificate } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';

/** Who a client certificate says its holder is, read the way kube-apiserver reads it. */
export interface ClientIdentity {
  /** CN. */
  user: string;
  /** Every O, in certificate order. */
  groups: string[];
  /** Every OU, in certificate order; Paddock carries the tenant id here. */
  organizationalUnits: string[];
  /** Lowercase hex without leading zeros (see canonicalSerial). */
  serial: string;
}

export function identityFromPeerCertificate(cert: PeerCertificate | X509Certificate): ClientIdentity {
  // The legacy object's subject holds raw attribute values; X509Certificate#subject is an escaped string.
  const peer = cert instanceof X509Certificate ? cert.toLegacyObject() : cert;
  // getPeerCertificate() returns {} when the client sent no certificate.
  if (!peer.subject) throw new Error('no client certificate');
  // Node gives one value as a string and repeated ones as an array.
  const subject = peer.subject as unknown as Record<string, string | string[] | undefined>;
  const all = (field: string): string[] => [subject[field] ?? []].flat();
  // Go keeps the last CN when there are several, so kube-apiserver does too.
  const user = all('CN').at(-1);
  if (!user) throw new Error('client certificate has no common name');
  return { user, groups: all('O'), organizationalUnits: all('OU'), serial: canonicalSerial(peer.serialNumber) };
}

/**
 * Node prints serials in uppercase with whole bytes (so sometimes a leading 0), @peculiar/x509 in
 * lowercase; both are folded to lowercase hex without leading zeros, as Go's big.Int.Text(16).
 */
export function canonicalSerial(hex: string): string {
  return hex.toLowerCase().replace(/^0+/, '') || '0';
}
