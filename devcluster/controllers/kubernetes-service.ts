/**
 * kube-apiserver's own Service: `default/kubernetes` (no selector, ClusterIP the first address of
 * the service range, port `https` 443 → the API server's port) with the Endpoints and the
 * EndpointSlice `kubernetes` that name the API server's address, labelled as kube-apiserver's
 * reconciler labels them. Written when the devcluster starts and written again whenever one of
 * them is deleted or changed, as the reconciler repairs them.
 */
import { isIPv4 } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import type { ApiServer } from '../../apiserver/api-server.js';
import type { Json } from '../../apiserver/json.js';
import type { GenericRegistry } from '../../apiserver/registry/generic-registry.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { ApiError } from '../../apiserver/status.js';
import type { Store } from '../../store/index.js';
import { KUBERNETES_SERVICE_IP } from '../service-ips.js';
import { SERVICE_NAME_LABEL } from './endpoints-controller.js';
import { ReconcileLoop, keyOf } from './reconcile-loop.js';

const NAMESPACE = 'default';
const NAME = 'kubernetes';
const MANAGER = 'kube-apiserver';
const PORT_NAME = 'https';

const KEYS = [
  `/registry/core/services/${NAMESPACE}/${NAME}`,
  `/registry/core/endpoints/${NAMESPACE}/${NAME}`,
  `/registry/discovery.k8s.io/endpointslices/${NAMESPACE}/${NAME}`,
];

export class KubernetesServiceReconciler {
  private readonly loop: ReconcileLoop;
  private readonly ip: string;

  /** `host` and `port` are where the API server listens; a host that is no IPv4 address is announced as 127.0.0.1. */
  constructor(
    private readonly api: ApiServer,
    store: Store,
    host: string,
    private readonly port: number,
  ) {
    this.ip = isIPv4(host) && host !== '0.0.0.0' ? host : '127.0.0.1';
    this.loop = new ReconcileLoop(
      store,
      'kubernetes service reconciler',
      KEYS.map((prefix) => ({
        prefix,
        // The prefix also matches longer names (`kubernetes-x`): only this one counts.
        keysOf: (object) => (object.metadata.name === NAME ? [keyOf(object)] : []),
      })),
      () => this.reconcile(),
    );
  }

  async start(): Promise<void> {
    await this.reconcile();
    await this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async reconcile(): Promise<void> {
    const ports = [{ name: PORT_NAME, port: this.port, protocol: 'TCP' }];
    await this.ensure(
      this.api.registryOf('', 'services')!,
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: NAME, namespace: NAMESPACE, labels: { component: 'apiserver', provider: 'kubernetes' } },
        spec: {
          ports: [{ name: PORT_NAME, port: 443, protocol: 'TCP', targetPort: this.port }],
          clusterIP: KUBERNETES_SERVICE_IP,
          sessionAffinity: 'None',
          type: 'ClusterIP',
        },
      },
      // kube updates only the ports and the type of a Service it finds.
      (current, wanted) => {
        const spec = { ...current.spec, ports: wanted.spec.ports, type: wanted.spec.type };
        return isDeepStrictEqual(spec, current.spec) ? null : { ...current, spec };
      },
    );
    await this.ensure(
      this.api.registryOf('', 'endpoints')!,
      {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: NAME, namespace: NAMESPACE, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
        subsets: [{ addresses: [{ ip: this.ip }], ports }],
      },
      (current, wanted) =>
        isDeepStrictEqual(current.subsets, wanted.subsets) &&
        isDeepStrictEqual(current.metadata.labels, wanted.metadata.labels)
          ? null
          : { ...current, metadata: { ...current.metadata, labels: wanted.metadata.labels }, subsets: wanted.subsets },
    );
    await this.ensure(
      this.api.registryOf('discovery.k8s.io', 'endpointslices')!,
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: NAME, namespace: NAMESPACE, labels: { [SERVICE_NAME_LABEL]: NAME } },
        addressType: 'IPv4',
        endpoints: [{ addresses: [this.ip], conditions: { ready: true } }],
        ports,
      },
      (current, wanted) => {
        const next = {
          ...current,
          metadata: { ...current.metadata, labels: wanted.metadata.labels },
          addressType: wanted.addressType,
          endpoints: wanted.endpoints,
          ports: wanted.ports,
        };
        return isDeepStrictEqual(next, current) ? null : next;
      },
    );
  }

  /** Creates `wanted`, or updates what is there to what `repair` returns (null: nothing to repair). */
  private async ensure(
    registry: GenericRegistry,
    wanted: Json,
    repair: (current: ApiObject, wanted: Json) => Json | null,
  ): Promise<void> {
    const current = await registry.get(NAMESPACE, NAME).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === 404) return null;
      throw err;
    });
    try {
      if (!current) await registry.create(NAMESPACE, wanted, { manager: MANAGER });
      else {
        const repaired = repair(current, wanted);
        if (repaired) await registry.update(NAMESPACE, NAME, repaired, '', { manager: MANAGER });
      }
    } catch (err) {
      // Someone else wrote meanwhile: the watch brings it, and it is looked at again.
      if (!(err instanceof ApiError && err.code === 409)) throw err;
    }
  }
}
