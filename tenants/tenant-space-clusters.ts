import type { GenericRegistry } from '../apiserver/registry/generic-registry.js';
import { mutate } from '../apiserver/registry/object-mutation.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';

/**
 * `status.spaceClusters`: every cluster that holds, or held, part of the tenant's space — where it
 * was placed, where a failover moved it, where a purge is still pending (mode Never, or Gracefully
 * not yet due). A cluster is recorded before anything of the tenant is made there and forgotten
 * only once its purge is done, so deleting the tenant can purge every one of them: a tenant
 * created later with the same id must find nothing of the old owner on any cluster.
 */
export function spaceClustersOf(tenant: ApiObject): string[] {
  const status = tenant.status ?? {};
  if (Array.isArray(status.spaceClusters)) return status.spaceClusters.filter((c: unknown) => typeof c === 'string');
  // A tenant made before the record existed: its cluster and the clusters its eviction tasks left.
  const tasks: { fromCluster?: unknown }[] = Array.isArray(status.evictionTasks) ? status.evictionTasks : [];
  const held = [status.cluster, ...tasks.map((task) => task.fromCluster)];
  return [...new Set(held.filter((c): c is string => typeof c === 'string'))];
}

/**
 * The clusters a move is making the tenant's space on and has not switched it to yet: recorded,
 * but neither its cluster nor one an eviction task moves it from. Placement counts the tenant
 * there already, or the next moves would all pick the same least-loaded cluster.
 */
export function movingTo(tenant: ApiObject): string[] {
  const status = tenant.status ?? {};
  const tasks: { fromCluster?: unknown }[] = Array.isArray(status.evictionTasks) ? status.evictionTasks : [];
  const left = new Set([status.cluster, ...tasks.map((task) => task.fromCluster)]);
  return spaceClustersOf(tenant).filter((cluster) => !left.has(cluster));
}

/** The tenant's record with `cluster` added, or null when it is there already. */
export function withSpaceCluster(tenant: ApiObject, cluster: string): string[] | null {
  const recorded = spaceClustersOf(tenant);
  if (!recorded.includes(cluster)) return [...recorded, cluster];
  // Written out for a tenant made before the record, so that the record is what counts from now on.
  return Array.isArray(tenant.status?.spaceClusters) ? null : recorded;
}

/**
 * Records `cluster` in the tenant's status before its space is made there. Refused for a tenant
 * being deleted: its deletion may already have purged the clusters it knew of.
 */
export async function recordSpaceCluster(tenants: GenericRegistry, tenantId: string, cluster: string): Promise<void> {
  await mutate(
    tenants,
    '',
    tenantId,
    (stored) => {
      if (stored.metadata.deletionTimestamp) throw new Error(`tenant ${tenantId} is being deleted`);
      const recorded = withSpaceCluster(stored, cluster);
      if (!recorded) return false;
      stored.status = { ...stored.status, spaceClusters: recorded };
      return true;
    },
    { subresource: 'status' },
  );
}

/** Forgets a cluster whose purge is done (the change to make inside a status write); false when it was not recorded. */
export function forgetSpaceCluster(stored: ApiObject, cluster: string): boolean {
  const recorded = spaceClustersOf(stored);
  if (!recorded.includes(cluster)) return false;
  stored.status = { ...stored.status, spaceClusters: recorded.filter((c) => c !== cluster) };
  return true;
}
