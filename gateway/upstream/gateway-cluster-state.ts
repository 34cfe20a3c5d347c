/**
 * What the gateway keeps per cluster beside its connection (clusters/upstream-connection.ts, the
 * transport): the shared informers every consumer of this replica reads the cluster through, the
 * tenants' namespace index, the authorizers of tenants' requests, the converted watch lines of
 * tenants' watches, and the Service its pods reach the gateway by when the admin names one. The cluster roster makes one with each connection it makes (its `attach`,
 * given by gateway/server/gateway.ts) and stops it before that connection closes, so a cluster
 * given new credentials gets all of it anew.
 */
import type { RestClient } from '../../apiserver/client/rest-client.js';
import { AdvertisedService, type ServiceReference } from '../../clusters/advertised-service.js';
import type { ClusterState } from '../../clusters/cluster-roster.js';
import type { UpstreamConnection } from '../../clusters/upstream-connection.js';
import { cachedObjectInformers, type CachedObjectInformers } from '../../search/cached-object-informers.js';
import { RequestAuthorizer } from '../auth/request-authorizer.js';
import { RbacChangeFeed } from '../auth/rbac-change-feed.js';
import { TenantAuthorizer } from '../auth/tenant-authorizer.js';
import { NamespaceIndex } from '../proxy/namespace-index.js';
import { WatchLineMemo } from '../proxy/watch-lines.js';

export class GatewayClusterState implements ClusterState {
  /**
   * The cluster's shared informers: one list and watch per resource for every consumer of this
   * replica (the search cache's stores, the namespace index, the RBAC change feed, the tenant
   * spaces), each object held once.
   */
  readonly informers: CachedObjectInformers;
  /** Every tenant's namespaces on this cluster, for cross-namespace lists and watches. */
  readonly namespaceIndex: NamespaceIndex;
  /** The cluster's RBAC objects through its informers, followed once the request authorizer starts. */
  readonly rbac: RbacChangeFeed;
  /** Decides tenants' requests at the cluster scope, by their own RBAC (read from `rbac`). */
  readonly authorizer: TenantAuthorizer;
  /** Converted watch lines shared by the tenants' object watches on this cluster. */
  readonly watchLines = new WatchLineMemo();
  /** The Service the admin names on the cluster for its pods to reach the gateway by, if it names one (`--advertise-service`). */
  readonly advertisedService: AdvertisedService | undefined;
  private requests: RequestAuthorizer | undefined;

  constructor(
    readonly connection: UpstreamConnection,
    advertise?: { service: ServiceReference; periodMs?: number; onChange(): void },
  ) {
    this.advertisedService =
      advertise &&
      new AdvertisedService(connection.admin, advertise.service, () => advertise.onChange(), advertise.periodMs);
    this.informers = cachedObjectInformers(connection.name, connection.admin);
    this.rbac = new RbacChangeFeed(this.informers);
    this.authorizer = new TenantAuthorizer(connection.admin, this.rbac);
    this.namespaceIndex = new NamespaceIndex(this.informers);
  }

  get name(): string {
    return this.connection.name;
  }

  /** The cluster as the gateway itself (no impersonation). */
  get admin(): RestClient {
    return this.connection.admin;
  }

  /** The one authorizer of tenants' requests on this cluster, made on its first decision and following the cluster's RBAC from then on. */
  get requestAuthorizer(): RequestAuthorizer {
    if (!this.requests) {
      this.requests = new RequestAuthorizer(this);
      this.requests.start();
    }
    return this.requests;
  }

  stop(): void {
    this.advertisedService?.stop();
    this.requests?.stop();
    this.namespaceIndex.stop();
    this.informers.stop();
  }
}
