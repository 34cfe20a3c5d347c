/**
 * kube-apiserver's `ServiceAccount` admission plugin, for a pod's create: the pod runs as
 * `default` unless it names an account; the account must exist (the `default` one is looked for
 * ten times, 100–200 ms apart, since the serviceaccount controller creates it just after its
 * namespace); its imagePullSecrets are copied to a pod that has none; and unless the pod or the
 * account turns `automountServiceAccountToken` off, every init and app container without a mount
 * at the token path gets the projected `kube-api-access-<5>` volume there: the token the kubelet
 * requests for the pod, the cluster's CA and the namespace. Mirror pods are refused an account.
 */
import type { ApiServer } from '../apiserver/api-server.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';
import { randomSuffix } from '../apiserver/registry/generic-registry.js';
import { ApiError, forbidden } from '../apiserver/status.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_SERVICE_ACCOUNT } from './controllers/serviceaccounts-controller.js';
import { ROOT_CA_CONFIGMAP, ROOT_CA_KEY } from './controllers/root-ca-cert-publisher.js';

export const SERVICE_ACCOUNT_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const VOLUME_PREFIX = 'kube-api-access-';
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
/** kube's WarnOnlyBoundTokenExpirationSeconds: an hour and seven seconds. */
const TOKEN_EXPIRATION_SECONDS = 3607;
const DEFAULT_ACCOUNT_ATTEMPTS = 10;

export function serviceAccountAdmission(api: ApiServer): (pod: ApiObject) => Promise<void> {
  return async (pod) => {
    const spec = pod.spec;
    if (!spec || typeof spec !== 'object') return;
    const namespace = pod.metadata.namespace ?? '';
    // kube admits before it generates a name: a generated one is refused by its prefix (`pods "web-7d9c8b6f5-"`).
    const shownName = pod.metadata.generateName || pod.metadata.name || '';
    const refuse = (reason: string) => forbidden({ group: '', resource: 'pods' }, shownName, reason);
    if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) {
      if (spec.serviceAccountName) throw refuse('a mirror pod may not reference service accounts');
      return;
    }
    spec.serviceAccountName ||= DEFAULT_SERVICE_ACCOUNT;
    spec.serviceAccount = spec.serviceAccountName;
    const account = await findServiceAccount(api, namespace, spec.serviceAccountName);
    if (!account)
      throw refuse(
        `error looking up service account ${namespace}/${spec.serviceAccountName}: serviceaccount "${spec.serviceAccountName}" not found`,
      );
    if (automounts(pod, account)) mountToken(spec);
    if (!Array.isArray(spec.imagePullSecrets) || spec.imagePullSecrets.length === 0) {
      const pullSecrets = (account.imagePullSecrets ?? []).map((s: { name?: string }) => ({ name: s.name }));
      if (pullSecrets.length > 0) spec.imagePullSecrets = pullSecrets;
    }
  };
}

async function findServiceAccount(api: ApiServer, namespace: string, name: string): Promise<ApiObject | null> {
  const registry = api.registryOf('', 'serviceaccounts')!;
  const attempts = name === DEFAULT_SERVICE_ACCOUNT ? DEFAULT_ACCOUNT_ATTEMPTS : 1;
  const interval = 100 + Math.floor(Math.random() * 100);
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await sleep(interval);
    try {
      return await registry.get(namespace, name);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
  return null;
}

/** The pod's preference wins, then the account's; on by default. */
function automounts(pod: ApiObject, account: ApiObject): boolean {
  if (typeof pod.spec.automountServiceAccountToken === 'boolean') return pod.spec.automountServiceAccountToken;
  if (typeof account.automountServiceAccountToken === 'boolean') return account.automountServiceAccountToken;
  return true;
}

function mountToken(spec: Record<string, any>): void {
  const volumes: Record<string, any>[] = Array.isArray(spec.volumes) ? spec.volumes : [];
  const existing = volumes.find((v) => typeof v?.name === 'string' && v.name.startsWith(VOLUME_PREFIX));
  const volumeName: string = existing?.name ?? VOLUME_PREFIX + randomSuffix();
  let mounted = false;
  for (const list of ['initContainers', 'containers']) {
    for (const container of Array.isArray(spec[list]) ? spec[list] : []) {
      const mounts = Array.isArray(container.volumeMounts) ? container.volumeMounts : [];
      if (mounts.some((m: { mountPath?: string }) => m?.mountPath === SERVICE_ACCOUNT_MOUNT_PATH)) continue;
      container.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH }];
      mounted = true;
    }
  }
  if (mounted && !existing) spec.volumes = [...volumes, { name: volumeName, projected: tokenVolumeSource() }];
}

/** kube's TokenVolumeSource, with the defaults kube-apiserver then fills in (mode 0644). */
function tokenVolumeSource(): Record<string, unknown> {
  return {
    defaultMode: 0o644,
    sources: [
      { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
      { configMap: { name: ROOT_CA_CONFIGMAP, items: [{ key: ROOT_CA_KEY, path: ROOT_CA_KEY }] } },
      {
        downwardAPI: {
          items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
        },
      },
    ],
  };
}
