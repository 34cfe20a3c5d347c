import type { GenericRegistry } from '../apiserver/registry/generic-registry.js';
import { mutate } from '../apiserver/registry/object-mutation.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';
import { ApiError } from '../apiserver/status.js';
import { registrationFromKubeconfig } from './cluster-credentials.js';
import { CLUSTER_GROUP, CLUSTER_VERSION } from './cluster-resource.js';
import { CLUSTER_SECRET_NAMESPACE } from './cluster-secrets.js';

/** A cluster given on the command line: `--upstream NAME=KUBECONFIG`, or a devcluster `serve` started. */
export interface UpstreamRegistration {
  name: string;
  kubeconfig: string;
  labels?: Record<string, string>;
}

/**
 * Registers the command line's clusters as Cluster objects with their Secrets, as an admin would
 * with kubectl: each is created, or updated where the kubeconfig (endpoint, credentials) or the
 * labels changed; what else an admin set on them is kept, and clusters an admin added are never
 * touched. Every replica does this at start; the writes are idempotent.
 */
export async function registerClusters(
  clusters: GenericRegistry,
  secrets: GenericRegistry,
  upstreams: readonly UpstreamRegistration[],
): Promise<void> {
  for (const upstream of upstreams) {
    const { apiEndpoint, insecureSkipTLSVerification, data } = registrationFromKubeconfig(upstream.kubeconfig);
    const connection = { apiEndpoint, ...(insecureSkipTLSVerification ? { insecureSkipTLSVerification } : {}) };
    await createOrUpdate(
      secrets,
      CLUSTER_SECRET_NAMESPACE,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: upstream.name, namespace: CLUSTER_SECRET_NAMESPACE },
        data,
      },
      (secret) => {
        if (JSON.stringify(secret.data ?? {}) === JSON.stringify(data)) return false;
        secret.data = data;
        return true;
      },
    );
    const secretRef = { namespace: CLUSTER_SECRET_NAMESPACE, name: upstream.name };
    const labels = upstream.labels ?? {};
    await createOrUpdate(
      clusters,
      '',
      {
        apiVersion: `${CLUSTER_GROUP}/${CLUSTER_VERSION}`,
        kind: 'Cluster',
        metadata: { name: upstream.name, ...(Object.keys(labels).length ? { labels } : {}) },
        spec: { syncMode: 'Push', ...connection, secretRef },
      },
      (cluster) => {
        const current = cluster.metadata.labels ?? {};
        const labelsDiffer = Object.entries(labels).some(([key, value]) => current[key] !== value);
        if (
          cluster.spec?.apiEndpoint === apiEndpoint &&
          (cluster.spec?.insecureSkipTLSVerification === true) === insecureSkipTLSVerification &&
          JSON.stringify(cluster.spec?.secretRef) === JSON.stringify(secretRef) &&
          !labelsDiffer
        )
          return false;
        cluster.metadata.labels = { ...current, ...labels };
        const { insecureSkipTLSVerification: _previous, ...spec } = cluster.spec ?? {};
        cluster.spec = { ...spec, ...connection, secretRef };
        return true;
      },
    );
  }
}

/** Creates the object, or (it exists, perhaps just made by another replica) applies `change` to the stored one. */
async function createOrUpdate(
  registry: GenericRegistry,
  namespace: string,
  object: ApiObject,
  change: (stored: ApiObject) => boolean,
): Promise<void> {
  try {
    await registry.create(namespace, object);
    return;
  } catch (err) {
    if (!(err instanceof ApiError && err.status.reason === 'AlreadyExists')) throw err;
  }
  await mutate(registry, namespace, String(object.metadata.name), change);
}
