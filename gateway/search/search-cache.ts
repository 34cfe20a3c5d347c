/**
 * The multi-cluster cache as one replica runs it: it follows the ResourceRegistries in the store
 * and the clusters of the roster, and on any change of either recomputes what is cached
 * (CacheController.update); every replica fills its own cache from the clusters. It answers the
 * admin's search API (search-api.ts) and tells `/readyz` whether the cache has synced.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { detach } from '../../apiserver/process-faults.js';
import { qualifiedResource } from '../../apiserver/status.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { CacheController } from '../../search/cache-controller.js';
import type { PlanCluster, ScopeLookup } from '../../search/cache-plan.js';
import type { Freshness, Stale } from '../../search/cache-freshness.js';
import type { CachedObject } from '../../search/cached-object.js';
import {
  apiVersionOf,
  resourceKey,
  type CacheResource,
  type ClusterResourceStore,
} from '../../search/cluster-resource-store.js';
import { MultiClusterCache, type CacheChanges } from '../../search/multi-cluster-cache.js';
import type { ResourceRegistry } from '../../search/resource-registry.js';
import { clusterProbedReadyStatus, clusterReadyStatus } from '../../clusters/cluster-resource.js';
import type { ClusterMember, ClusterRoster } from '../../clusters/cluster-roster.js';
import type { Store } from '../../store/index.js';
import { WatchLoop } from '../../store/watch-loop.js';
import type { SearchRoutes } from '../admin/admin-router.js';
import type { AdminIdentity } from '../auth/authenticate.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { SearchApi } from './search-api.js';
import { TenantCacheBudget } from '../cached/tenant-cache-budget.js';
import type { UpstreamScope } from '../../clusters/upstream-connection.js';
import type { GatewayClusterState } from '../upstream/gateway-cluster-state.js';
import { tenantCustomResource } from '../cached/tenant-cached-resources.js';
import { BARE_TEXT, logger } from '../../log/log.js';

/** The tenant cache's budget says when it sheds a store and when it takes one back (its lines never named a component). */
const budgetLog = logger('tenant cache', { text: BARE_TEXT });

/**
 * How long a consistent read waits for a store's watch to reach its cluster's revision before the
 * store lists again: events arrive within milliseconds, and a quiet resource would wait for a
 * BOOKMARK that comes about once a minute.
 */
const CONSISTENT_WAIT_MS = 200;

/**
 * The largest store a tenant's consistent read relists when its watch has not reached the
 * cluster's revision in time (the revision moves with writes of any resource, a node's Lease every
 * 10 s, and a quiet resource's BOOKMARK comes about once a minute): a few thousand objects list in
 * tens of milliseconds, and the store is then fresh for every read after.
 */
const TENANT_REFRESH_MAX_OBJECTS = 5000;

/** Where the gateway's ApiServer keeps ResourceRegistries. */
const RESOURCE_REGISTRIES_PREFIX = '/registry/search.karmada.io/resourceregistries/';

export interface SearchCacheOptions {
  store: Store;
  clusters: ClusterRoster<GatewayClusterState>;
  defaultCluster: string;
  metrics: GatewayMetrics;
  /** How long `/readyz` waits for the cache's first lists before it says ready anyway (Karmada: 1 minute). */
  syncTimeoutMs: number;
  /** Resources cached in every Ready cluster for the tenants' reads (tenant-cached-resources.ts). */
  tenantResources?: readonly CacheResource[];
  /** The most JSON bytes the cache holds before stores kept only for tenants are shed (tenant-cache-budget.ts); 0: no budget. */
  tenantCacheMaxBytes?: number;
  /**
   * Resources cached in every Ready cluster so that a tenant evicted from it can be replayed
   * elsewhere (eviction/, `--failover-resources`): kept, with the tenant reads' stores, after their
   * cluster stops being Ready.
   */
  failoverResources?: readonly CacheResource[];
}

/** How often the cache's size is held against the tenant cache's budget. */
const BUDGET_REVIEW_MS = 5000;

/**
 * The registries the gateway adds for the tenants' reads: one per resource, every Ready cluster
 * but those where the budget shed it, all namespaces.
 */
function tenantReadsRegistries(resources: readonly CacheResource[], budget: TenantCacheBudget): ResourceRegistry[] {
  return resources.map((resource) => {
    const exclude = budget.shedClusters(qualifiedResource(resource));
    return {
      metadata: { name: `paddock-tenant-reads-${qualifiedResource(resource)}` },
      spec: {
        targetCluster: exclude.length ? { exclude } : {},
        resourceSelectors: [{ apiVersion: apiVersionOf(resource), kind: resource.kind }],
      },
    };
  });
}

