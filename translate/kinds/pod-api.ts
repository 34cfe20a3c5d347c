/**
 * A tenant's pods and their API. A pod that uses in-cluster config (client-go's, Python's,
 * client-node's) finds the API by `KUBERNETES_SERVICE_HOST`/`PORT`, trusts it by `ca.crt` and
 * authenticates with `token` at /var/run/secrets/kubernetes.io/serviceaccount, and learns its
 * namespace from `namespace` there. The cluster would point all four at itself; the tenant's API
 * is the gateway. So, up, a pod (or the pod template of a workload, which the cluster's
 * controllers copy into pods) is pointed at the gateway:
 *
 * - **Token audiences.** A projected ServiceAccount token's audience is converted as a
 *   TokenRequest's is (token-request.ts): none means the tenant's API, the gateway's audience
 *   upstream, which the upstream API does not accept; any other carries the tenant's prefix.
 * - **The namespace.** The downward API's `metadata.namespace` (in env and in volumes) would
 *   give the upstream name; it reads the annotation NAMESPACE_ANNOTATION instead, which holds
 *   the tenant's name of the namespace.
 * - **The CA.** A projected `kube-root-ca.crt` (the cluster's CA) is read from the annotation
 *   CA_ANNOTATION instead, which holds the gateway's CA.
 * - **Where the API is** (when the gateway says, PodApi): every container and init container is
 *   given the `kubernetes` Service's variables for the gateway's address (the container's own
 *   win, as with the kubelet's), `hostAliases` name the gateway's IP `kubernetes.default.svc…`,
 *   and, unless the pod or its account (PodApi.tokenVolume) turns automount off, the
 *   `kube-api-access-*` volume kube's ServiceAccount admission would add is added here (in kube's
 *   form, so the three rules above convert it), mounted as kube mounts it; the upstream's
 *   admission then adds none of its own (it keeps a `kube-api-access-*` volume it finds).
 *   ENDPOINT_ANNOTATION records the address.
 *
 * Down, all of it is undone: a pod reads back as written, with the token volume as kube's
 * admission would have added it; a template reads back as written, without it. And each
 * namespace's `kube-root-ca.crt`, which kube's publisher fills with the cluster's CA, holds the
 * gateway's (rootCaConvertor).
 */
import { hostPort, parseHostPort, type HostPort } from '../../apiserver/host-port.js';
import { isObject, type Json } from '../../apiserver/json.js';
import { objectAt, prefixed, type Convertor } from './convertor.js';
import type { Invariant } from './invariants.js';
import type { PodApi, TenantContext } from '../context.js';
import { GATEWAY_AUDIENCE } from './token-request.js';

const NAMESPACE_ANNOTATION = 'paddock.io/namespace';
const CA_ANNOTATION = 'paddock.io/api-ca';
const ENDPOINT_ANNOTATION = 'paddock.io/api-endpoint';
/** The tenant's own `automountServiceAccountToken`: `true`, `false`, or UNSET. */
const AUTOMOUNT_ANNOTATION = 'paddock.io/automount';
const UNSET = 'unset';
const OWN_ANNOTATIONS = [NAMESPACE_ANNOTATION, CA_ANNOTATION, ENDPOINT_ANNOTATION, AUTOMOUNT_ANNOTATION];

/** Whether a pod's or template's annotation is one only the gateway writes (a tenant never sees them). */
export function isGatewayAnnotation(key: string): boolean {
  return OWN_ANNOTATIONS.includes(key);
}
const AUTOMOUNT = 'automountServiceAccountToken';

const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
/** The volume added here; named as kube names its own (a prefix and five characters of its alphabet's letters). */
const ADDED_TOKEN_VOLUME = `${TOKEN_VOLUME_PREFIX}pddck`;
const ROOT_CA = 'kube-root-ca.crt';
const CA_KEY = 'ca.crt';
const NAMESPACE_FIELD = 'metadata.namespace';
const IN_CLUSTER_NAMES = [
  'kubernetes',
  'kubernetes.default',
  'kubernetes.default.svc',
  'kubernetes.default.svc.cluster.local',
];

const annotationField = (key: string) => `metadata.annotations['${key}']`;
const NAMESPACE_ANNOTATION_FIELD = annotationField(NAMESPACE_ANNOTATION);
const CA_ANNOTATION_FIELD = annotationField(CA_ANNOTATION);

