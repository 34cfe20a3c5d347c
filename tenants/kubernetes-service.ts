/**
 * The tenant's own `kubernetes` Service and EndpointSlice in its `default` namespace, as
 * kube-apiserver's reconciler makes them on a cluster (labels `component: apiserver` and
 * `provider: kubernetes`, no selector, port `https` 443 → the API's port; the slice labelled with
 * the Service's name), naming where the tenant's pods reach its API: the gateway (PodApi). The
 * cluster gives the Service a ClusterIP of its own. The slice holds an address kube's validation
 * accepts, an IP that is not loopback, link-local or unspecified, or a DNS name (addressType
 * FQDN); a gateway that pods reach at no such address (a loopback one, as in tests) gets the
 * Service alone.
 */
import { isIP } from 'node:net';
import { isEndpointIp } from '../apiserver/validation/endpoint-address.js';
import type { HostPort } from '../apiserver/host-port.js';
import { addPrefix, tenantPrefix } from '../translate/context.js';

export const KUBERNETES_SERVICE = 'kubernetes';
const PORT_NAME = 'https';
/** Their managedFields name the manager kube's reconciler writes them as. */
export const AS_KUBE = '?fieldManager=kube-apiserver';

/** One object to make: its collection's path upstream and the object, in the tenant's space. */
export interface SpaceObject {
  /** `resource/namespace/name`, as tenantSpaceObjects lists what a space holds. */
  key: string;
  collection: string;
  object: { metadata: { name: string; namespace: string; [field: string]: unknown }; [field: string]: unknown };
}

/** Where the tenant's `kubernetes` Service is: its `default` namespace upstream. */
export function kubernetesServiceNamespace(tenantId: string): string {
  return addPrefix(tenantPrefix(tenantId), 'default');
}

/** The collections upstream the tenant's `kubernetes` Service and EndpointSlice are in. */
export function kubernetesServiceCollections(tenantId: string): { services: string; slices: string } {
  const namespace = kubernetesServiceNamespace(tenantId);
  return {
    services: `/api/v1/namespaces/${namespace}/services`,
    slices: `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`,
  };
}

/** The Service and, when the address allows one, the EndpointSlice; none without an address. */
export function kubernetesServiceObjects(tenantId: string, api: HostPort | undefined): SpaceObject[] {
  if (!api) return [];
  const namespace = kubernetesServiceNamespace(tenantId);
  const { services, slices } = kubernetesServiceCollections(tenantId);
  const objects: SpaceObject[] = [
    {
      key: `services/${namespace}/${KUBERNETES_SERVICE}`,
      collection: `${services}${AS_KUBE}`,
      object: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: KUBERNETES_SERVICE, namespace, labels: { component: 'apiserver', provider: 'kubernetes' } },
        spec: {
          type: 'ClusterIP',
          ports: [{ name: PORT_NAME, port: 443, protocol: 'TCP', targetPort: api.port }],
          sessionAffinity: 'None',
        },
      },
    },
  ];
  const addressType = endpointAddressType(api.host);
  if (addressType)
    objects.push({
      key: `endpointslices/${namespace}/${KUBERNETES_SERVICE}`,
      collection: `${slices}${AS_KUBE}`,
      object: {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: KUBERNETES_SERVICE, namespace, labels: { 'kubernetes.io/service-name': KUBERNETES_SERVICE } },
        addressType,
        endpoints: [{ addresses: [api.host], conditions: { ready: true } }],
        ports: [{ name: PORT_NAME, port: api.port, protocol: 'TCP' }],
      },
    });
  return objects;
}

/** The EndpointSlice addressType that can hold `host`, or undefined when none can. */
function endpointAddressType(host: string): 'IPv4' | 'IPv6' | 'FQDN' | undefined {
  const family = isIP(host);
  if (family === 0) return 'FQDN';
  if (!isEndpointIp(host)) return undefined;
  return family === 4 ? 'IPv4' : 'IPv6';
}
