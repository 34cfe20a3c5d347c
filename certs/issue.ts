import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { canonicalSerial } from './identity.js';
import {
  exportPrivateKeyPem,
  generateKeyPair,
  signingAlgorithmFor,
  x509,
  type CryptoKey,
  type KeyAlgorithm,
} from './keys.js';

/** What issuing a certificate takes of its CA (ca.ts): the issuer's name, key and key identifier. */
export interface Issuer {
  certificate: x509.X509Certificate;
  signingKey: CryptoKey;
  /** Hex subject key identifier; what this CA issues names it as authority key identifier. */
  keyIdentifier: string;
}

export interface IssuedCertificate {
  certPem: string;
  keyPem: string;
  /** Lowercase hex without leading zeros, the form identityFromPeerCertificate reports. */
  serial: string;
  notAfter: Date;
}

interface LeafOptions {
  /** Default one year. Counted from `notBefore` when given, else from now. */
  validityDays?: number;
  keyAlgorithm?: KeyAlgorithm;
  /** Start of validity; default a few minutes ago. */
  notBefore?: Date;
}

export interface ServingCertificateOptions extends LeafOptions {
  /** IP addresses and DNS names the server answers on; each becomes a SAN, the first also the CN. */
  hosts: string[];
}

export interface ClientCertificateOptions extends LeafOptions {
  /** The user name, as kube-apiserver reads it. */
  commonName: string;
  /** Groups. */
  organizations?: string[];
  organizationalUnits?: string[];
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Tolerates peers whose clocks run behind ours. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

export async function issueServingCertificate(
  ca: Issuer,
  options: ServingCertificateOptions,
): Promise<IssuedCertificate> {
  if (options.hosts.length === 0) throw new Error('a serving certificate needs at least one host');
  const names = options.hosts.map((host): x509.JsonGeneralName => ({ type: isIP(host) ? 'ip' : 'dns', value: host }));
  return issue(ca, options, certificateName([['CN', options.hosts[0]]]), x509.ExtendedKeyUsage.serverAuth, [
    new x509.SubjectAlternativeNameExtension(names),
  ]);
}

export async function issueClientCertificate(
  ca: Issuer,
  options: ClientCertificateOptions,
): Promise<IssuedCertificate> {
  const subject = certificateName([
    ...(options.organizations ?? []).map((o): NameAttribute => ['O', o]),
    ...(options.organizationalUnits ?? []).map((ou): NameAttribute => ['OU', ou]),
    ['CN', options.commonName],
  ]);
  return issue(ca, options, subject, x509.ExtendedKeyUsage.clientAuth, []);
}

async function issue(
  ca: Issuer,
  options: LeafOptions,
  subject: x509.Name,
  extendedKeyUsage: x509.ExtendedKeyUsage,
  extraExtensions: x509.Extension[],
): Promise<IssuedCertificate> {
  const keys = await generateKeyPair(options.keyAlgorithm);
  // RSA key exchange (TLS 1.2 without ECDHE) encrypts to the key, which needs keyEncipherment.
  const keyUsage =
    keys.publicKey.algorithm.name === 'ECDSA'
      ? x509.KeyUsageFlags.digitalSignature
      : x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment;
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject,
    issuer: ca.certificate.subjectName,
    ...validityPeriod(options.validityDays ?? 365, options.notBefore),
    publicKey: keys.publicKey,
    signingKey: ca.signingKey,
    signingAlgorithm: signingAlgorithmFor(ca.signingKey),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(keyUsage, true),
      new x509.ExtendedKeyUsageExtension([extendedKeyUsage]),
      new x509.AuthorityKeyIdentifierExtension(ca.keyIdentifier),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ...extraExtensions,
    ],
  });
  return {
    certPem: certificatePem(certificate),
    keyPem: await exportPrivateKeyPem(keys.privateKey),
    serial: canonicalSerial(certificate.serialNumber),
    notAfter: certificate.notAfter,
  };
}

/**
 * 126 random bits: the top bit cleared and the next one set, so the DER integer is positive,
 * always 16 bytes, and its hex has no leading zero to trim.
 */
export function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x40;
  return bytes.toString('hex');
}

export function validityPeriod(validityDays: number, notBefore?: Date): { notBefore: Date; notAfter: Date } {
  const start = notBefore ?? new Date();
  return {
    notBefore: notBefore ?? new Date(start.getTime() - CLOCK_SKEW_MS),
    notAfter: new Date(start.getTime() + validityDays * DAY_MS),
  };
}

/** With the trailing newline PEM files end in, so bundles can be made by concatenation. */
export function certificatePem(certificate: x509.X509Certificate): string {
  return `${certificate.toString('pem')}\n`;
}

export type NameAttribute = [type: 'CN' | 'O' | 'OU', value: string];

/**
 * One RDN per attribute, as Go and openssl write subjects, each O becoming one entry of Go's
 * Subject.Organization. Values go in as UTF8String objects because the library's string form would
 * read a leading '#' as hex and strip quotes and backslashes.
 */
export function certificateName(attributes: NameAttribute[]): x509.Name {
  return new x509.Name(attributes.map(([type, value]) => ({ [type]: [{ utf8String: value }] })));
}
