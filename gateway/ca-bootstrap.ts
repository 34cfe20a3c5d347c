import { readFile } from 'node:fs/promises';
import { createCertificateAuthority, loadCertificateAuthority, type CertificateAuthority } from '../certs/index.js';
import { isStoreError, type Store } from '../store/index.js';

const CA_KEY = '/paddock/pki/ca';

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
  const stored = await store.get(CA_KEY);
  if (stored) return fromStored(stored.value);
  const ca = await createCertificateAuthority({ commonName: 'paddock-ca' });
  try {
    await store.create(CA_KEY, JSON.stringify({ certPem: ca.certPem, keyPem: ca.keyPem }));
    return ca;
  } catch (err) {
    if (!isStoreError(err, 'AlreadyExists')) throw err;
    return fromStored((await store.get(CA_KEY))!.value);
  }
}

function fromStored(value: string): Promise<CertificateAuthority> {
  const { certPem, keyPem } = JSON.parse(value) as { certPem: string; keyPem: string };
  return loadCertificateAuthority(certPem, keyPem);
}
