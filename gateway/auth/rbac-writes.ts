/**
 * Read-your-writes for the gateway's RBAC decisions. The gateway decides a tenant's cluster-scope
 * requests from the cluster's shared informers (tenant-authorizer.ts), which see a write a moment
 * after the cluster answered it. A tenant's RBAC write through this replica is therefore pending
 * until the informer of what it wrote has seen it, and until then the tenant's decisions read the
 * cluster itself: the tenant's next request is decided by what it just wrote.
 *
 * A write is seen when the informer's resourceVersion has reached the one the write was answered
 * with (the informer takes its resource's events in order, as kube's watch cache does); a
 * deletion, answered by kube with a Status naming the uid removed, when the informer no longer
 * holds that object.
 */
import type { Json } from '../../apiserver/json.js';
import { storeKey } from '../../informer/key-func.js';
import { atLeast } from '../../informer/resource-version-order.js';

export const RBAC_RESOURCES = ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'] as const;
export type RbacResource = (typeof RBAC_RESOURCES)[number];

export function isRbacResource(resource: string): resource is RbacResource {
  return (RBAC_RESOURCES as readonly string[]).includes(resource);
}

/** One object a write through this replica left upstream, by the informer that will see it. */
export type RbacWrite =
  { resource: RbacResource; resourceVersion: string } | { resource: RbacResource; key: string; deletedUid: string };

/** What the informers of a cluster's RBAC resources can say of a write. */
export interface RbacWriteWitness {
  /** The resourceVersion the informer of `resource` has seen up to. */
  lastSyncResourceVersion(resource: RbacResource): string;
  /** The uid of the object the informer of `resource` holds under `key`, if any. */
  uidOf(resource: RbacResource, key: string): string | undefined;
}

/**
 * The writes an upstream answer reports, for the object (or collection) under `key` of
 * `resource`: the object written (its resourceVersion); the Status of a deletion (the uid
 * removed); a collection's deletion, the list of what it removed. Undefined for an answer that
 * says none of these: its write cannot be waited for.
 */
export function rbacWritesOf(resource: RbacResource, key: string, answer: Json | undefined): (RbacWrite | undefined)[] {
  if (answer?.kind === 'Status') {
    const uid = answer.details?.uid;
    return [typeof uid === 'string' && uid !== '' ? { resource, key, deletedUid: uid } : undefined];
  }
  if (Array.isArray(answer?.items)) {
    return answer.items.map((item: Json) => {
      const { namespace, name, uid } = item?.metadata ?? {};
      return typeof name === 'string' && typeof uid === 'string' && uid !== ''
        ? { resource, key: storeKey(typeof namespace === 'string' ? namespace : '', name), deletedUid: uid }
        : undefined;
    });
  }
  const resourceVersion = answer?.metadata?.resourceVersion;
  return [typeof resourceVersion === 'string' && resourceVersion !== '' ? { resource, resourceVersion } : undefined];
}

export function isSeen(write: RbacWrite, witness: RbacWriteWitness): boolean {
  if ('deletedUid' in write) return witness.uidOf(write.resource, write.key) !== write.deletedUid;
  return atLeast(witness.lastSyncResourceVersion(write.resource), write.resourceVersion);
}

/** A write whose answer said nothing to wait for is waited for this long instead. */
export const UNKNOWN_WRITE_MS = 5_000;

/** Each tenant's writes through this replica that the informers have not seen yet. */
export class PendingRbacWrites {
  private readonly byTenant = new Map<string, { writes: RbacWrite[]; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** `writes` holds undefined for a write whose answer said nothing to wait for. */
  add(tenant: string, writes: readonly (RbacWrite | undefined)[]): void {
    const pending = this.byTenant.get(tenant) ?? { writes: [], until: 0 };
    for (const write of writes) {
      if (write) pending.writes.push(write);
      else pending.until = this.now() + UNKNOWN_WRITE_MS;
    }
    if (pending.writes.length || pending.until) this.byTenant.set(tenant, pending);
  }

  /**
   * Whether the informers have seen every write of the tenant's (of `resource`, if given; a write
   * that named nothing to wait for is of every resource); the seen ones are forgotten.
   */
  allSeen(tenant: string, witness: RbacWriteWitness, resource?: RbacResource): boolean {
    const pending = this.byTenant.get(tenant);
    if (!pending) return true;
    pending.writes = pending.writes.filter((write) => !isSeen(write, witness));
    if (pending.until <= this.now()) pending.until = 0;
    if (!pending.writes.length && !pending.until) {
      this.byTenant.delete(tenant);
      return true;
    }
    return !pending.until && resource !== undefined && !pending.writes.some((write) => write.resource === resource);
  }

  /** Tenants with writes pending now. */
  get size(): number {
    return this.byTenant.size;
  }
}
