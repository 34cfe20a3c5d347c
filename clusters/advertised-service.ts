/**
 * Where a cluster's pods reach the gateway when the admin names a Service for it
 * (`--advertise-service namespace/name`): that Service on the cluster, its ClusterIP and its port
 * named `https` (else its first), as pods reach kube-apiserver by the `kubernetes` Service. Each
 * cluster has its own, so tenants on a cluster the gateway does not run in are pointed at a
 * Service the admin made there (one without a selector, with endpoints of the gateway's). Read
 * when the cluster's connection is made and every `periodMs` after; while the cluster has no such
 * Service, or it has no ClusterIP (headless, ExternalName), there is none, and the gateway's
 * advertised address stands.
 */
import type { RestClient } from '../apiserver/client/rest-client.js';
import type { HostPort } from '../apiserver/host-port.js';
import { logger } from '../log/log.js';

const log = logger('advertised-service');

/** `namespace/name`, as the flag takes it. */
export interface ServiceReference {
  namespace: string;
  name: string;
}

/** `namespace/name` parsed; throws on anything else. */
export function parseServiceReference(text: string): ServiceReference {
  const [namespace, name, ...rest] = text.split('/');
  if (!namespace || !name || rest.length > 0) throw new Error(`expected namespace/name, got "${text}"`);
  return { namespace, name };
}

/** The address a Service gives pods, or undefined when it gives none. */
export function serviceAddress(service: Record<string, any> | undefined): HostPort | undefined {
  const ip = service?.spec?.clusterIP;
  const ports: Record<string, any>[] = service?.spec?.ports ?? [];
  const port = ports.find((p) => p.name === 'https') ?? ports[0];
  if (typeof ip !== 'string' || ip === '' || ip === 'None' || typeof port?.port !== 'number') return undefined;
  return { host: ip, port: port.port };
}

export class AdvertisedService {
  private current: HostPort | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly client: RestClient,
    private readonly service: ServiceReference,
    private readonly onChange: () => void,
    private readonly periodMs = 30_000,
  ) {
    this.lookUp();
  }

  /** The address now, if the cluster has the Service: the same object until it changes. */
  address(): HostPort | undefined {
    return this.current;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private lookUp(): void {
    const { namespace, name } = this.service;
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/services/${encodeURIComponent(name)}`;
    this.client.request('GET', path).then(
      (res) => {
        // Anything but an answer about the Service (the cluster refused, failed) keeps what was known.
        if (res.status === 200 || res.status === 404)
          this.set(res.status === 200 ? serviceAddress(res.body) : undefined);
        this.again();
      },
      (err: unknown) => {
        log.debug('advertised service lookup failed', { service: `${namespace}/${name}`, error: String(err) });
        this.again();
      },
    );
  }

  private again(): void {
    if (!this.stopped) this.timer = setTimeout(() => this.lookUp(), this.periodMs).unref();
  }

  private set(address: HostPort | undefined): void {
    if (address?.host === this.current?.host && address?.port === this.current?.port) return;
    this.current = address;
    this.onChange();
  }
}
