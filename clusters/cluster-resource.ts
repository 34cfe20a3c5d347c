import type { ApiObject } from '../apiserver/registry/object-store.js';
import type { Strategy } from '../apiserver/registry/strategy.js';
import type { ResourceInfo } from '../apiserver/resources/resource-info.js';
import { invalid, notSupported, required, type Cause } from '../apiserver/validation/cause.js';
import { isDNS1123Label, isQualifiedName, isValidLabelValue } from '../apiserver/validation/names.js';

/**
 * Karmada's Cluster kind (`cluster.karmada.io/v1alpha1`, cluster-scoped): one upstream cluster
 * tenants can be placed on, with its endpoint, the Secret holding its credentials, where it runs
 * (provider, region, zones), its taints, and a status the cluster status controller writes.
 *
 *   spec:   id, syncMode (Push), apiEndpoint, secretRef {namespace, name}, insecureSkipTLSVerification,
 *           provider, region, zone (deprecated) / zones, taints; impersonatorSecretRef and proxyURL are
 *           validated and stored, not used
 *   status: kubernetesVersion, apiEnablements [{groupVersion, resources [{name, kind}]}], conditions [Ready]
 */
export const CLUSTER_GROUP = 'cluster.karmada.io';
export const CLUSTER_VERSION = 'v1alpha1';
export const CLUSTER_READY = 'Ready';

export const CLUSTER_RESOURCE: ResourceInfo = {
  group: CLUSTER_GROUP,
  version: CLUSTER_VERSION,
  resource: 'clusters',
  kind: 'Cluster',
  listKind: 'ClusterList',
  singular: 'cluster',
  namespaced: false,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  shortNames: [],
  categories: [],
  subresources: [{ name: 'status', kind: 'Cluster', verbs: ['get', 'patch', 'update'] }],
  // Not compiled into kubectl: client-side apply sends merge patches, as for custom resources.
  builtin: false,
};

/** Karmada's cluster name rule: a DNS label of at most 48 characters. */
const CLUSTER_NAME_MAX_LENGTH = 48;
/** Karmada also knows Pull (an agent in the member cluster pulls its work); the gateway only pushes. */
const SYNC_MODES = ['Push'];
/** Karmada's cluster taints may only keep tenants off (NoSchedule) or evict them (NoExecute). */
const TAINT_EFFECTS = ['NoSchedule', 'NoExecute'];

export function validateClusterName(name: string, prefix: boolean): string[] {
  if (prefix) return [];
  if (name.length === 0) return ['must be not empty'];
  if (name.length > CLUSTER_NAME_MAX_LENGTH) return [`must be no more than ${CLUSTER_NAME_MAX_LENGTH} characters`];
  return isDNS1123Label(name);
}

/** Karmada's ValidateClusterSpec, for the fields the gateway serves. */
export function validateCluster(cluster: ApiObject): Cause[] {
  const spec = cluster.spec;
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return [required('spec')];
  const causes: Cause[] = [];
  if (!spec.syncMode) causes.push(required('spec.syncMode'));
  if (!SYNC_MODES.includes(spec.syncMode)) causes.push(notSupported('spec.syncMode', spec.syncMode ?? '', SYNC_MODES));
  if (spec.apiEndpoint !== undefined && spec.apiEndpoint !== '')
    causes.push(...validateApiEndpoint(String(spec.apiEndpoint)));
  for (const ref of ['secretRef', 'impersonatorSecretRef']) {
    if (spec[ref] === undefined || spec[ref] === null) continue;
    if (!spec[ref].namespace) causes.push(required(`spec.${ref}.namespace`));
    if (!spec[ref].name) causes.push(required(`spec.${ref}.name`));
  }
  if (spec.proxyURL !== undefined && spec.proxyURL !== '') causes.push(...validateProxyUrl(String(spec.proxyURL)));
  causes.push(...validateLocation(spec));
  if (Array.isArray(spec.taints)) causes.push(...validateTaints(spec.taints));
  return causes;
}

function validateApiEndpoint(endpoint: string): Cause[] {
  const field = 'spec.apiEndpoint';
  const form = '; desired format: hostname, hostname:port, IP or IP:port';
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch (err) {
    return [invalid(field, endpoint, `apiEndpoint must be a valid URL: ${(err as Error).message}${form}`)];
  }
  const causes: Cause[] = [];
  if (url.host === '') causes.push(invalid(field, url.host, `host must be provided${form}`));
  if (url.username || url.password)
    causes.push(invalid(field, url.username, 'user information is not permitted in the URL'));
  if (url.hash) causes.push(invalid(field, url.hash.slice(1), 'fragments are not permitted in the URL'));
  if (url.search) causes.push(invalid(field, url.search.slice(1), 'query parameters are not permitted in the URL'));
  return causes;
}

