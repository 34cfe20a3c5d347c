// @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect polyfill before
// the library module evaluates; every certs module therefore takes `x509` from here.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import {
  createECDH,
  type ECDH,
  createPrivateKey,
  createPublicKey,
  generateKeyPair as generateNodeKeyPair,
  webcrypto,
} from 'node:crypto';
import { bitString, element, explicit, objectIdentifier, octetString, sequence } from './der.js';
import { pemOf } from './pem.js';

x509.cryptoProvider.set(webcrypto);

export { x509 };

/** ECDSA P-256 is the default: generating it takes ~0.1 ms against ~176 ms for RSA-2048. */
export type KeyAlgorithm = 'ecdsa' | 'rsa';

export type CryptoKeyPair = webcrypto.CryptoKeyPair;
export type CryptoKey = webcrypto.CryptoKey;

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const rsa = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;

export async function generateKeyPair(algorithm: KeyAlgorithm = 'ecdsa'): Promise<CryptoKeyPair> {
  const params =
    algorithm === 'ecdsa' ? ecdsa : { ...rsa, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) };
  return webcrypto.subtle.generateKey(params, true, ['sign', 'verify']);
}

/** A new key pair as a leaf certificate needs it: the public key's SubjectPublicKeyInfo (DER) and the private key as PKCS#8 PEM. */
export interface EncodedKeyPair {
  spki: Buffer;
  keyPem: string;
}

/**
 * A key pair already encoded. RSA: node's key job encodes both keys on the thread that made them,
 * off the event loop (exporting KeyObjects afterwards was 5% of the gateway's time creating
 * tenants). ECDSA: p256Keys, on the event loop, as it costs less than handing a job to the pool.
 */
export function generateEncodedKeys(algorithm: KeyAlgorithm = 'ecdsa'): Promise<EncodedKeyPair> {
  if (algorithm === 'ecdsa') return Promise.resolve(p256Keys());
  const encodings = {
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  } as const;
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, spki: Buffer, keyPem: string) => (err ? reject(err) : resolve({ spki, keyPem }));
    generateNodeKeyPair('rsa', { modulusLength: 2048, publicExponent: 0x10001, ...encodings }, done);
  });
}

/** id-ecPublicKey with the named curve prime256v1 (RFC 5480). */
const P256_ALGORITHM = sequence(objectIdentifier('1.2.840.10045.2.1'), objectIdentifier('1.2.840.10045.3.1.7'));
const P256_SCALAR_BYTES = 32;

/**
 * A P-256 key pair from ECDH's raw numbers, written as OpenSSL writes it: the public point in a
 * SubjectPublicKeyInfo (RFC 5480), the private scalar in PKCS#8 (RFC 5208) around an ECPrivateKey
 * holding the public point too (RFC 5915). OpenSSL 3's encoders took 180 of the 240 µs a key
 * cost; ECDH makes one in 25.
 */
export function p256Keys(): EncodedKeyPair {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return encodedP256Keys(ecdh);
}

/** The keys an ECDH of prime256v1 holds, encoded as p256Keys encodes them. */
export function encodedP256Keys(ecdh: ECDH): EncodedKeyPair {
  const point = ecdh.getPublicKey();
  const raw = ecdh.getPrivateKey();
  // A scalar is written at the curve's size, its leading zero bytes included.
  const scalar = Buffer.concat([Buffer.alloc(P256_SCALAR_BYTES - raw.length), raw]);
  const version = (n: number) => element(0x02, Buffer.from([n]));
  const ecPrivateKey = sequence(version(1), octetString(scalar), explicit(1, bitString(point)));
  const pkcs8 = sequence(version(0), P256_ALGORITHM, octetString(ecPrivateKey));
  return {
    spki: sequence(P256_ALGORITHM, bitString(point)),
    keyPem: pemOf(pkcs8, 'PRIVATE KEY'),
  };
}

/** PKCS#8 ("BEGIN PRIVATE KEY"), which both Node and Go's tls.X509KeyPair read. */
export async function exportPrivateKeyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return pemOf(Buffer.from(der), 'PRIVATE KEY');
}

/**
 * Reads a private key in PKCS#8, PKCS#1 ("RSA PRIVATE KEY") or SEC1 ("EC PRIVATE KEY") PEM — the
 * last two because CAs made by kubeadm or openssl come that way — and derives its public half.
 */
export async function importPrivateKeyPem(pem: string): Promise<CryptoKeyPair> {
  const keyObject = createPrivateKey(pem);
  const type = keyObject.asymmetricKeyType;
  let params: webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams;
  if (type === 'ec' && keyObject.asymmetricKeyDetails?.namedCurve === 'prime256v1') params = ecdsa;
  else if (type === 'rsa') params = rsa;
  else {
    const curve = keyObject.asymmetricKeyDetails?.namedCurve;
    throw new Error(`unsupported private key: ${type}${curve ? ` (${curve})` : ''}; expected ECDSA P-256 or RSA`);
  }
  const pkcs8 = keyObject.export({ type: 'pkcs8', format: 'der' });
  const spki = createPublicKey(keyObject).export({ type: 'spki', format: 'der' });
  return {
    privateKey: await webcrypto.subtle.importKey('pkcs8', pkcs8, params, true, ['sign']),
    publicKey: await webcrypto.subtle.importKey('spki', spki, params, true, ['verify']),
  };
}

/** The signature algorithm a certificate signed by `key` carries: SHA-256 with the key's scheme. */
export function signingAlgorithmFor(key: CryptoKey): webcrypto.EcdsaParams | webcrypto.Algorithm {
  return key.algorithm.name === 'ECDSA' ? { name: 'ECDSA', hash: 'SHA-256' } : { name: key.algorithm.name };
}
