/**
 * Keeps the tenants' `kubernetes` Services and EndpointSlices on one cluster naming where its pods
 * reach the gateway now. They are made with a tenant's space (upstream-space.ts); when that address
 * changes (the `--advertise-service` Service got another ClusterIP or port, went or came back),
 * those made before name the old one, which kube-apiserver's reconciler would not leave of its own.
 * One list of each kind, by the labels kube's reconciler gives them, finds what differs: a Service
 * gets its port again, a slice is made again (its addressType cannot change), or deleted where the
 * address is one no slice can hold (kubernetes-service.ts).
 */
import type { HostPort } from '../apiserver/host-port.js';
import { expectStatus, type RestResponse } from '../apiserver/client/rest-client.js';
import type { Json } from '../apiserver/json.js';
import {
  AS_KUBE,
  KUBERNETES_SERVICE,
  kubernetesServiceCollections,
  kubernetesServiceNamespace,
  kubernetesServiceObjects,
} from './kubernetes-service.js';
import type { UpstreamApi } from './tenant-grants.js';

const SERVICES = `/api/v1/services?labelSelector=${encodeURIComponent('component=apiserver,provider=kubernetes')}`;
const SLICES = `/apis/discovery.k8s.io/v1/endpointslices?labelSelector=${encodeURIComponent(
  `kubernetes.io/service-name=${KUBERNETES_SERVICE}`,
)}`;

/** Makes the `kubernetes` Service and slice of each of `tenantIds` that has the Service name `api`; returns how many writes it made. */
export async function syncKubernetesServices(
  client: UpstreamApi,
  tenantIds: readonly string[],
  api: HostPort,
): Promise<number> {
  const byNamespace = (res: RestResponse, what: string) =>
    new Map<string, Json>(
      (expectStatus(res, what, 200).body?.items ?? [])
        .filter((object: Json) => object.metadata?.name === KUBERNETES_SERVICE)
        .map((object: Json) => [object.metadata.namespace, object]),
    );
  const [services, slices] = await Promise.all([
    client.request('GET', SERVICES).then((res) => byNamespace(res, 'listing the kubernetes Services')),
    client.request('GET', SLICES).then((res) => byNamespace(res, 'listing the kubernetes EndpointSlices')),
  ]);
  let writes = 0;
  for (const tenantId of tenantIds) {
    const namespace = kubernetesServiceNamespace(tenantId);
    const service = services.get(namespace);
    // Without its Service the tenant's space is not made yet, or is healed whole (upstream-space.ts).
    if (!service || service.metadata.deletionTimestamp) continue;
    const [wanted, wantedSlice] = kubernetesServiceObjects(tenantId, api);
    const collections = kubernetesServiceCollections(tenantId);
    const wantedPorts = (wanted.object.spec as Json).ports as Json[];
    if (!portsMatch(service.spec?.ports, wantedPorts)) {
      service.spec.ports = wantedPorts;
      const path = `${collections.services}/${KUBERNETES_SERVICE}`;
      // Written as kube's reconciler writes its own, as the Service was made (kubernetes-service.ts).
      expectStatus(await client.request('PUT', `${path}${AS_KUBE}`, service), `updating ${path}`, 200);
      writes++;
    }
    const slice = slices.get(namespace);
    if (slice && wantedSlice && sliceMatches(slice, wantedSlice.object)) continue;
    const slicePath = `${collections.slices}/${KUBERNETES_SERVICE}`;
    if (slice) {
      expectStatus(await client.request('DELETE', slicePath), `deleting ${slicePath}`, 200, 404);
      writes++;
    }
    if (wantedSlice) {
      expectStatus(
        await client.request('POST', wantedSlice.collection, wantedSlice.object),
        `creating ${slicePath}`,
        201,
        409,
      );
      writes++;
    }
  }
  return writes;
}

function portsMatch(ports: Json[] | undefined, wanted: Json[]): boolean {
  return (
    Array.isArray(ports) &&
    ports.length === wanted.length &&
    ports.every((port, i) => port.name === wanted[i].name && port.targetPort === wanted[i].targetPort)
  );
}

function sliceMatches(slice: Json, wanted: Json): boolean {
  return (
    slice.addressType === wanted.addressType &&
    JSON.stringify(slice.endpoints?.map((e: Json) => e.addresses)) ===
      JSON.stringify(wanted.endpoints.map((e: Json) => e.addresses)) &&
    JSON.stringify(slice.ports?.map((p: Json) => [p.name, p.port])) ===
      JSON.stringify(wanted.ports.map((p: Json) => [p.name, p.port]))
  );
}