/** A pod's containers that run with its volumes and environment: kube's admission mounts the token into these. */
const CONTAINER_LISTS = ['initContainers', 'containers'] as const;
/** Every list of containers, for the downward API's fields (ephemeral containers have env too). */
const ALL_CONTAINER_LISTS = [...CONTAINER_LISTS, 'ephemeralContainers'] as const;

/** The variables the kubelet gives a container for the `kubernetes` Service, for the gateway. */
function serviceVariables(host: string, port: number): { name: string; value: string }[] {
  const url = `tcp://${hostPort(host, port)}`;
  return [
    { name: 'KUBERNETES_SERVICE_HOST', value: host },
    { name: 'KUBERNETES_SERVICE_PORT', value: String(port) },
    { name: 'KUBERNETES_SERVICE_PORT_HTTPS', value: String(port) },
    { name: 'KUBERNETES_PORT', value: url },
    { name: `KUBERNETES_PORT_${port}_TCP`, value: url },
    { name: `KUBERNETES_PORT_${port}_TCP_PROTO`, value: 'tcp' },
    { name: `KUBERNETES_PORT_${port}_TCP_PORT`, value: String(port) },
    { name: `KUBERNETES_PORT_${port}_TCP_ADDR`, value: host },
  ];
}

/** kube 1.32's token volume, as its ServiceAccount admission adds it. */
function kubeTokenVolume(name: string, expirationSeconds = 3607): Json {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds, path: 'token' } },
        { configMap: { name: ROOT_CA, items: [{ key: CA_KEY, path: CA_KEY }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: NAMESPACE_FIELD } }] } },
      ],
    },
  };
}

/**
 * The objects of an array. These helpers run on every pod a tenant reads, where most lists are
 * absent from what is read: they make an array only when they find something.
 */
const objects = (value: unknown): Json[] =>
  Array.isArray(value) ? (value.every(isObject) ? value : value.filter(isObject)) : [];

function containersOf(spec: Json, lists: readonly string[] = CONTAINER_LISTS): Json[] {
  let found: Json[] = [];
  for (const list of lists) {
    const containers = objects(spec[list]);
    if (containers.length) found = found.length ? found.concat(containers) : containers;
  }
  return found;
}

/** Every downward-API field reference of the pod spec: env's and volumes' (projected ones too). */
function fieldRefs(spec: Json): Json[] {
  const refs: Json[] = [];
  for (const list of ALL_CONTAINER_LISTS)
    for (const container of objects(spec[list]))
      for (const entry of objects(container.env))
        if (isObject(entry.valueFrom) && isObject(entry.valueFrom.fieldRef)) refs.push(entry.valueFrom.fieldRef);
  for (const volume of objects(spec.volumes)) {
    itemRefs(volume.downwardAPI, refs);
    if (isObject(volume.projected))
      for (const source of objects(volume.projected.sources)) itemRefs(source.downwardAPI, refs);
  }
  return refs;
}

/** A downwardAPI's items' field references, added to `refs`. */
function itemRefs(downward: unknown, refs: Json[]): void {
  if (!isObject(downward)) return;
  for (const item of objects(downward.items)) if (isObject(item.fieldRef)) refs.push(item.fieldRef);
}

function projectedSources(spec: Json): Json[] {
  const found: Json[] = [];
  for (const volume of objects(spec.volumes))
    if (isObject(volume.projected) && Array.isArray(volume.projected.sources)) found.push(volume.projected);
  return found;
}

function setAnnotation(holder: Json, key: string, value: string): void {
  if (!isObject(holder.metadata)) holder.metadata = {};
  if (!isObject(holder.metadata.annotations)) holder.metadata.annotations = {};
  holder.metadata.annotations[key] = value;
}

