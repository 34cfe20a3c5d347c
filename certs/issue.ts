import { createHash, KeyObject, randomBytes, sign, type webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import * as der from './der.js';
import { canonicalSerial } from './identity.js';
import { generateEncodedKeys, x509, type CryptoKey, type KeyAlgorithm } from './keys.js';
import { pemOf } from './pem.js';

/** crypto.sign with a callback: signs on the thread pool, off the event loop. */
const signAsync = promisify(sign);

/**
 * An ECDSA P-256 signature costs 27 µs of CPU made on the event loop and 53 µs handed to the
 * thread pool and back, where an RSA-2048 one (1-2 ms) is worth handing over.
 */
function signed(signer: Signer, tbs: Buffer): Promise<Buffer> {
  return signer.onEventLoop ? Promise.resolve(sign('sha256', tbs, signer.key)) : signAsync('sha256', tbs, signer.key);
}

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
  // A serving certificate is issued once per start: its SANs are written by the library.
  const alternativeNames = Buffer.from(new x509.SubjectAlternativeNameExtension(names).rawData);
  return issue(ca, options, subjectName([['CN', options.hosts[0]]]), SERVER_AUTH, [alternativeNames]);
}

export async function issueClientCertificate(
  ca: Issuer,
  options: ClientCertificateOptions,
): Promise<IssuedCertificate> {
  const subject = subjectName([
    ...(options.organizations ?? []).map((o): NameAttribute => ['O', o]),
    ...(options.organizationalUnits ?? []).map((ou): NameAttribute => ['OU', ou]),
    ['CN', options.commonName],
  ]);
  return issue(ca, options, subject, CLIENT_AUTH, []);
}

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ATTRIBUTE_TYPES = { CN: '2.5.4.3', O: '2.5.4.10', OU: '2.5.4.11' } as const;
const ECDSA_WITH_SHA256 = der.sequence(der.objectIdentifier('1.2.840.10045.4.3.2'));
const SHA256_WITH_RSA = der.sequence(der.objectIdentifier('1.2.840.113549.1.1.11'), der.NULL);

/** What signing with a CA takes, made once per CA: its name as DER, its key for node:crypto, the signature algorithm. */
interface Signer {
  issuerName: Buffer;
  key: KeyObject;
  algorithm: Buffer;
  /** Cheaper signed on the event loop than on the thread pool (`signed`). */
  onEventLoop: boolean;
}

const signers = new WeakMap<Issuer, Signer>();

function signerOf(ca: Issuer): Signer {
  let signer = signers.get(ca);
  if (!signer) {
    const ecdsa = ca.signingKey.algorithm.name === 'ECDSA';
    signer = {
      issuerName: Buffer.from(ca.certificate.subjectName.toArrayBuffer()),
      key: KeyObject.from(ca.signingKey),
      algorithm: ecdsa ? ECDSA_WITH_SHA256 : SHA256_WITH_RSA,
      onEventLoop: ecdsa && (ca.signingKey.algorithm as webcrypto.EcKeyAlgorithm).namedCurve === 'P-256',
    };
    signers.set(ca, signer);
  }
  return signer;
}

/**
 * An X.509 v3 leaf certificate written as DER and signed with node:crypto: basic constraints
 * (critical, not a CA), key usage (critical), the extended key usage, the CA's key identifier, the
 * key's own, then `extraExtensions`.
 */
async function issue(
  ca: Issuer,
  options: LeafOptions,
  subject: Buffer,
  extendedKeyUsage: string,
  /** Whole Extension elements. */
  extraExtensions: Buffer[],
): Promise<IssuedCertificate> {
  const signer = signerOf(ca);
  const algorithm = options.keyAlgorithm ?? 'ecdsa';
  const { spki, keyPem } = await generateEncodedKeys(algorithm);
  // KeyUsage bits from the first: digitalSignature, and for RSA keyEncipherment, which RSA key
  // exchange (TLS 1.2 without ECDHE) needs, since it encrypts to the key.
  const keyUsage =
    algorithm === 'ecdsa' ? Buffer.from([0x03, 0x02, 0x07, 0x80]) : Buffer.from([0x03, 0x02, 0x05, 0xa0]);
  const serial = randomSerialNumber();
  const { notBefore, notAfter } = validityPeriod(options.validityDays ?? 365, options.notBefore);
  const tbs = der.sequence(
    der.explicit(0, der.unsignedInteger(Buffer.from([2]))),
    der.unsignedInteger(Buffer.from(serial, 'hex')),
    signer.algorithm,
    signer.issuerName,
    der.sequence(der.time(notBefore), der.time(notAfter)),
    subject,
    spki,
    der.explicit(
      3,
      der.sequence(
        extension('2.5.29.19', true, der.sequence()),
        extension('2.5.29.15', true, keyUsage),
        extension('2.5.29.37', false, der.sequence(der.objectIdentifier(extendedKeyUsage))),
        extension('2.5.29.35', false, der.sequence(der.element(0x80, Buffer.from(ca.keyIdentifier, 'hex')))),
        extension(
          '2.5.29.14',
          false,
          der.octetString(createHash('sha1').update(der.subjectPublicKeyBits(spki)).digest()),
        ),
        ...extraExtensions,
      ),
    ),
  );
  const certificate = der.sequence(tbs, signer.algorithm, der.bitString(await signed(signer, tbs)));
  return {
    certPem: pemOf(certificate, 'CERTIFICATE'),
    keyPem,
    serial: canonicalSerial(serial),
    // As the certificate holds it: whole seconds.
    notAfter: new Date(Math.floor(notAfter.getTime() / 1000) * 1000),
  };
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return der.sequence(der.objectIdentifier(oid), ...(critical ? [der.TRUE] : []), der.octetString(value));
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
 * Subject.Organization; each value a UTF8String (the library's string form would read a leading
 * '#' as hex and strip quotes and backslashes). The CA's name, for the library, is made of the same DER.
 */
export function certificateName(attributes: NameAttribute[]): x509.Name {
  return new x509.Name(subjectName(attributes));
}

/** A certificate's name as DER (certificateName's). */
function subjectName(attributes: NameAttribute[]): Buffer {
  return der.sequence(
    ...attributes.map(([type, value]) =>
      der.set(der.sequence(der.objectIdentifier(ATTRIBUTE_TYPES[type]), der.utf8String(value))),
    ),
  );
}
