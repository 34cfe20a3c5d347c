/** Objects for the multi-cluster cache's tests: raw pods and nodes as a cluster sends them, and their cached form. */
import type { Json } from '../../apiserver/json.js';
import type { CachedObject } from '../../search/cached-object.js';
import type { CacheResource } from '../../search/cluster-resource-store.js';
import { selectableFieldsOf, toCachedObject } from '../../search/to-cached-object.js';

export const PODS: CacheResource = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
export const NODES: CacheResource = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };
export const SECRETS: CacheResource = {
  group: '',
  version: 'v1',
  resource: 'secrets',
  kind: 'Secret',
  namespaced: true,
};

export interface PodOptions {
  namespace?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  nodeName?: string;
  phase?: string;
}

export function rawPod(name: string, options: PodOptions = {}): Json {
  const metadata: Json = { name, namespace: options.namespace ?? 'default', uid: `uid-${name}` };
  if (options.resourceVersion !== undefined) metadata.resourceVersion = options.resourceVersion;
  if (options.labels !== undefined) metadata.labels = options.labels;
  metadata.managedFields = [{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:metadata': {} } }];
  const pod: Json = { apiVersion: 'v1', kind: 'Pod', metadata, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  if (options.nodeName !== undefined) pod.spec.nodeName = options.nodeName;
  if (options.phase !== undefined) pod.status = { phase: options.phase };
  return pod;
}

export function pod(name: string, options: PodOptions = {}): CachedObject {
  return toCachedObject(rawPod(name, options), selectableFieldsOf('', 'pods', true));
}

export function node(name: string, resourceVersion: string): CachedObject {
  const raw = { apiVersion: 'v1', kind: 'Node', metadata: { name, resourceVersion } };
  return toCachedObject(raw, selectableFieldsOf('', 'nodes', false));
}
