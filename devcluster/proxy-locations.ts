/**
 * Where kube-apiserver would send a `pods|services|nodes/<id>/proxy` request (its ResourceLocation
 * for each), with kube's errors, and whether anything simulated answers there: a pod answers on
 * the TCP ports its containers declare, and on its web server's port, while it is Running; a
 * node's kubelet on its kubelet port.
 */
import type { ApiServer } from '../apiserver/api-server.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';
import { splitSchemeNamePort, type ResourceRequestInfo } from '../apiserver/request-info.js';
import { ApiError, badRequest, notFound, statusOf } from '../apiserver/status.js';
import { podIp, serviceEndpoints } from './service-endpoints.js';
import { webServerOn } from './web-server-images.js';

/** A pod's simulated HTTP server on one port; scheme is `http` or `https`. */
export interface PodPort {
  kind: 'pod';
  pod: ApiObject;
  port: number;
  scheme: string;
}

export interface Kubelet {
  kind: 'kubelet';
  node: ApiObject;
  port: number;
}

/** Nothing listens there: `error` is the dial error as Go words it. */
export interface Refused {
  kind: 'refused';
  error: string;
}

export type ProxyDestination = PodPort | Kubelet | Refused;

/** The kubelet's default --port, used when a node does not publish its own. */
const KUBELET_PORT = 10250;

/** kube's NewServiceUnavailable: a 503 Status without details (so without Retry-After). */
export const unavailable = (message: string) => new ApiError(statusOf(503, 'ServiceUnavailable', message));

export async function locateProxy(api: ApiServer, info: ResourceRequestInfo): Promise<ProxyDestination> {
  const target = splitSchemeNamePort(info.name);
  const kind = info.resource === 'services' ? 'service' : info.resource === 'nodes' ? 'node' : 'pod';
  if (!target) throw badRequest(`invalid ${kind} request "${info.name}"`);
  if (kind === 'service') return locateService(api, info.namespace, info.name, target.name, target.port, target.scheme);
  if (kind === 'node') return locateNode(await api.registryOf('', 'nodes')!.get('', target.name), target.port);
  const pod = await api.registryOf('', 'pods')!.get(info.namespace, target.name);
  // Without a port kube dials the first port a container declares, else the scheme's default.
  const firstDeclared = (pod.spec?.containers ?? []).find((c: Record<string, any>) => c.ports?.length)?.ports[0]
    .containerPort;
  return podDestination(pod, target.port || (firstDeclared === undefined ? '' : String(firstDeclared)), target.scheme);
}

/**
 * kube maps a port number to the service port's name, then picks a ready address of a random
 * subset whose ports include that name (the unnamed port when none is given).
 */
async function locateService(
  api: ApiServer,
  namespace: string,
  id: string,
  name: string,
  port: string,
  scheme: string,
): Promise<ProxyDestination> {
  const service = await api
    .registryOf('', 'services')!
    .get(namespace, name)
    .catch((err: unknown) => {
      if (err instanceof ApiError && err.code === 404) return null;
      throw err;
    });
  let portName = port;
  if (/^[+-]?\d+$/.test(port)) {
    if (!service) throw notFound({ group: '', resource: 'services' }, name);
    const servicePort = (service.spec?.ports ?? []).find((p: Record<string, any>) => p.port === Number(port));
    if (!servicePort) throw unavailable(`no service port ${Number(port)} found for service "${name}"`);
    portName = String(servicePort.name ?? '');
  }
  // The endpoints controller deletes the Endpoints of a service that is gone.
  if (!service) throw notFound({ group: '', resource: 'endpoints' }, name);
  const subsets = await serviceEndpoints(api, service);
  if (subsets.length === 0) throw unavailable(`no endpoints available for service "${name}"`);
  const pods = api.registryOf('', 'pods')!;
  for (const subset of shuffled(subsets)) {
    const endpointPort = subset.ports.find((p) => p.name === portName);
    if (!endpointPort) continue;
    for (const address of shuffled(subset.addresses)) {
      // kube proxies only to an address whose pod still has that IP.
      const pod = address.podName ? await pods.get(namespace, address.podName).catch(() => null) : null;
      if (pod && (pod.status?.podIPs ?? []).some((p: { ip?: string }) => p.ip === address.ip))
        return podDestination(pod, String(endpointPort.port), scheme);
    }
  }
  throw unavailable(`no endpoints available for service "${id}"`);
}

function locateNode(node: ApiObject, port: string): ProxyDestination {
  const kubeletPort = Number(node.status?.daemonEndpoints?.kubeletEndpoint?.Port) || KUBELET_PORT;
  if (port === '' || port === String(kubeletPort)) return { kind: 'kubelet', node, port: kubeletPort };
  const addresses: { type?: string; address?: string }[] = node.status?.addresses ?? [];
  const host =
    ['InternalIP', 'Hostname', 'ExternalIP']
      .map((type) => addresses.find((a) => a.type === type)?.address)
      .find(Boolean) ?? node.metadata.name;
  return refused(host, port);
}

/** A pod answers on a declared TCP port while Running; without a port it answers on the scheme's default. */
function podDestination(pod: ApiObject, port: string, scheme: string): ProxyDestination {
  const ip = podIp(pod);
  if (!isGlobalUnicast(ip)) throw badRequest('address not allowed');
  const https = scheme === 'https';
  const number = port === '' ? (https ? 443 : 80) : Number(port);
  const answers =
    pod.status?.phase === 'Running' &&
    (port === '' || (/^\d+$/.test(port) && number <= 65535 && podListensOn(pod, number)));
  return answers
    ? { kind: 'pod', pod, port: number, scheme: https ? 'https' : 'http' }
    : refused(ip, port || String(number));
}

/**
 * Whether a running pod has something listening on a TCP port: a port its containers declare, or
 * the port a web server image binds (web-server-images.ts). Port-forward asks the same question.
 */
export function podListensOn(pod: ApiObject, port: number): boolean {
  const declared = (pod.spec?.containers ?? []).some((c: Record<string, any>) =>
    (c.ports ?? []).some(
      (p: Record<string, any>) => Number(p.containerPort) === port && (p.protocol ?? 'TCP') === 'TCP',
    ),
  );
  return declared || webServerOn(pod, port) !== null;
}

/** What Go's dialer says when nothing listens at host:port, or when the port is not one. */
function refused(host: string, port: string): Refused {
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  if (!/^\d+$/.test(port)) return { kind: 'refused', error: `dial tcp: lookup tcp/${port}: unknown port` };
  if (Number(port) > 65535) return { kind: 'refused', error: `dial tcp: address ${port}: invalid port` };
  return { kind: 'refused', error: `dial tcp ${address}: connect: connection refused` };
}

/** net.IP.IsGlobalUnicast: kube refuses to proxy to anything else (or to no address at all). */
function isGlobalUnicast(ip: string): boolean {
  const v4 = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(ip);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return ip !== '0.0.0.0' && ip !== '255.255.255.255' && a !== 127 && a < 224 && !(a === 169 && b === 254);
  }
  const v6 = ip.toLowerCase();
  return v6.includes(':') && v6 !== '::' && v6 !== '::1' && !v6.startsWith('ff') && !/^fe[89ab]/.test(v6);
}

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}
