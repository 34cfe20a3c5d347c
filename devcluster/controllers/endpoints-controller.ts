/**
 * kube-controller-manager's endpoints and endpointslice controllers, which read the same things
 * and differ only in what they write: for every Service with a selector, the Endpoints object of
 * its name and its EndpointSlices, both from the one computation in devcluster/service-endpoints.ts.
 * They follow Services, Pods, Endpoints and EndpointSlices, so an object someone deletes or
 * changes is put back. Services without a selector are left to whoever writes their endpoints.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ApiServer } from '../../apiserver/api-server.js';
import type { Json } from '../../apiserver/json.js';
import { deleteQuietly } from '../../apiserver/registry/object-mutation.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { ApiError } from '../../apiserver/status.js';
import type { Store } from '../../store/index.js';
import {
  endpointSubsets,
  hasSelector,
  podReference,
  serviceBackends,
  type Backend,
  type EndpointPort,
} from '../service-endpoints.js';
import { ReconcileLoop, keyOf, splitKey, type WatchedPrefix } from './reconcile-loop.js';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
const MANAGED_BY = 'endpointslice-controller.k8s.io';
const HEADLESS_LABEL = 'service.kubernetes.io/headless';
/** kube's --max-endpoints-per-slice default. */
const MAX_ENDPOINTS_PER_SLICE = 100;

const SERVICES = '/registry/core/services/';
const PODS = '/registry/core/pods/';
const ENDPOINTS = '/registry/core/endpoints/';
const SLICES = '/registry/discovery.k8s.io/endpointslices/';

export class EndpointsController {
  private readonly loop: ReconcileLoop;
  private readonly services = new Map<string, ApiObject>();
  private readonly pods = new Map<string, ApiObject>();

  constructor(
    private readonly api: ApiServer,
    store: Store,
  ) {
    // The caches follow each object's latest state only: the state it left concerns no other service.
    const follow = (prefix: string, keysOf: WatchedPrefix['keysOf']): WatchedPrefix => ({
      prefix,
      keysOf,
      withPrevious: false,
    });
    this.loop = new ReconcileLoop(
      store,
      'endpoints controller',
      // Services first, so the first pass knows every service the other lists touch.
      [
        follow(SERVICES, (service, deleted) => {
          if (deleted) this.services.delete(keyOf(service));
          else this.services.set(keyOf(service), service);
          return [keyOf(service)];
        }),
        follow(PODS, (pod, deleted) => {
          if (deleted) this.pods.delete(keyOf(pod));
          else this.pods.set(keyOf(pod), pod);
          return [...this.services.keys()].filter((id) => splitKey(id).namespace === pod.metadata.namespace);
        }),
        // Their own writes come back here too: a sync that finds everything as it should be writes nothing.
        follow(ENDPOINTS, (endpoints) => this.known(keyOf(endpoints))),
        follow(SLICES, (slice) => {
          const service = slice.metadata.labels?.[SERVICE_NAME_LABEL];
          return typeof service === 'string' ? this.known(`${slice.metadata.namespace}/${service}`) : [];
        }),
      ],
      (id) => this.sync(id),
    );
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** A change to an object a service's endpoints are written to: sync the service if it is known. */
  private known(id: string): string[] {
    return this.services.has(id) ? [id] : [];
  }

  private async sync(id: string): Promise<void> {
    const { namespace, name } = splitKey(id);
    const endpoints = this.api.registryOf('', 'endpoints')!;
    const service = this.services.get(id);
    if (!service) {
      // The service's EndpointSlices go with it (their ownerReference); its Endpoints the controller deletes.
      await deleteQuietly(endpoints, namespace, name);
      return;
    }
    if (!hasSelector(service) || service.metadata.deletionTimestamp) return;
    const pods = [...this.pods.values()].filter((pod) => pod.metadata.namespace === namespace);
    const backends = serviceBackends(service, pods);
    await this.syncEndpoints(service, backends);
    await this.syncSlices(service, backends);
  }

  private async syncEndpoints(service: ApiObject, backends: Backend[]): Promise<void> {
    const registry = this.api.registryOf('', 'endpoints')!;
    const { namespace, name } = service.metadata;
    const subsets = endpointSubsets(service, backends);
    const labels = serviceLabels(service, []);
    const current = await registry.get(namespace, name).catch(nullIfNotFound);
    if (!current) {
      const created: Json = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace, labels } };
      if (subsets.length) created.subsets = subsets;
      await registry.create(namespace, created, { manager: 'endpoint-controller' }).catch(ignoreLostRace);
      return;
    }
    if (isDeepStrictEqual(current.subsets ?? [], subsets) && isDeepStrictEqual(current.metadata.labels ?? {}, labels))
      return;
    const next: Json = { ...current, metadata: { ...current.metadata, labels } };
    if (subsets.length) next.subsets = subsets;
    else delete next.subsets;
    await registry.update(namespace, name, next, '', { manager: 'endpoint-controller' }).catch(ignoreLostRace);
  }

  private async syncSlices(service: ApiObject, backends: Backend[]): Promise<void> {
    const registry = this.api.registryOf('discovery.k8s.io', 'endpointslices')!;
    const { namespace, name } = service.metadata;
    const { objects } = await registry.objects.list(namespace, {});
    const current = objects.filter(
      (slice) =>
        slice.metadata.labels?.[SERVICE_NAME_LABEL] === name &&
        slice.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY,
    );
    const labels = {
      ...serviceLabels(service, [SERVICE_NAME_LABEL, MANAGED_BY_LABEL]),
      [SERVICE_NAME_LABEL]: name,
      [MANAGED_BY_LABEL]: MANAGED_BY,
    };
    const unused = [...current];
    for (const { ports, endpoints } of desiredSlices(service, backends)) {
      const at = unused.findIndex((slice) => isDeepStrictEqual(slice.ports ?? null, ports));
      const [existing] = at >= 0 ? unused.splice(at, 1) : [];
      if (!existing) {
        const created: Json = {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: { generateName: `${name}-`, namespace, labels, ownerReferences: [ownerReferenceTo(service)] },
          addressType: 'IPv4',
          endpoints,
          ports,
        };
        await registry.create(namespace, created, { manager: MANAGED_BY }).catch(ignoreLostRace);
        continue;
      }
      if (
        isDeepStrictEqual(existing.endpoints ?? null, endpoints) &&
        isDeepStrictEqual(existing.metadata.labels, labels)
      )
        continue;
      const next = { ...existing, metadata: { ...existing.metadata, labels }, endpoints };
      await registry.update(namespace, existing.metadata.name, next, '', { manager: MANAGED_BY }).catch(ignoreLostRace);
    }
    for (const slice of unused) await deleteQuietly(registry, namespace, slice.metadata.name);
  }
}