function up(ctx: TenantContext, holder: Json, namespace: unknown, replaced: boolean): void {
  const annotations = holder.metadata?.annotations;
  // Only the gateway writes these: a tenant's own would point its pods' files elsewhere.
  if (isObject(annotations)) for (const key of OWN_ANNOTATIONS) delete annotations[key];
  const spec = holder.spec;
  if (!isObject(spec)) return;
  // A strategic merge patch's `$patch: replace` on the way to the spec makes the spec whole.
  const api = ctx.podApi && replaced ? { ...ctx.podApi, adds: 'all' as const } : ctx.podApi;
  // Whether anything here is the gateway's to undo when the pod is read.
  let converted = false;
  const own: unknown = spec[AUTOMOUNT];
  if (api && own !== false && Array.isArray(spec.containers)) {
    pointAtGateway(holder, spec, api);
    converted = true;
  }
  // The cluster's admission never mounts a token of its own, which its API would accept: only the
  // gateway's volume gives a pod a token. A patch that says nothing keeps the stored false (the
  // invariant automountInvariant makes sure of it whatever the patch).
  if (api && (api.adds === 'all' || AUTOMOUNT in spec)) {
    setAnnotation(holder, AUTOMOUNT_ANNOTATION, typeof own === 'boolean' ? String(own) : UNSET);
    spec[AUTOMOUNT] = false;
    converted = true;
  }
  let caRead = false;
  for (const projected of projectedSources(spec)) {
    projected.sources = projected.sources.map((source: unknown) => {
      if (!isObject(source)) return source;
      if (isObject(source.serviceAccountToken)) {
        const token = source.serviceAccountToken;
        token.audience =
          typeof token.audience === 'string' && token.audience !== ''
            ? prefixed.up(ctx, token.audience)
            : GATEWAY_AUDIENCE;
        converted = true;
      }
      // The cluster's CA is no use against the gateway: the gateway's, when it says which.
      if (!api || !isObject(source.configMap) || source.configMap.name !== ROOT_CA) return source;
      caRead = true;
      return caSourceUp(source.configMap);
    });
  }
  if (caRead) setAnnotation(holder, CA_ANNOTATION, api!.caPem);
  for (const ref of fieldRefs(spec))
    if (ref.fieldPath === NAMESPACE_FIELD) {
      ref.fieldPath = NAMESPACE_ANNOTATION_FIELD;
      converted = true;
    }
  // Read or not, it also tells a list's text that the item is to be converted whole (translate/list-text.ts).
  if (converted && typeof namespace === 'string') setAnnotation(holder, NAMESPACE_ANNOTATION, namespace);
}

/** The projected `kube-root-ca.crt`: its `ca.crt` key (the only one it has), from the gateway's CA annotation. */
function caSourceUp(configMap: Json): Json {
  const items = Array.isArray(configMap.items) ? objects(configMap.items) : [{ key: CA_KEY, path: CA_KEY }];
  return {
    downwardAPI: {
      items: items
        .filter((item) => item.key === CA_KEY)
        .map((item) => ({
          path: item.path,
          fieldRef: { apiVersion: 'v1', fieldPath: CA_ANNOTATION_FIELD },
          ...(item.mode !== undefined ? { mode: item.mode } : {}),
        })),
    },
  };
}

/** Back to the projected `kube-root-ca.crt` a downward-API source of nothing but the gateway's CA came from. */
function caSourceDown(downwardAPI: Json): Json | undefined {
  const items = objects(downwardAPI.items);
  if (items.length === 0 || !items.every((item) => item.fieldRef?.fieldPath === CA_ANNOTATION_FIELD)) return undefined;
  return {
    configMap: {
      name: ROOT_CA,
      items: items.map((item) => ({
        key: CA_KEY,
        path: item.path,
        ...(item.mode !== undefined ? { mode: item.mode } : {}),
      })),
    },
  };
}

function pointAtGateway(holder: Json, spec: Json, api: PodApi): void {
  const variables = serviceVariables(api.host, api.port);
  for (const container of containersOf(spec)) {
    const env = Array.isArray(container.env) ? container.env : (container.env = []);
    const own = new Set(objects(env).map((entry) => entry.name));
    env.push(...variables.filter((variable) => !own.has(variable.name)));
  }
  setAnnotation(holder, ENDPOINT_ANNOTATION, hostPort(api.host, api.port));
  if (api.adds === 'env') return;
  if (api.ip !== undefined) {
    const aliases = Array.isArray(spec.hostAliases) ? spec.hostAliases : (spec.hostAliases = []);
    aliases.push({ ip: api.ip, hostnames: [...IN_CLUSTER_NAMES] });
  }
  if (api.tokenVolume === false) return;
  const volumes = Array.isArray(spec.volumes) ? spec.volumes : (spec.volumes = []);
  let volume = objects(volumes).find((v) => typeof v.name === 'string' && v.name.startsWith(TOKEN_VOLUME_PREFIX));
  if (!volume) volumes.push((volume = kubeTokenVolume(ADDED_TOKEN_VOLUME)));
  mountToken(spec, String(volume.name));
}