/** The registries the gateway adds so that evicted tenants can be replayed: one per resource, every Ready cluster, all namespaces. */
function failoverRegistries(resources: readonly CacheResource[]): ResourceRegistry[] {
  return resources.map((resource) => ({
    metadata: { name: `paddock-failover-${qualifiedResource(resource)}` },
    spec: { targetCluster: {}, resourceSelectors: [{ apiVersion: apiVersionOf(resource), kind: resource.kind }] },
  }));
}

export class SearchCache implements SearchRoutes {
  readonly api: SearchApi;
  private readonly cache: MultiClusterCache;
  private readonly controller: CacheController;
  private readonly registries = new Map<string, ResourceRegistry>();
  private tenantReads: ResourceRegistry[];
  private readonly failover: ResourceRegistry[];
  /** The CRDs' resource among `--failover-resources`, when it is there: whose tenant custom resources are cached too. */
  private readonly failoverCrds: CacheResource | undefined;
  /** What each cached CRD (by its cached object, which a change replaces) makes of a tenant custom resource: parsed once. */
  private readonly customResourceOf = new WeakMap<CachedObject, CacheResource | null>();
  /** The tenant custom resources of the last update (`resourceKey`), for the metrics. */
  private tenantCustomKeys: ReadonlySet<string> = new Set();
  private readonly tenantResourceKeys: ReadonlySet<string>;
  /**
   * The last stores of clusters that stopped being Ready, by cluster: no longer fed nor read,
   * only kept as the one copy of their tenants' objects the eviction worker can replay (Karmada
   * drops a failed cluster's cache; its objects live on in its control plane, Paddock's do not).
   * Dropped when the cluster is Ready again (fresh stores list it anew) or removed.
   */
  private readonly retained = new Map<string, Map<string, ClusterResourceStore>>();
  /**
   * Each cluster's last discovery that could be read. A cluster that cannot be reached is still
   * planned by what it last served: without it, every resource it alone knows would fail to
   * resolve and its stores would be dropped while it is still Ready, before its failure threshold
   * would retain them for the replay.
   */
  private scopes = new Map<string, UpstreamScope>();
  private readonly budget: TenantCacheBudget;
  private budgetTimer: NodeJS.Timeout | undefined;
  private readonly loop: WatchLoop;
  private readonly unfollow: () => void;
  private readonly startedAt = Date.now();
  /** An update is running; `again` asks for one more after it, as something changed meanwhile. */
  private updating = false;
  private again = false;
  private stopped = false;
  /**
   * A plan was made while every cluster had a Ready condition. Before a new cluster's first probe
   * its status lists no APIs, nothing is planned for it, and "every store has listed" holds
   * vacuously: a starting replica would say ready, then not, once its stores appear.
   */
  private plannedAll = false;

  constructor(private readonly options: SearchCacheOptions) {
    this.budget = new TenantCacheBudget(options.tenantCacheMaxBytes ?? 0);
    this.tenantReads = tenantReadsRegistries(options.tenantResources ?? [], this.budget);
    this.tenantResourceKeys = new Set((options.tenantResources ?? []).map(resourceKey));
    this.failover = failoverRegistries(options.failoverResources ?? []);
    this.failoverCrds = options.failoverResources?.find(
      (r) => r.group === 'apiextensions.k8s.io' && r.resource === 'customresourcedefinitions',
    );
    this.cache = new MultiClusterCache({
      currentRevision: (cluster, resource) => this.controller.currentRevision(cluster, resource),
      consistentWaitMs: CONSISTENT_WAIT_MS,
      refresh: (store) => this.controller.refresh(store),
    });
    this.controller = new CacheController(this.cache);
    this.api = new SearchApi({
      cache: this.cache,
      clusterNamed: (name) => options.clusters.get(name),
      defaultCluster: () => options.clusters.get(options.defaultCluster),
      metrics: options.metrics,
    });
    options.metrics.followCache(
      () => this.controller.stats(),
      // A tenant's custom resource, unless the admin's own registries name it too.
      (resource) => this.tenantCustomKeys.has(resourceKey(resource)) && !this.cache.hasResource(resource),
    );
    options.metrics.followTenantCacheBudget(this.budget.maxBytes, () => this.budget.shedStores);
    this.loop = new WatchLoop(
      options.store,
      RESOURCE_REGISTRIES_PREFIX,
      {
        onList: (items) => {
          this.registries.clear();
          for (const kv of items) this.observe(JSON.parse(kv.value) as ApiObject);
          this.changed();
        },
        onEvent: (event) => {
          const registry = JSON.parse(event.value) as ApiObject;
          if (event.type === 'delete') this.registries.delete(registry.metadata.name);
          else this.observe(registry);
          this.changed();
        },
      },
      'search cache (resource registries)',
    );
    this.unfollow = options.clusters.onChange(() => this.changed());
  }

