/**
 * Where the simulated kubelet reads a pod's volumes from: ConfigMaps and Secrets from the API, and
 * the ServiceAccount token it requests for the pod's account, bound to the pod. A token is kept
 * and requested again once 80% of its life has passed, as the kubelet's token manager does.
 */
import type { ApiServer } from '../../apiserver/api-server.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { ApiError } from '../../apiserver/status.js';
import type { ServiceAccountTokens } from '../service-account-tokens.js';
import type { VolumeSources } from './pod-volumes.js';

/** What the kubelet asks for when a projection names no expiration: an hour. */
const DEFAULT_TOKEN_SECONDS = 3600;

interface IssuedToken {
  token: string;
  issuedAt: number;
  expiresAt: number;
}

/** `api` is asked for when first needed: the kubelet is made before the server it reads from. */
export function kubeletVolumeSources(api: () => ApiServer, serviceAccounts: ServiceAccountTokens): VolumeSources {
  const tokens = new Map<string, IssuedToken>();
  const read = async (resource: string, namespace: string, name: string): Promise<ApiObject | null> => {
    if (!name) return null;
    try {
      return await api().registryOf('', resource)!.get(namespace, name);
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return null;
      throw err;
    }
  };
  return {
    configMap: (namespace, name) => read('configmaps', namespace, name),
    secret: (namespace, name) => read('secrets', namespace, name),
    token: async (pod, projection) => {
      const seconds = projection.expirationSeconds ?? DEFAULT_TOKEN_SECONDS;
      const key = `${pod.metadata.uid}/${projection.audience ?? ''}/${seconds}`;
      const now = Date.now();
      const held = tokens.get(key);
      if (held && now < held.issuedAt + 0.8 * (held.expiresAt - held.issuedAt)) return held.token;
      const account = await read('serviceaccounts', pod.metadata.namespace, pod.spec?.serviceAccountName ?? '');
      if (!account) return held?.token ?? null;
      const exp = Math.floor(now / 1000) + seconds;
      const token = serviceAccounts.issue({
        namespace: pod.metadata.namespace,
        name: account.metadata.name,
        uid: account.metadata.uid,
        exp,
        pod: { name: pod.metadata.name, uid: pod.metadata.uid },
        ...(projection.audience ? { audiences: [projection.audience] } : {}),
      });
      tokens.set(key, { token, issuedAt: now, expiresAt: exp * 1000 });
      return token;
    },
    forget: (podUid) => {
      for (const key of tokens.keys()) if (key.startsWith(`${podUid}/`)) tokens.delete(key);
    },
  };
}
