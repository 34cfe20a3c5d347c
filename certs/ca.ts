import { webcrypto } from 'node:crypto';
import {
  certificateName,
  certificatePem,
  issueClientCertificate,
  issueServingCertificate,
  randomSerialNumber,
  validityPeriod,
  type ClientCertificateOptions,
  type IssuedCertificate,
  type Issuer,
  type ServingCertificateOptions,
} from './issue.js';
import {
  exportPrivateKeyPem,
  generateKeyPair,
  importPrivateKeyPem,
  signingAlgorithmFor,
  x509,
  type CryptoKey,
  type KeyAlgorithm,
} from './keys.js';

export interface CertificateAuthority extends Issuer {
  certPem: string;
  keyPem: string;
  issueServingCertificate(options: ServingCertificateOptions): Promise<IssuedCertificate>;
  issueClientCertificate(options: ClientCertificateOptions): Promise<IssuedCertificate>;
}

export interface CertificateAuthorityOptions {
  commonName: string;
  keyAlgorithm?: KeyAlgorithm;
  /** Default ten years, as kubeadm's cluster CA. */
  validityDays?: number;
}

export async function createCertificateAuthority(options: CertificateAuthorityOptions): Promise<CertificateAuthority> {
  const keys = await generateKeyPair(options.keyAlgorithm);
  const name = certificateName([['CN', options.commonName]]);
  const subjectKeyIdentifier = await x509.SubjectKeyIdentifierExtension.create(keys.publicKey);
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialNumber(),
    subject: name,
    issuer: name,
    ...validityPeriod(options.validityDays ?? 3650),
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    signingAlgorithm: signingAlgorithmFor(keys.privateKey),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      subjectKeyIdentifier,
    ],
  });
  return certificateAuthority(
    certificate,
    keys.privateKey,
    await exportPrivateKeyPem(keys.privateKey),
    subjectKeyIdentifier.keyId,
  );
}

/** Loads an existing CA (ours, kubeadm's, openssl's); refuses a non-CA certificate or a key that is not its own. */
export async function loadCertificateAuthority(certPem: string, keyPem: string): Promise<CertificateAuthority> {
  const certificate = new x509.X509Certificate(certPem);
  if (!certificate.getExtension(x509.BasicConstraintsExtension)?.ca) {
    throw new Error(`certificate ${certificate.subject} is not a CA (basic constraints CA:true missing)`);
  }
  const keys = await importPrivateKeyPem(keyPem);
  const keySpki = Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey));
  if (!keySpki.equals(Buffer.from(certificate.publicKey.rawData))) {
    throw new Error(`private key does not belong to CA certificate ${certificate.subject}`);
  }
  const keyIdentifier =
    certificate.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId ??
    (await x509.SubjectKeyIdentifierExtension.create(keys.publicKey)).keyId;
  return certificateAuthority(certificate, keys.privateKey, keyPem, keyIdentifier);
}

function certificateAuthority(
  certificate: x509.X509Certificate,
  signingKey: CryptoKey,
  keyPem: string,
  keyIdentifier: string,
): CertificateAuthority {
  const ca: CertificateAuthority = {
    certPem: certificatePem(certificate),
    keyPem,
    certificate,
    signingKey,
    keyIdentifier,
    issueServingCertificate: (options) => issueServingCertificate(ca, options),
    issueClientCertificate: (options) => issueClientCertificate(ca, options),
  };
  return ca;
}