/**
 * The slices kube's endpointslice reconciler aims at: the backends grouped by the ports they
 * serve, at most 100 to a slice; a service with no backends keeps one empty placeholder slice.
 */
function desiredSlices(service: ApiObject, backends: Backend[]): { ports: Json[] | null; endpoints: Json[] | null }[] {
  const publishNotReady = service.spec?.publishNotReadyAddresses === true;
  const byPorts = new Map<string, { ports: Json[] | null; endpoints: Json[] }>();
  for (const backend of [...backends].sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0))) {
    const ports = backend.ports.length ? backend.ports.map(slicePort) : null;
    const key = JSON.stringify(ports);
    const group = byPorts.get(key) ?? { ports, endpoints: [] };
    group.endpoints.push(sliceEndpoint(backend, publishNotReady));
    byPorts.set(key, group);
  }
  if (byPorts.size === 0) return [{ ports: null, endpoints: null }];
  return [...byPorts.values()].flatMap(({ ports, endpoints }) => {
    const slices = [];
    for (let i = 0; i < endpoints.length; i += MAX_ENDPOINTS_PER_SLICE)
      slices.push({ ports, endpoints: endpoints.slice(i, i + MAX_ENDPOINTS_PER_SLICE) });
    return slices;
  });
}

/** As kube writes it: `ready` never true while terminating, unless publishNotReadyAddresses. */
function sliceEndpoint(backend: Backend, publishNotReady: boolean): Json {
  const endpoint: Json = {
    addresses: [backend.ip],
    conditions: {
      ready: publishNotReady || (backend.serving && !backend.terminating),
      serving: backend.serving,
      terminating: backend.terminating,
    },
    targetRef: podReference(backend.pod),
  };
  if (backend.pod.spec?.nodeName) endpoint.nodeName = backend.pod.spec.nodeName;
  return endpoint;
}

function slicePort(port: EndpointPort): Json {
  const json: Json = { name: port.name, protocol: port.protocol, port: port.port };
  if (port.appProtocol) json.appProtocol = port.appProtocol;
  return json;
}

/** The service's labels, without `reserved`, with the headless label set or removed. */
function serviceLabels(service: ApiObject, reserved: string[]): Record<string, string> {
  const labels: Record<string, string> = { ...(service.metadata.labels ?? {}) };
  for (const label of [...reserved, HEADLESS_LABEL]) delete labels[label];
  if (service.spec?.clusterIP === 'None') labels[HEADLESS_LABEL] = '';
  return labels;
}

function ownerReferenceTo(service: ApiObject): Json {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    name: service.metadata.name,
    uid: service.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** `namespace/name` of a key under `prefix`. */
function nullIfNotFound(err: unknown): null {
  if (err instanceof ApiError && err.code === 404) return null;
  throw err;
}

/**
 * A write that lost a race (changed or deleted meanwhile, or its namespace terminating): the
 * watch brings what won, and the service is synced again if it still needs it.
 */
function ignoreLostRace(err: unknown): void {
  if (!(err instanceof ApiError && [403, 404, 409].includes(err.code))) throw err;
}
