/**
 * The Endpoints of a service as kube's endpoints controller would publish them. The devcluster runs
 * no such controller, so they are computed when a `services/proxy` request needs them.
 */
import type { ApiServer } from '../apiserver/api-server.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';

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

/**
 * A service with a selector gets one subset per matching pod that has an IP and is neither
 * terminal nor being deleted: ready pods as addresses, the others as notReadyAddresses (all ready
 * with publishNotReadyAddresses). Each service port is resolved through its targetPort, a number or
 * the name of a container port; a pod without that named port is left out of it. A service without
 * a selector has the Endpoints object stored under its name (404 `endpoints "x" not found` if none).
 */
export async function serviceEndpoints(api: ApiServer, service: ApiObject): Promise<EndpointSubset[]> {
  const namespace = String(service.metadata.namespace);
  const selector: Record<string, string> = service.spec?.selector ?? {};
  if (Object.keys(selector).length === 0) return storedEndpoints(api, namespace, String(service.metadata.name));
  const { objects: pods } = await api.registryOf('', 'pods')!.objects.list(namespace, {});
  const servicePorts: Record<string, any>[] = service.spec?.ports ?? [];
  const publishNotReady = service.spec?.publishNotReadyAddresses === true;
  const subsets: EndpointSubset[] = [];
  for (const pod of pods) {
    const labels: Record<string, string> = pod.metadata.labels ?? {};
    if (!Object.entries(selector).every(([key, value]) => labels[key] === value)) continue;
    const ip = podIp(pod);
    const phase = pod.status?.phase;
    if (!ip || phase === 'Succeeded' || phase === 'Failed' || (pod.metadata.deletionTimestamp && !publishNotReady))
      continue;
    const ports = servicePorts.flatMap((servicePort) => {
      const port = targetPortOf(pod, servicePort);
      return port === null ? [] : [{ name: String(servicePort.name ?? ''), port }];
    });
    if (servicePorts.length > 0 && ports.length === 0) continue;
    const address = { ip, podName: String(pod.metadata.name) };
    const ready = publishNotReady || isReady(pod);
    subsets.push({ addresses: ready ? [address] : [], notReadyAddresses: ready ? [] : [address], ports });
  }
  return subsets;
}

/** The pod's primary IP (status.podIPs[0], as kube reads it), or '' before it has one. */
export function podIp(pod: ApiObject): string {
  return String(pod.status?.podIPs?.[0]?.ip ?? '');
}

async function storedEndpoints(api: ApiServer, namespace: string, name: string): Promise<EndpointSubset[]> {
  const endpoints = await api.registryOf('', 'endpoints')!.get(namespace, name);
  const addressesOf = (list: unknown): EndpointAddress[] =>
    (Array.isArray(list) ? list : []).map((address: Record<string, any>) => {
      const ref = address.targetRef;
      const isPod = ref?.kind === 'Pod' && ref.namespace === namespace && typeof ref.name === 'string';
      return isPod ? { ip: String(address.ip), podName: ref.name } : { ip: String(address.ip) };
    });
  return (Array.isArray(endpoints.subsets) ? endpoints.subsets : []).map((subset: Record<string, any>) => ({
    addresses: addressesOf(subset.addresses),
    notReadyAddresses: addressesOf(subset.notReadyAddresses),
    ports: (Array.isArray(subset.ports) ? subset.ports : []).map((p: Record<string, any>) => ({
      name: String(p.name ?? ''),
      port: Number(p.port),
    })),
  }));
}

/** kube's FindPort: a numeric targetPort as is; a named one from the pod's container ports of the same protocol. */
function targetPortOf(pod: ApiObject, servicePort: Record<string, any>): number | null {
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
