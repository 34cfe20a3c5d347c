/**
 * Where a service sends traffic, computed one way for everything that needs it: the endpoints
 * controller stores it as the service's Endpoints, the endpointslice controller as its
 * EndpointSlices (devcluster/controllers/endpoints-controller.ts), and `services/proxy` reads it
 * on demand so a request right after a pod changes does not wait for the controllers.
 */
import type { ApiServer } from '../apiserver/api-server.js';
import type { Json } from '../apiserver/json.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';

/** A port a pod serves a service port on (kube's EndpointPort). */
export interface EndpointPort {
  name: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

/** A pod behind a service, with what both of kube's controllers read of it. */
export interface Backend {
  pod: ApiObject;
  ip: string;
  /** The pod is Ready (an EndpointSlice's `serving`). */
  serving: boolean;
  /** The pod is being deleted. */
  terminating: boolean;
  /** The service ports the pod serves, each resolved through its targetPort. */
  ports: EndpointPort[];
}

export interface EndpointAddress {
  ip: string;
  /** The pod behind the address (kube's targetRef); an address without one is never proxied to. */
  podName?: string;
}

export interface EndpointSubset {
  addresses: EndpointAddress[];
  notReadyAddresses: EndpointAddress[];
  ports: { name: string; port: number }[];
}

/** A service the controllers keep endpoints for: one with a selector. */
export function hasSelector(service: ApiObject): boolean {
  return Object.keys(service.spec?.selector ?? {}).length > 0;
}

/**
 * The pods a service's selector matches in its namespace that have an IP and are not terminal
 * (kube's ShouldPodBeInEndpoints with terminating pods included, which the EndpointSlices keep).
 * Each service port is resolved through its targetPort, a number or the name of a container port
 * of the same protocol; a port the pod lacks is left out for that pod.
 */
export function serviceBackends(service: ApiObject, pods: readonly ApiObject[]): Backend[] {
  const selector: Record<string, string> = service.spec?.selector ?? {};
  if (Object.keys(selector).length === 0) return [];
  const servicePorts: Json[] = service.spec?.ports ?? [];
  const backends: Backend[] = [];
  for (const pod of pods) {
    if (pod.metadata.namespace !== service.metadata.namespace) continue;
    const labels: Record<string, string> = pod.metadata.labels ?? {};
    if (!Object.entries(selector).every(([key, value]) => labels[key] === value)) continue;
    const ip = podIp(pod);
    const phase = pod.status?.phase;
    if (!ip || phase === 'Succeeded' || phase === 'Failed') continue;
    const ports = servicePorts.flatMap((servicePort): EndpointPort[] => {
      const port = targetPortOf(pod, servicePort);
      if (port === null) return [];
      const resolved: EndpointPort = {
        name: String(servicePort.name ?? ''),
        port,
        protocol: String(servicePort.protocol ?? 'TCP'),
      };
      if (typeof servicePort.appProtocol === 'string') resolved.appProtocol = servicePort.appProtocol;
      return [resolved];
    });
    backends.push({ pod, ip, serving: isReady(pod), terminating: Boolean(pod.metadata.deletionTimestamp), ports });
  }
  return backends;
}

/** The pod's primary IP (status.podIPs[0], as kube reads it), or '' before it has one. */
export function podIp(pod: ApiObject): string {
  return String(pod.status?.podIPs?.[0]?.ip ?? '');
}

/** A targetRef to a pod, as both controllers write it. */
export function podReference(pod: ApiObject): Json {
  return { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid };
}

/**
 * The `subsets` of the Endpoints kube's endpoints controller stores: terminating pods left out
 * (unless publishNotReadyAddresses), ready ones as addresses and the others as notReadyAddresses
 * (all ready with publishNotReadyAddresses), one entry per service port a pod serves, then
 * repacked as kube's RepackSubsets does: ports offered by the same addresses share a subset.
 * A headless service without ports lists its pods with no ports; another service without ports
 * has none. Empty when nothing is left, which kube stores as no subsets at all.
 */
export function endpointSubsets(service: ApiObject, backends: readonly Backend[]): Json[] {
  const publishNotReady = service.spec?.publishNotReadyAddresses === true;
  const headless = service.spec?.clusterIP === 'None';
  const noPorts = (service.spec?.ports ?? []).length === 0;
  const addressesByPort = new Map<string, { port: Json | null; addresses: Map<string, [Json, boolean]> }>();
  for (const backend of backends) {
    if (backend.terminating && !publishNotReady) continue;
    const ready = publishNotReady || backend.serving;
    const address: Json = { ip: backend.ip };
    if (backend.pod.spec?.nodeName) address.nodeName = backend.pod.spec.nodeName;
    address.targetRef = podReference(backend.pod);
    const ports: (Json | null)[] = noPorts ? (headless ? [null] : []) : backend.ports.map(endpointsPort);
    for (const port of ports) {
      const key = JSON.stringify(port);
      const entry = addressesByPort.get(key) ?? { port, addresses: new Map() };
      entry.addresses.set(backend.ip, [address, ready]);
      addressesByPort.set(key, entry);
    }
  }
  const bySameAddresses = new Map<string, { ports: Json[]; addresses: [Json, boolean][] }>();
  for (const { port, addresses } of addressesByPort.values()) {
    const sorted = [...addresses.values()].sort(([a], [b]) => compareText(a.ip, b.ip));
    const key = JSON.stringify(sorted.map(([address, ready]) => [address.ip, ready]));
    const subset = bySameAddresses.get(key) ?? { ports: [], addresses: sorted };
    if (port) subset.ports.push(port);
    bySameAddresses.set(key, subset);
  }
  return [...bySameAddresses.values()]
    .map(({ ports, addresses }) => {
      const subset: Json = {};
      const ready = addresses.filter(([, isReady]) => isReady).map(([address]) => address);
      const notReady = addresses.filter(([, isReady]) => !isReady).map(([address]) => address);
      if (ready.length) subset.addresses = ready;
      if (notReady.length) subset.notReadyAddresses = notReady;
      if (ports.length) subset.ports = ports.sort((a, b) => compareText(a.name ?? '', b.name ?? ''));
      return subset;
    })
    .sort((a, b) => compareText(firstIp(a), firstIp(b)));
}

function endpointsPort(port: EndpointPort): Json {
  const json: Json = {};
  if (port.name) json.name = port.name;
  json.port = port.port;
  json.protocol = port.protocol;
  if (port.appProtocol) json.appProtocol = port.appProtocol;
  return json;
}

function firstIp(subset: Json): string {
  return String((subset.addresses ?? subset.notReadyAddresses)?.[0]?.ip ?? '');
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * What `services/proxy` reaches: for a service with a selector, the subsets the endpoints
 * controller would store, computed now; for one without, the Endpoints object stored under its
 * name (404 `endpoints "x" not found` if none).
 */
export async function serviceEndpoints(api: ApiServer, service: ApiObject): Promise<EndpointSubset[]> {
  const namespace = String(service.metadata.namespace);
  if (!hasSelector(service)) {
    const stored = await api.registryOf('', 'endpoints')!.get(namespace, String(service.metadata.name));
    return readSubsets(stored.subsets, namespace);
  }
  const { objects: pods } = await api.registryOf('', 'pods')!.objects.list(namespace, {});
  return readSubsets(endpointSubsets(service, serviceBackends(service, pods)), namespace);
}

function readSubsets(subsets: unknown, namespace: string): EndpointSubset[] {
  const addressesOf = (list: unknown): EndpointAddress[] =>
    (Array.isArray(list) ? list : []).map((address: Json) => {
      const ref = address.targetRef;
      const isPod = ref?.kind === 'Pod' && ref.namespace === namespace && typeof ref.name === 'string';
      return isPod ? { ip: String(address.ip), podName: ref.name } : { ip: String(address.ip) };
    });
  return (Array.isArray(subsets) ? subsets : []).map((subset: Json) => ({
    addresses: addressesOf(subset.addresses),
    notReadyAddresses: addressesOf(subset.notReadyAddresses),
    ports: (Array.isArray(subset.ports) ? subset.ports : []).map((p: Json) => ({
      name: String(p.name ?? ''),
      port: Number(p.port),
    })),
  }));
}

/** kube's FindPort: a numeric targetPort as is; a named one from the pod's container ports of the same protocol. */
function targetPortOf(pod: ApiObject, servicePort: Json): number | null {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(String(target))) return Number(target);
  const protocol = servicePort.protocol ?? 'TCP';
  for (const container of pod.spec?.containers ?? []) {
    for (const port of container.ports ?? []) {
      if (port.name === target && (port.protocol ?? 'TCP') === protocol) return Number(port.containerPort);
    }
  }
  return null;
}

function isReady(pod: ApiObject): boolean {
  const conditions: { type?: string; status?: string }[] = pod.status?.conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}
