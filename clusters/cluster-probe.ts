import type { ClusterConnection } from './cluster-connection.js';
import { readApiEnablements, type ApiEnablement } from './api-enablements.js';

/** What one look at a cluster found: whether it answered, whether it is healthy, and what it runs. */
export interface ClusterObservation {
  online: boolean;
  healthy: boolean;
  /** `/version`'s gitVersion; absent when it could not be read. */
  kubernetesVersion?: string;
  apiEnablements?: { enablements: ApiEnablement[]; partial: boolean };
}

/**
 * Looks at a cluster as Karmada's cluster status controller does: `/readyz` (`/healthz` when the
 * cluster has no `/readyz`) decides online and healthy; a healthy cluster's version and API
 * enablements are read too. No threshold or taint is decided here: this is only the observation.
 */
export async function probeCluster(connection: ClusterConnection, timeoutMs: number): Promise<ClusterObservation> {
  let status = await healthStatus(connection, '/readyz', timeoutMs);
  if (status === 404) status = await healthStatus(connection, '/healthz', timeoutMs);
  if (status === undefined) return { online: false, healthy: false };
  if (status !== 200) return { online: true, healthy: false };
  const [kubernetesVersion, apiEnablements] = await Promise.all([
    version(connection, timeoutMs),
    readApiEnablements(connection, timeoutMs),
  ]);
  return { online: true, healthy: true, ...(kubernetesVersion ? { kubernetesVersion } : {}), apiEnablements };
}

/** The HTTP status of a health endpoint, or undefined when the cluster did not answer. */
async function healthStatus(connection: ClusterConnection, path: string, timeoutMs: number) {
  try {
    const res = await connection.request('GET', path, { accept: 'text/plain' }, undefined, timeoutMs);
    await res.body.text();
    return res.status;
  } catch {
    return undefined;
  }
}

async function version(connection: ClusterConnection, timeoutMs: number): Promise<string | undefined> {
  try {
    const res = await connection.request('GET', '/version', { accept: 'application/json' }, undefined, timeoutMs);
    const text = await res.body.text();
    const gitVersion = res.status === 200 ? (JSON.parse(text) as { gitVersion?: unknown }).gitVersion : undefined;
    return typeof gitVersion === 'string' ? gitVersion : undefined;
  } catch {
    return undefined;
  }
}
