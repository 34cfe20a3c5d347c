import type { ApiObject } from '../apiserver/registry/object-store.js';
import type { RequestInfo } from '../apiserver/request-info.js';
import { BUILTIN_RESOURCES } from '../apiserver/resources/builtin.js';
import type { ResourceInfo } from '../apiserver/resources/resource-info.js';
import type { Strategy } from '../apiserver/registry/strategy.js';

/**
 * Where clusters' credentials live, as in Karmada: a Cluster's `spec.secretRef` names a v1 Secret
 * in the namespace `karmada-cluster`. The gateway serves Secrets of that one namespace itself, from
 * its store, to the admin only; every other Secret request of the admin goes to the default cluster.
 */
export const CLUSTER_SECRET_NAMESPACE = 'karmada-cluster';

/** Karmada's keys of a cluster Secret's data (SecretCADataKey, SecretTokenKey). */
export const SECRET_CA_BUNDLE = 'caBundle';
export const SECRET_TOKEN = 'token';
/** A client certificate and its key, under the names of a `kubernetes.io/tls` Secret. */
export const SECRET_TLS_CERT = 'tls.crt';
export const SECRET_TLS_KEY = 'tls.key';

export const SECRET_RESOURCE: ResourceInfo = BUILTIN_RESOURCES.find((r) => r.group === '' && r.resource === 'secrets')!;

/** The store keys of the cluster Secrets (apiserver/registry/object-store.ts lays them out). */
export const CLUSTER_SECRETS_PREFIX = `/registry/core/secrets/${CLUSTER_SECRET_NAMESPACE}/`;

/** Whether a request is about the Secrets of `karmada-cluster` (by name, list or watch in that namespace). */
export function isClusterSecretRequest(info: RequestInfo): boolean {
  return (
    info.isResourceRequest &&
    info.group === '' &&
    info.resource === 'secrets' &&
    info.namespace === CLUSTER_SECRET_NAMESPACE
  );
}

/** The one namespace the gateway's own API holds objects in, always Active. */
export function clusterSecretNamespace(name: string): ApiObject | null {
  if (name !== CLUSTER_SECRET_NAMESPACE) return null;
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
    status: { phase: 'Active' },
  };
}

/** A Secret's data value, decoded (data values are base64 on the wire and in the store). */
export function secretValue(secret: ApiObject | undefined, key: string): string | undefined {
  const value = secret?.data?.[key];
  return typeof value === 'string' && value !== '' ? Buffer.from(value, 'base64').toString('utf8') : undefined;
}

/** kube's Secret write: `stringData` is merged into `data` (base64), and is never stored. */
function mergeStringData(secret: ApiObject): void {
  const strings = secret.stringData;
  if (typeof strings !== 'object' || strings === null) return;
  secret.data = { ...(secret.data ?? {}) };
  for (const [key, value] of Object.entries(strings)) secret.data[key] = Buffer.from(String(value)).toString('base64');
  delete secret.stringData;
}

export const clusterSecretStrategy: Strategy = {
  prepareForCreate: (secret) => {
    mergeStringData(secret);
    // kube's defaulting: a Secret without a type is Opaque.
    secret.type ??= 'Opaque';
  },
  prepareForUpdate: mergeStringData,
};