  start(): Promise<void> {
    if (this.budget.maxBytes > 0 && this.tenantReads.length > 0) {
      this.budgetTimer = setInterval(() => this.reviewBudget(), BUDGET_REVIEW_MS);
      this.budgetTimer.unref();
    }
    return this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.budgetTimer);
    this.unfollow();
    await this.loop.stop();
    this.controller.stop();
    this.cache.stop();
  }

  /** Serves a search path for the admin (AdminRouter's search routes). */
  handle(req: IncomingMessage, res: ServerResponse, admin: AdminIdentity, pathname: string): Promise<boolean> {
    return this.api.handle(req, res, admin, pathname);
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, admin: AdminIdentity, pathname: string): boolean {
    return this.api.upgrade(req, socket, head, admin, pathname);
  }

  /**
   * The store that answers tenants' reads of a resource on a cluster: one of the resources cached
   * for tenants, in every namespace; undefined otherwise.
   */
  tenantStore(
    cluster: string,
    resource: Pick<CacheResource, 'group' | 'version' | 'resource'>,
  ): ClusterResourceStore | undefined {
    const key = resourceKey(resource);
    if (!this.tenantResourceKeys.has(key) || this.budget.isShed(cluster, qualifiedResource(resource))) return undefined;
    const store = this.cache.storeOf(cluster, resource);
    return store?.namespaces === 'all' && !store.stopped ? store : undefined;
  }

  /**
   * Makes a store as fresh as a tenant's read asks; Stale when it could not be in time. A store
   * behind its cluster is relisted for the read only up to TENANT_REFRESH_MAX_OBJECTS: beyond, the
   * read is forwarded, which costs the tenant's objects rather than the whole store.
   */
  ensureFresh(store: ClusterResourceStore, freshness: Freshness): Promise<Stale | undefined> {
    return this.cache.ensureFresh(store, freshness, TENANT_REFRESH_MAX_OBJECTS);
  }

  /**
   * What the cache holds of a cluster, for replaying its tenants elsewhere: its stores while it is
   * cached, the last ones it had once it stopped being Ready.
   */
  clusterStores(cluster: string): ClusterResourceStore[] {
    const live = this.cache.clusterStores(cluster);
    return live.length ? live : [...(this.retained.get(cluster)?.values() ?? [])];
  }

  /**
   * Ready once a plan was made from every cluster's probed status and every store has listed, or
   * once the sync timeout has passed since the start (as Karmada's post-start hook).
   */
  ready(): boolean {
    return (this.plannedAll && this.controller.synced()) || Date.now() - this.startedAt > this.options.syncTimeoutMs;
  }

  /** Sheds stores kept only for tenants while the cache holds more than its budget, and lets them back once there is room. */
  private reviewBudget(): void {
    const stores = this.controller.stats().map((s) => {
      // A store the admin's registries also ask for is theirs: the search API answers only from the cache.
      const sheddable = this.tenantResourceKeys.has(resourceKey(s.resource)) && !this.cache.hasResource(s.resource);
      return { cluster: s.cluster, resource: qualifiedResource(s.resource), bytes: s.bytes, sheddable };
    });
    const { shed, readmitted } = this.budget.review(stores);
    if (shed.length === 0 && readmitted.length === 0) return;
    const total = stores.reduce((sum, store) => sum + store.bytes, 0);
    for (const store of shed)
      budgetLog.warn(
        `tenant cache over its budget (${total} of ${this.budget.maxBytes} bytes): ${store.resource} of cluster ${store.cluster} (${store.bytes} bytes) is no longer cached; tenants' reads of it are forwarded`,
        { cluster: store.cluster, resource: store.resource, bytes: store.bytes, total, budget: this.budget.maxBytes },
      );
    for (const store of readmitted)
      budgetLog.info(
        `tenant cache within its budget again: ${store.resource} of cluster ${store.cluster} is cached again`,
        { cluster: store.cluster, resource: store.resource },
      );
    this.tenantReads = tenantReadsRegistries(this.options.tenantResources ?? [], this.budget);
    this.changed();
  }

  private observe(object: ApiObject): void {
    this.registries.set(object.metadata.name, object as unknown as ResourceRegistry);
  }

  /** Recomputes the cache; changes that arrive during an update are taken by one more. */
  private changed(): void {
    if (this.stopped) return;
    if (this.updating) {
      this.again = true;
      return;
    }
    this.updating = true;
    detach(
      this.update().finally(() => {
        this.updating = false;
        if (this.again) {
          this.again = false;
          this.changed();
        }
      }),
      'search cache update',
    );
  }

  private async update(): Promise<void> {
    const members = this.options.clusters.list();
    // Whether a resource is namespaced, as the clusters' discovery says (the first that knows).
    const scopes = await Promise.all(
      members.map((member) => member.connection.scope().catch(() => this.scopes.get(member.name))),
    );
    this.scopes = new Map(members.flatMap((member, i) => (scopes[i] ? [[member.name, scopes[i]] as const] : [])));
    const custom = this.tenantCustomResources(members);
    this.tenantCustomKeys = new Set(custom.map(resourceKey));
    const scopeOf: ScopeLookup = (group, _version, resource) => {
      for (const scope of scopes) {
        const found = scope?.resource(group, resource);
        if (found) return found.namespaced;
      }
      // Discovery is cached for a while; the CRD itself says a new custom resource's scope.
      return custom.find((r) => r.group === group && r.resource === resource)?.namespaced;
    };
    if (this.stopped) return;
    const changes = this.controller.update(
      members.map((member) => ({
        object: member.cluster as unknown as PlanCluster,
        client: member.client,
        informers: member.state.informers,
      })),
      [...this.registries.values()],
      scopeOf,
      [...this.tenantReads, ...this.failover, ...failoverRegistries(custom)],
    );
    this.retain(changes, members);
    this.plannedAll ||= members.every((member) => clusterProbedReadyStatus(member.cluster) !== undefined);
    // The tenants' custom resources are read from the CRD stores: once one that has not listed yet
    // (a replica's start) has, the plan is made again with what it holds.
    if (this.failoverCrds)
      for (const member of members) {
        const crds = this.cache.storeOf(member.name, this.failoverCrds);
        if (crds && !crds.hasSynced)
          detach(
            Promise.resolve(this.controller.firstSync(crds)).then((listed) => listed && this.changed()),
            'search cache update',
          );
      }
  }

  /**
   * With failover on (and CRDs among `--failover-resources`), the custom resources of the tenants'
   * CRDs the cache holds: cached too, so that a tenant's custom objects are replayed after its
   * CRDs. A new one is cached once its cluster's apiEnablements list it (the cluster status
   * controller's next probe), as any registry's resource is.
   */
  private tenantCustomResources(members: readonly ClusterMember<GatewayClusterState>[]): CacheResource[] {
    const crds = this.failoverCrds;
    if (!crds) return [];
    const found = new Map<string, CacheResource>();
    for (const member of members)
      for (const [, object] of this.cache.storeOf(member.name, crds)?.withKeyPrefix('') ?? []) {
        let resource = this.customResourceOf.get(object);
        if (resource === undefined) {
          resource = tenantCustomResource(JSON.parse(object.text)) ?? null;
          this.customResourceOf.set(object, resource);
        }
        if (resource) found.set(resourceKey(resource), resource);
      }
    return [...found.values()];
  }

  /** Keeps the stores a cluster had when it stopped being Ready; lets them go once it is Ready again or gone. */
  private retain(changes: CacheChanges, members: readonly ClusterMember<GatewayClusterState>[]): void {
    const notReady = new Set(
      members.filter((member) => clusterReadyStatus(member.cluster) !== 'True').map((member) => member.name),
    );
    for (const store of changes.removed) {
      if (!notReady.has(store.cluster) || !store.hasSynced) continue;
      const kept = this.retained.get(store.cluster) ?? new Map<string, ClusterResourceStore>();
      kept.set(resourceKey(store.resource), store);
      this.retained.set(store.cluster, kept);
    }
    for (const cluster of this.retained.keys()) if (!notReady.has(cluster)) this.retained.delete(cluster);
  }
}