/** Karmada stores a proxy for reaching the cluster (the gateway does not use one yet): http, https or socks5. */
function validateProxyUrl(proxyUrl: string): Cause[] {
  let scheme: string;
  try {
    scheme = new URL(proxyUrl).protocol.replace(/:$/, '');
  } catch (err) {
    return [invalid('spec.proxyURL', proxyUrl, `apiEndpoint must be a valid URL: ${(err as Error).message}`)];
  }
  return ['http', 'https', 'socks5'].includes(scheme)
    ? []
    : [invalid('spec.proxyURL', proxyUrl, `unsupported scheme "${scheme}", must be http, https, or socks5`)];
}

/** provider, region and zones are label values (Karmada selects clusters by them); zone and zones exclude each other. */
function validateLocation(spec: Record<string, any>): Cause[] {
  const causes: Cause[] = [];
  const labelValue = (field: string, value: unknown) => {
    const errors = isValidLabelValue(typeof value === 'string' ? value : '');
    if (errors.length) causes.push(invalid(field, value, errors.join('; ')));
  };
  labelValue('spec.provider', spec.provider);
  labelValue('spec.region', spec.region);
  const zones: unknown[] = Array.isArray(spec.zones) ? spec.zones : [];
  if (spec.zone && zones.length) {
    causes.push({
      reason: 'FieldValueTypeInvalid',
      field: 'spec.spec',
      message: 'Invalid value: "object": Zone and Zones cannot co-exist',
    });
    return causes;
  }
  if (spec.zone) labelValue('spec.Zone', spec.zone);
  else for (const zone of zones) labelValue('spec.Zones', zone);
  return causes;
}

function validateTaints(taints: any[]): Cause[] {
  const causes: Cause[] = [];
  const seen = new Set<string>();
  for (const [i, taint] of taints.entries()) {
    const field = `spec.taints[${i}]`;
    const key = String(taint?.key ?? '');
    for (const message of isQualifiedName(key)) causes.push(invalid(`${field}.key`, key, message));
    const valueErrors = isValidLabelValue(String(taint?.value ?? ''));
    if (valueErrors.length) causes.push(invalid(`${field}.value`, taint.value, valueErrors.join(';')));
    if (!taint?.effect) causes.push(required(`${field}.effect`));
    else if (!TAINT_EFFECTS.includes(taint.effect))
      causes.push(notSupported(`${field}.effect`, taint.effect, TAINT_EFFECTS));
    const pair = `${taint?.effect}\n${key}`;
    if (seen.has(pair)) {
      causes.push({
        reason: 'FieldValueDuplicate',
        field,
        message: `Duplicate value: ${JSON.stringify(taint)}: taints must be unique by key and effect pair`,
      });
    }
    seen.add(pair);
  }
  return causes;
}

/**
 * Karmada's MutateClusterTaints (its registry's Canonicalize and its webhook): a NoExecute taint
 * added without `timeAdded` gets now, since tolerationSeconds count from it and a taint without it
 * would be tolerated for ever.
 */
function stampNoExecuteTaints(cluster: ApiObject): void {
  const taints: unknown = cluster.spec?.taints;
  if (!Array.isArray(taints)) return;
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  for (const taint of taints as { effect?: unknown; timeAdded?: unknown }[])
    if (taint?.effect === 'NoExecute' && !taint.timeAdded) taint.timeAdded = now;
}

/** Status is the cluster status controller's (the status subresource keeps clients off it). */
export const clusterStrategy: Strategy = {
  prepareForCreate: (cluster) => {
    delete cluster.status;
    stampNoExecuteTaints(cluster);
  },
  prepareForUpdate: (cluster) => stampNoExecuteTaints(cluster),
  validateName: validateClusterName,
  validate: (cluster) => validateCluster(cluster),
};

/** The Ready condition's status, `Unknown` until the controller has written one (as Karmada prints it). */
export function clusterReadyStatus(cluster: ApiObject): string {
  return clusterProbedReadyStatus(cluster) ?? 'Unknown';
}

/** The Ready condition's status; undefined until the cluster status controller has written one. */
export function clusterProbedReadyStatus(cluster: ApiObject): string | undefined {
  const ready = (cluster.status?.conditions ?? []).find((c: { type: string }) => c.type === CLUSTER_READY);
  return typeof ready?.status === 'string' ? ready.status : undefined;
}
