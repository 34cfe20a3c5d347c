import type { ApiObject } from '../apiserver/registry/object-store.js';
import type { Store } from '../store/index.js';
import { WatchLoop } from '../store/watch-loop.js';
import { tenantLimitOverrides, type TenantLimitOverrides } from './tenant-resource.js';

export const TENANTS_PREFIX = '/registry/tenant.kubezoo.io/tenants/';

interface TenantEntry {
  active: boolean;
  serials: Set<string>;
  cluster: string | undefined;
  limits: TenantLimitOverrides | undefined;
}

/**
 * Who may come in right now: every gateway replica follows the Tenant objects in the store by
 * watch, so a deleted tenant, a Terminating one, or a revoked certificate serial is refused
 * as soon as the change reaches the replica's watch — never a store round trip per request.
 */
export class TenantRegistry {
  private readonly tenants = new Map<string, TenantEntry>();
  private readonly loop: WatchLoop;

  constructor(store: Store) {
    this.loop = new WatchLoop(store, TENANTS_PREFIX, {
      onList: (items) => {
        this.tenants.clear();
        for (const kv of items) this.observe(JSON.parse(kv.value) as ApiObject);
      },
      onEvent: (event) => {
        const tenant = JSON.parse(event.value) as ApiObject;
        if (event.type === 'delete') this.tenants.delete(tenant.metadata.name);
        else this.observe(tenant);
      },
    }, 'tenant registry');
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Why a tenant certificate is refused, or null when it is accepted. */
  refusal(tenantId: string, serial: string): string | null {
    const tenant = this.tenants.get(tenantId);
    if (!tenant) return `tenant ${tenantId} does not exist`;
    if (!tenant.active) return `tenant ${tenantId} is not active`;
    if (!tenant.serials.has(serial)) return `certificate ${serial} of tenant ${tenantId} is not (or no longer) valid`;
    return null;
  }

  clusterOf(tenantId: string): string | undefined {
    return this.tenants.get(tenantId)?.cluster;
  }

  /** The limits the Tenant's `spec.limits` sets, over the gateway's defaults. */
  limitsOf(tenantId: string): TenantLimitOverrides | undefined {
    return this.tenants.get(tenantId)?.limits;
  }

  private observe(tenant: ApiObject): void {
    this.tenants.set(tenant.metadata.name, {
      active: tenant.status?.phase === 'Active' && !tenant.metadata.deletionTimestamp,
      serials: new Set((tenant.status?.certificateSerials ?? []) as string[]),
      cluster: tenant.status?.cluster,
      limits: tenantLimitOverrides(tenant),
    });
  }
}