/** The token volume `name` mounted as kube's admission mounts it: in every container without a mount at the path. */
function mountToken(spec: Json, name: string): void {
  for (const container of containersOf(spec)) {
    const mounts = Array.isArray(container.volumeMounts) ? container.volumeMounts : (container.volumeMounts = []);
    if (!objects(mounts).some((mount) => mount.mountPath === TOKEN_MOUNT_PATH))
      mounts.push({ name, readOnly: true, mountPath: TOKEN_MOUNT_PATH });
  }
}

/** A pod shows the token volume as kube's admission adds it; a template, as written, shows none. */
type Mode = 'pod' | 'template';

/** The object itself is the pod (an empty path), or it holds a pod template there. */
const modeAt = (path: readonly string[]): Mode => (path.length === 0 ? 'pod' : 'template');

function down(ctx: TenantContext, holder: Json, mode: Mode): void {
  const recorded = holder.metadata?.annotations?.[ENDPOINT_ANNOTATION];
  const endpoint = typeof recorded === 'string' ? parseHostPort(recorded) : undefined;
  const automount = automountOf(holder);
  if (isObject(holder.metadata)) dropOwnAnnotations(holder.metadata);
  const spec = holder.spec;
  if (!isObject(spec)) return;
  if (automount === UNSET) delete spec[AUTOMOUNT];
  else if (automount !== undefined) spec[AUTOMOUNT] = automount === 'true';
  for (const ref of fieldRefs(spec)) if (ref.fieldPath === NAMESPACE_ANNOTATION_FIELD) ref.fieldPath = NAMESPACE_FIELD;
  for (const projected of projectedSources(spec)) {
    projected.sources = projected.sources.map((source: unknown) => {
      if (!isObject(source)) return source;
      const token = source.serviceAccountToken;
      if (isObject(token) && typeof token.audience === 'string') {
        // The gateway's is the tenant's API's, which kube leaves unsaid; another tenant's is none of this one's.
        const audience = token.audience === GATEWAY_AUDIENCE ? null : prefixed.down(ctx, token.audience);
        if (audience === null) delete token.audience;
        else token.audience = audience;
      }
      return (isObject(source.downwardAPI) && caSourceDown(source.downwardAPI)) || source;
    });
  }
  if (endpoint) unpoint(spec, endpoint, mode);
}

/** The tenant's own automountServiceAccountToken as the gateway recorded it, if it did. */
function automountOf(holder: Json): string | undefined {
  const recorded: unknown = holder.metadata?.annotations?.[AUTOMOUNT_ANNOTATION];
  return recorded === 'true' || recorded === 'false' || recorded === UNSET ? recorded : undefined;
}

/** The gateway's annotations taken out of `metadata`, and its annotations when none is left. */
function dropOwnAnnotations(metadata: Json): void {
  const annotations = metadata.annotations;
  if (!isObject(annotations) || !OWN_ANNOTATIONS.some((key) => key in annotations)) return;
  for (const key of OWN_ANNOTATIONS) delete annotations[key];
  if (Object.keys(annotations).length === 0) delete metadata.annotations;
}

/** What pointAtGateway added, found by the address it recorded, taken out. */
function unpoint(spec: Json, endpoint: HostPort, mode: Mode): void {
  const variables = serviceVariables(endpoint.host, endpoint.port);
  const added = (entry: unknown) =>
    isObject(entry) &&
    entry.valueFrom === undefined &&
    variables.some((variable) => variable.name === entry.name && variable.value === entry.value);
  const alias = (entry: unknown) =>
    isObject(entry) &&
    entry.ip === endpoint.host &&
    Array.isArray(entry.hostnames) &&
    entry.hostnames.join() === IN_CLUSTER_NAMES.join();
  const addedMount = (mount: unknown) =>
    mode === 'template' && isObject(mount) && mount.name === ADDED_TOKEN_VOLUME && mount.mountPath === TOKEN_MOUNT_PATH;
  for (const container of containersOf(spec)) {
    dropWhere(container, 'env', added);
    dropWhere(container, 'volumeMounts', addedMount);
  }
  dropWhere(spec, 'hostAliases', alias);
  if (mode === 'template')
    dropWhere(spec, 'volumes', (volume) => isObject(volume) && volume.name === ADDED_TOKEN_VOLUME);
}

