/**
 * What the kubelet writes into a pod's volumes that come from the API: projected volumes (a
 * ServiceAccount token, ConfigMap and Secret keys, downward API fields) and configMap, secret and
 * downwardAPI volumes. Keys become files (`items` pick and rename them); a missing object or key
 * leaves its files out, as for an `optional` source (kube would hold the pod in ContainerCreating
 * for a required one). Other volume kinds have no files here.
 */
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { goQuote } from '../../apiserver/go-quote.js';
import type { VolumeFiles } from './container-filesystem.js';

export interface VolumeSources {
  configMap(namespace: string, name: string): Promise<ApiObject | null>;
  secret(namespace: string, name: string): Promise<ApiObject | null>;
  /** The token the kubelet requests for the pod's account, bound to the pod; null when there is no account. */
  token(pod: ApiObject, projection: { expirationSeconds?: number; audience?: string }): Promise<string | null>;
  /** The pod is gone: what was kept for it can go. */
  forget?(podUid: string): void;
}

type Item = { key?: string; path?: string; mode?: number };

/** The files of the pod's volume `name`, or null when it is not one whose files come from the API. */
export async function volumeFiles(pod: ApiObject, name: string, sources: VolumeSources): Promise<VolumeFiles | null> {
  const volume = (pod.spec?.volumes ?? []).find((v: { name?: string }) => v?.name === name);
  if (!volume) return null;
  const files: VolumeFiles = new Map();
  const namespace = pod.metadata.namespace ?? '';
  if (volume.projected) {
    const mode = volume.projected.defaultMode ?? 0o644;
    for (const source of volume.projected.sources ?? []) {
      if (source.serviceAccountToken) {
        const token = await sources.token(pod, source.serviceAccountToken);
        if (token !== null) files.set(source.serviceAccountToken.path, { data: Buffer.from(token), mode });
      }
      if (source.configMap)
        addKeys(files, await sources.configMap(namespace, source.configMap.name), source.configMap, mode, false);
      if (source.secret) addKeys(files, await sources.secret(namespace, source.secret.name), source.secret, mode, true);
      if (source.downwardAPI) addFields(files, pod, source.downwardAPI.items ?? [], mode);
    }
    return files;
  }
  if (volume.configMap) {
    addKeys(
      files,
      await sources.configMap(namespace, volume.configMap.name),
      volume.configMap,
      volume.configMap.defaultMode ?? 0o644,
      false,
    );
    return files;
  }
  if (volume.secret) {
    addKeys(
      files,
      await sources.secret(namespace, volume.secret.secretName),
      volume.secret,
      volume.secret.defaultMode ?? 0o644,
      true,
    );
    return files;
  }
  if (volume.downwardAPI) {
    addFields(files, pod, volume.downwardAPI.items ?? [], volume.downwardAPI.defaultMode ?? 0o644);
    return files;
  }
  return null;
}

function addKeys(
  files: VolumeFiles,
  object: ApiObject | null,
  source: { items?: Item[] },
  mode: number,
  base64: boolean,
): void {
  if (!object) return;
  const values = new Map<string, Buffer>();
  for (const [key, value] of Object.entries((object.data ?? {}) as Record<string, string>))
    values.set(key, Buffer.from(value, base64 ? 'base64' : 'utf8'));
  if (!base64)
    for (const [key, value] of Object.entries((object.binaryData ?? {}) as Record<string, string>))
      values.set(key, Buffer.from(value, 'base64'));
  const items: Item[] = source.items ?? [...values.keys()].map((key) => ({ key, path: key }));
  for (const item of items) {
    const data = values.get(String(item.key));
    if (data !== undefined) files.set(String(item.path), { data, mode: item.mode ?? mode });
  }
}

/** The downward API's pod fields a volume may hold, written as the kubelet writes them. */
function addFields(
  files: VolumeFiles,
  pod: ApiObject,
  items: (Item & { fieldRef?: { fieldPath?: string } })[],
  mode: number,
): void {
  for (const item of items) {
    const value = fieldValue(pod, item.fieldRef?.fieldPath ?? '');
    if (value !== null) files.set(String(item.path), { data: Buffer.from(value), mode: item.mode ?? mode });
  }
}

/** `metadata.annotations['key']` and `metadata.labels['key']`: one entry of the map (kube's SplitMaybeSubscriptedPath). */
const SUBSCRIPTED = /^metadata\.(annotations|labels)\['(.*)'\]$/;

/** A pod field as the downward API gives it (volumes and env), or null for one it does not serve. */
export function fieldValue(pod: ApiObject, fieldPath: string): string | null {
  const meta = pod.metadata;
  const entry = SUBSCRIPTED.exec(fieldPath);
  if (entry) return (meta[entry[1]] as Record<string, string> | undefined)?.[entry[2]] ?? '';
  switch (fieldPath) {
    case 'metadata.name':
      return meta.name ?? '';
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
    case 'metadata.labels':
      return formatMap(meta.labels);
    case 'metadata.annotations':
      return formatMap(meta.annotations);
    default:
      return null;
  }
}

/** `key="value"` lines, sorted, values quoted as Go's %q: the kubelet's FormatMap. */
function formatMap(map: Record<string, string> | undefined): string {
  return Object.keys(map ?? {})
    .sort()
    .map((key) => `${key}=${goQuote(map![key])}`)
    .join('\n');
}
