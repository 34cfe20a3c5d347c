import type { ApiObject } from '../apiserver/registry/object-store.js';
import type { Store } from '../store/index.js';
import { WatchLoop } from '../store/watch-loop.js';
import type { ClusterToleration } from '../clusters/tolerations.js';
import { errorText, logger } from '../log/log.js';
import { tenantLimitOverrides, type TenantLimitOverrides } from './tenant-resource.js';
import { movingTo } from './tenant-space-clusters.js';

const log = logger('tenant roster');

export const TENANTS_PREFIX = '/registry/tenant.kubezoo.io/tenants/';

interface TenantEntry {
  active: boolean;
  /** One, or two while a rotation's old certificate is still accepted: a Set of one weighed about 230 bytes. */
  serials: readonly string[];
  cluster: string | undefined;
  /** Clusters a failover is moving the tenant to (tenant-space-clusters.ts, movingTo). */
  movingTo: readonly string[];
  limits: TenantLimitOverrides | undefined;
  tolerations: readonly ClusterToleration[];
  /** Whether the tenant has eviction tasks in its status (eviction/tenant-failover.ts settles them). */
  evicting: boolean;
}

/**
 * Who may come in right now: every gateway replica follows the Tenant objects in the store by
 * watch, so a deleted tenant, a Terminating one, or a revoked certificate serial is refused
 * as soon as the change reaches the replica's watch — never a store round trip per request.
 * Listeners hear of every change to a tenant, so that what a certificate opened earlier (open
 * streams) can be checked again at once.
 */
/** What most tenants hold in their lists: one array for them all, not an empty one each. */
const NONE: readonly never[] = Object.freeze([]);

function orNone<T>(list: T[]): readonly T[] {
  return list.length ? list : NONE;
}

export class TenantRoster {
  private readonly tenants = new Map<string, TenantEntry>();
  private readonly listeners = new Set<(tenantId: string) => void>();
  private readonly moveListeners = new Set<(tenantId: string, cluster: string) => void>();
  private readonly loop: WatchLoop;

  constructor(store: Store) {
    this.loop = new WatchLoop(
      store,
      TENANTS_PREFIX,
      {
        onList: (items) => {
          // A relist may have missed deletions and rotations: every tenant known before or now changed.
          const changed = new Set(this.tenants.keys());
          const before = new Map(this.tenants);
          this.tenants.clear();
          for (const kv of items) changed.add(this.observe(JSON.parse(kv.value) as ApiObject, before));
          for (const id of changed) this.changed(id);
        },
        onEvent: (event) => {
          const tenant = JSON.parse(event.value) as ApiObject;
          if (event.type === 'delete') this.tenants.delete(tenant.metadata.name);
          else this.observe(tenant, this.tenants);
          this.changed(tenant.metadata.name);
        },
      },
      'tenant roster',
    );
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Why a tenant certificate is refused, or null when it is accepted. */
  refusal(tenantId: string, serial?: string): string | null {
    const tenant = this.tenants.get(tenantId);
    if (!tenant) return `tenant ${tenantId} does not exist`;
    if (!tenant.active) return `tenant ${tenantId} is not active`;
    if (serial !== undefined && !tenant.serials.includes(serial))
      return `certificate ${serial} of tenant ${tenantId} is not (or no longer) valid`;
    return null;
  }

  /** Whether the tenant exists (in any phase). */
  has(tenantId: string): boolean {
    return this.tenants.has(tenantId);
  }

  clusterOf(tenantId: string): string | undefined {
    return this.tenants.get(tenantId)?.cluster;
  }

  /** The Active tenants that live on `cluster`. */
  placedOn(cluster: string): string[] {
    return [...this.tenants].filter(([, t]) => t.active && t.cluster === cluster).map(([id]) => id);
  }

  /** How many tenants live on each cluster, or are being moved there: the load placement spreads. */
  tenantsPerCluster(): Map<string, number> {
    const load = new Map<string, number>();
    for (const { cluster, movingTo } of this.tenants.values())
      for (const name of cluster ? [cluster, ...movingTo] : movingTo) load.set(name, (load.get(name) ?? 0) + 1);
    return load;
  }

  tolerationsOf(tenantId: string): readonly ClusterToleration[] {
    return this.tenants.get(tenantId)?.tolerations ?? [];
  }

  /** The tenants with eviction tasks still open. */
  evicting(): string[] {
    return [...this.tenants].filter(([, t]) => t.evicting).map(([id]) => id);
  }

  /** The limits the Tenant's `spec.limits` sets, over the gateway's defaults. */
  limitsOf(tenantId: string): TenantLimitOverrides | undefined {
    return this.tenants.get(tenantId)?.limits;
  }

  /** Calls `listener` with a tenant's id after each change to it (deleted, phase, serials); returns how to stop. */
  onChange(listener: (tenantId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `listener` when a tenant's cluster changes from one to another, `cluster` (a failover moved it); returns how to stop. */
  onMove(listener: (tenantId: string, cluster: string) => void): () => void {
    this.moveListeners.add(listener);
    return () => this.moveListeners.delete(listener);
  }

  private changed(tenantId: string): void {
    this.tell(this.listeners, tenantId, (listener) => listener(tenantId));
  }

  private tell<L>(listeners: Set<L>, tenantId: string, call: (listener: L) => void): void {
    for (const listener of listeners) {
      try {
        call(listener);
      } catch (err) {
        log.error(`a change listener failed for ${tenantId}`, { tenant: tenantId, error: errorText(err) });
      }
    }
  }

  /** Records the tenant as it is now; `before` holds it as it was. */
  private observe(tenant: ApiObject, before: ReadonlyMap<string, TenantEntry>): string {
    const cluster: string | undefined = tenant.status?.cluster;
    const was = before.get(tenant.metadata.name)?.cluster;
    if (cluster && was && was !== cluster)
      this.tell(this.moveListeners, tenant.metadata.name, (listener) => listener(tenant.metadata.name, cluster));
    this.tenants.set(tenant.metadata.name, {
      active: tenant.status?.phase === 'Active' && !tenant.metadata.deletionTimestamp,
      serials: Array.isArray(tenant.status?.certificateSerials) ? (tenant.status.certificateSerials as string[]) : NONE,
      cluster,
      movingTo: orNone(movingTo(tenant)),
      limits: tenantLimitOverrides(tenant),
      tolerations: Array.isArray(tenant.spec?.clusterTolerations) ? tenant.spec.clusterTolerations : NONE,
      evicting: Array.isArray(tenant.status?.evictionTasks) && tenant.status.evictionTasks.length > 0,
    });
    return tenant.metadata.name;
  }
}