/** The elements of the array at `key` that `drop` picks taken out; an array left empty goes, as kube leaves empty lists out. */
function dropWhere(node: Json, key: string, drop: (element: unknown) => boolean): void {
  const array = node[key];
  if (!Array.isArray(array) || !array.some(drop)) return;
  const kept = array.filter((element) => !drop(element));
  if (kept.length) node[key] = kept;
  else delete node[key];
}

/** `k:{"name":"x"}`: an element of a keyed list in a managedFields entry's fieldsV1. */
const keyed = (key: Record<string, string>) => `k:${JSON.stringify(key)}`;

/** The `kubernetes` Service's variables, whatever the port: a manager's record does not say their values. */
const SERVICE_VARIABLE =
  /^k:\{"name":"KUBERNETES_(SERVICE_HOST|SERVICE_PORT|SERVICE_PORT_HTTPS|PORT|PORT_\d+_TCP(_PROTO|_PORT|_ADDR)?)"\}$/;

/**
 * Each manager's record (managedFields' fieldsV1) of the fields the gateway added at the pod or
 * template at `path` taken out: the tenant wrote none of them. Told by name, as a record holds no
 * values: the gateway's annotations, the `kubernetes` variables, the gateway's host alias,
 * `automountServiceAccountToken` where the tenant left it unset and, in a template, the token
 * volume it adds and the mount of it.
 */
function unmanage(
  ctx: TenantContext,
  metadata: unknown,
  path: readonly string[],
  mode: Mode,
  automount?: string,
): void {
  const entries = isObject(metadata) ? metadata.managedFields : undefined;
  if (!Array.isArray(entries)) return;
  const recordPath = ['fieldsV1', ...path.map((key) => `f:${key}`)];
  for (const entry of objects(entries)) {
    const holder = objectAt(entry, recordPath);
    if (!holder) continue;
    const annotations = holder['f:metadata']?.['f:annotations'];
    if (isObject(annotations)) {
      for (const key of OWN_ANNOTATIONS) delete annotations[`f:${key}`];
      prune(holder['f:metadata'], 'f:annotations');
      prune(holder, 'f:metadata');
    }
    const spec = holder['f:spec'];
    if (!isObject(spec)) continue;
    for (const list of CONTAINER_LISTS) {
      const containers = spec[`f:${list}`];
      for (const container of isObject(containers) ? Object.values(containers) : []) {
        if (!isObject(container)) continue;
        dropKeys(container, 'f:env', (key) => SERVICE_VARIABLE.test(key));
        if (mode === 'template')
          dropKeys(container, 'f:volumeMounts', (key) => key === keyed({ mountPath: TOKEN_MOUNT_PATH }));
      }
    }
    if (automount === UNSET) delete spec[`f:${AUTOMOUNT}`];
    const ip = ctx.podApi?.ip;
    if (ip !== undefined) dropKeys(spec, 'f:hostAliases', (key) => key === keyed({ ip }));
    if (mode === 'template') dropKeys(spec, 'f:volumes', (key) => key === keyed({ name: ADDED_TOKEN_VOLUME }));
  }
}

/**
 * The metadata of a pod or of an object holding a pod template, as a Table row carries it
 * (PartialObjectMetadata) down: a pod's annotations without the gateway's, and no manager's record
 * of what the gateway added.
 */
export function podMetadataDown(ctx: TenantContext, metadata: Json, path: readonly string[]): void {
  if (path.length === 0) dropOwnAnnotations(metadata);
  unmanage(ctx, metadata, path, modeAt(path));
}

/** The members of the fields set at `key` that `drop` picks taken out, and the set when nothing of it is left. */
function dropKeys(node: Json, key: string, drop: (member: string) => boolean): void {
  const set = node[key];
  if (!isObject(set)) return;
  for (const member of Object.keys(set)) if (drop(member)) delete set[member];
  prune(node, key);
}

/** A fields set that holds nothing but itself (`.`) goes: its manager owns nothing there. */
function prune(node: Json, key: string): void {
  const set = node[key];
  if (isObject(set) && Object.keys(set).every((member) => member === '.')) delete node[key];
}

/**
 * The pod (`path` empty) or pod template at `path` of an object, pointed at the gateway up and
 * shown as written down; the namespace is the object's own.
 */
