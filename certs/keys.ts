// @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect polyfill before
// the library module evaluates; every certs module therefore takes `x509` from here.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPair as generateKeyObjectPair,
  webcrypto,
  type KeyObject,
} from 'node:crypto';
import { promisify } from 'node:util';

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

const generateKeyObjectPairAsync = promisify(generateKeyObjectPair);

/** A key pair as node:crypto's KeyObjects, which sign and export without WebCrypto's promises (leaf certificates). */
export async function generateKeyObjects(
  algorithm: KeyAlgorithm = 'ecdsa',
): Promise<{ publicKey: KeyObject; privateKey: KeyObject }> {
  return algorithm === 'ecdsa'
    ? generateKeyObjectPairAsync('ec', { namedCurve: 'prime256v1' })
    : generateKeyObjectPairAsync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
}

/** PKCS#8 ("BEGIN PRIVATE KEY"), which both Node and Go's tls.X509KeyPair read. */
export async function exportPrivateKeyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return `${x509.PemConverter.encode(der, 'PRIVATE KEY')}\n`;
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
