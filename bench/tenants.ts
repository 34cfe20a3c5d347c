/**
 * Tenant creations per second through the gateway's admin API, each counted once the tenant is
 * Active (upstream namespaces and RBAC made, certificate issued): one at a time and 32 at a time,
 * with ECDSA P-256 and with RSA-2048 tenant keys, side by side.
 */
import { readFile } from 'node:fs/promises';
import { RestClient } from '../apiserver/client/rest-client.js';
import { startDevCluster } from '../devcluster/devcluster.js';
import { startGateway } from '../gateway/gateway.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { printTable } from './table.js';

const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';
const SERIAL = 20;
const CONCURRENT = 64;
const CONCURRENCY = 32;

async function createAndWait(client: RestClient, id: string): Promise<void> {
  const created = await client.request('POST', TENANTS, { apiVersion: 'tenant.kubezoo.io/v1alpha1', kind: 'Tenant', metadata: { name: id } });
  if (created.status !== 201) throw new Error(`creating ${id}: ${created.status} ${created.text}`);
  for (;;) {
    const tenant = await client.request('GET', `${TENANTS}/${id}`);
    if (tenant.body?.status?.phase === 'Active') return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function measure(keyAlgorithm: 'ecdsa' | 'rsa', prefix: string): Promise<{ serial: number; concurrent: number }> {
  const upstreamDir = await makeTempDir('bench-upstream');
  const gatewayDir = await makeTempDir('bench-gateway');
  const upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: upstreamDir.dir });
  const gateway = await startGateway({ listen: '127.0.0.1:0', dataDir: gatewayDir.dir, keyAlgorithm, upstreams: [{ name: 'member1', kubeconfig: await readFile(upstream.kubeconfigPath, 'utf8') }] });
  const client = RestClient.fromKubeconfig(await readFile(gateway.adminKubeconfigPath, 'utf8'));
  try {
    let started = performance.now();
    for (let i = 0; i < SERIAL; i++) await createAndWait(client, `${prefix}s${String(i).padStart(4, '0')}`);
    const serial = SERIAL / ((performance.now() - started) / 1000);
    started = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < CONCURRENT) await createAndWait(client, `${prefix}c${String(next++).padStart(4, '0')}`);
    }));
    const concurrent = CONCURRENT / ((performance.now() - started) / 1000);
    return { serial, concurrent };
  } finally {
    client.close();
    await gateway.stop();
    await upstream.stop();
    await upstreamDir.remove();
    await gatewayDir.remove();
  }
}

export async function benchTenants(): Promise<void> {
  const ecdsa = await measure('ecdsa', 'e');
  const rsa = await measure('rsa', 'r');
  process.stdout.write('\n');
  printTable(['tenant creations per second (until Active)', 'ECDSA P-256', 'RSA-2048', 'ECDSA/RSA'], [
    ['one at a time', ecdsa.serial.toFixed(1), rsa.serial.toFixed(1), (ecdsa.serial / rsa.serial).toFixed(2)],
    [`${CONCURRENCY} at a time`, ecdsa.concurrent.toFixed(1), rsa.concurrent.toFixed(1), (ecdsa.concurrent / rsa.concurrent).toFixed(2)],
  ]);
}
