import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  createCertificateAuthority,
  loadCertificateAuthority,
  parseCaBundle,
  type CertificateAuthority,
} from '../../certs/index.js';
import { getOrCreate, type Store } from '../../store/index.js';

const CA_KEY = '/paddock/pki/ca';
const CONTINUE_TOKEN_KEY = '/paddock/pki/continue-token-key';

/**
 * The gateway's CA: from `--ca-cert/--ca-key` when given, else the one kept in the store, else a
 * new one written to the store. Replicas starting together race to create it; the loser reads
 * the winner's, so every replica signs with the same CA.
 */
export async function bootstrapCertificateAuthority(
  store: Store,
  files: { cert?: string; key?: string },
): Promise<CertificateAuthority> {
  if (files.cert || files.key) {
    if (!files.cert || !files.key) throw new Error('--ca-cert and --ca-key go together');
    return loadCertificateAuthority(await readFile(files.cert, 'utf8'), await readFile(files.key, 'utf8'));
  }
  const stored = await getOrCreate(store, CA_KEY, async () => {
    const ca = await createCertificateAuthority({ commonName: 'paddock-ca' });
    return JSON.stringify({ certPem: ca.certPem, keyPem: ca.keyPem });
  });
  return fromStored(stored);
}

/**
 * The key continue tokens are sealed with: random, made by the first replica and kept in the
 * store, so every replica has it, and not drawn from the CA: a paged list may span the replicas
 * of a CA rotation's rolling restart.
 */
export async function continueTokenKey(store: Store): Promise<Buffer> {
  const value = await getOrCreate(store, CONTINUE_TOKEN_KEY, async () => randomBytes(32).toString('base64'));
  return Buffer.from(value, 'base64');
}

function fromStored(value: string): Promise<CertificateAuthority> {
  const { certPem, keyPem } = JSON.parse(value) as { certPem: string; keyPem: string };
  return loadCertificateAuthority(certPem, keyPem);
}

/**
 * The CAs this replica trusts: its own, then those of `--trusted-ca-file` (a PEM bundle). Client
 * certificates any of them signed are accepted, and every kubeconfig the gateway writes carries
 * them all, so a kubeconfig issued while a new CA is trusted keeps verifying the server once that
 * CA signs (docs/operations.md, "Rotating the CA").
 */
export async function trustedCertificateAuthorities(ca: CertificateAuthority, file?: string): Promise<string[]> {
  const own = ca.certPem.endsWith('\n') ? ca.certPem : `${ca.certPem}\n`;
  if (file === undefined) return [own];
  let extra: string[];
  try {
    extra = parseCaBundle(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`--trusted-ca-file ${file}: ${(err as Error).message}`, { cause: err });
  }
  return [own, ...extra.filter((pem) => pem.trim() !== own.trim())];
}