export function podApiAt(path: readonly string[]): Convertor {
  const specPath = [...path, 'spec'];
  return {
    up: (ctx, node) => {
      const holder = objectAt(node, path);
      const replaced = specPath.some((_, i) => objectAt(node, specPath.slice(0, i + 1))?.$patch === 'replace');
      if (holder) up(ctx, holder, node.metadata?.namespace, replaced || node.$patch === 'replace');
    },
    down: (ctx, node) => {
      const holder = objectAt(node, path);
      const shown = ctx.appliedRecord ? 'template' : modeAt(path);
      const automount = holder && automountOf(holder);
      if (holder) down(ctx, holder, shown);
      unmanage(ctx, node.metadata, path, shown, automount);
      return true;
    },
  };
}

/**
 * Upstream, a pod or template the gateway points keeps `automountServiceAccountToken: false`, so
 * the cluster's admission never mounts a token its API accepts, whatever a patch does to the
 * gateway's volume (removes it, moves a value onto the field, nulls it, replaces the spec): a
 * patch's dry-run result that says otherwise is written with false (gateway/proxy/checked-write.ts).
 */
export function automountInvariant(specPath: readonly string[]): Invariant {
  return {
    path: [...specPath, AUTOMOUNT],
    must: 'must stay false upstream: the gateway mounts the token',
    holds: (ctx, value) => !ctx.podApi || value === false,
    normalize: () => false,
    whereHeld: true,
  };
}

/**
 * ConfigMap `kube-root-ca.crt`: the CA in-cluster clients verify their API with, the gateway's.
 * Upstream it stays the cluster's, which the cluster's publisher keeps it (and restores a write).
 */
export const rootCaConvertor: Convertor = {
  up: () => {},
  down: (ctx, node) => {
    if (ctx.podApi && node.metadata?.name === ROOT_CA && isObject(node.data) && typeof node.data[CA_KEY] === 'string')
      node.data[CA_KEY] = ctx.podApi.caPem;
    return true;
  },
};

/**
 * The gateway's token volume given to, or taken from, the pod or template `holder` (upstream, as a
 * patch's dry run answers it) so that it has one exactly when `wanted`; true when it changed. A
 * patch that moves a template to another ServiceAccount (`kubectl set serviceaccount`) is set
 * right by it, as kube's admission would mount or not for the new account. `namespace` is the
 * tenant's name of the holder's namespace.
 */
export function setGatewayToken(ctx: TenantContext, holder: Json, wanted: boolean, namespace: string): boolean {
  const spec = holder.spec;
  if (!ctx.podApi || !isObject(spec) || !Array.isArray(spec.containers)) return false;
  const volumes = objects(spec.volumes);
  const has = volumes.some((volume) => volume.name === ADDED_TOKEN_VOLUME);
  if (has === wanted) return false;
  if (!wanted) {
    dropWhere(spec, 'volumes', (volume) => isObject(volume) && volume.name === ADDED_TOKEN_VOLUME);
    for (const container of containersOf(spec))
      dropWhere(container, 'volumeMounts', (mount) => isObject(mount) && mount.name === ADDED_TOKEN_VOLUME);
    return true;
  }
  // Another token volume of kube's name is the tenant's own: kube's admission would mount that one.
  if (volumes.some((volume) => typeof volume.name === 'string' && volume.name.startsWith(TOKEN_VOLUME_PREFIX)))
    return false;
  // The volume as `up` converts it (its audience, the CA and namespace from the annotations it sets).
  const probe: Json = { metadata: {}, spec: { volumes: [kubeTokenVolume(ADDED_TOKEN_VOLUME)] } };
  up({ ...ctx, podApi: { ...ctx.podApi, adds: 'all' } }, probe, namespace, false);
  spec.volumes = [...(Array.isArray(spec.volumes) ? spec.volumes : []), probe.spec.volumes[0]];
  mountToken(spec, ADDED_TOKEN_VOLUME);
  for (const key of [CA_ANNOTATION, NAMESPACE_ANNOTATION])
    setAnnotation(holder, key, String(probe.metadata.annotations[key]));
  return true;
}

/** The tenant's own `automountServiceAccountToken` of an upstream pod or template, as the gateway recorded it. */
export function recordedAutomount(holder: Json): boolean | undefined | 'unrecorded' {
  const recorded = automountOf(holder);
  return recorded === undefined ? 'unrecorded' : recorded === UNSET ? undefined : recorded === 'true';
}
