import type { CachedObject } from '../../search/cached-object.js';
import type { CachedObjectInformers } from '../../search/cached-object-informers.js';
import type { HandlerRegistration, SharedInformer } from '../../informer/shared-informer.js';
import { TENANT_INDEX, tenantIndexFunc } from '../../informer/tenant-index.js';
import { hasPrefix, tenantPrefix } from '../../translate/context.js';
import { TENANT_LABEL } from '../../translate/kinds/tenant-label.js';

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces', namespaced: false } as const;

/** News of one tenant's namespaces (`NamespaceIndex.follow`). */
export interface TenantNamespaceEvents {
  /** A namespace came: created, or found by a relist. `resourceVersion` is the namespace's own: nothing in it is older. */
  added(name: string, resourceVersion: string): void;
  /** A namespace went, or a relist no longer has it. */
  deleted(name: string): void;
}

/**
 * Every tenant's namespaces on one cluster: the tenant index (the tenant label's value) over the
 * cluster's shared informer of namespaces (the connection's, cached-object-informers.ts), which
 * the search cache's and the tenant spaces' namespaces share, one per cluster and gateway
 * replica. A tenant's `get pods -A` needs its namespaces first; asking the cluster each time costs
 * a label-selected list over every tenant's namespaces (21 ms on the devcluster at 4,000
 * namespaces, most of a fan-out list's time). A namespace this replica creates is added at once;
 * one made through another replica arrives with the watch, milliseconds later. Until the first
 * list is in, and while the watch is broken, `namespacesOf` answers undefined and the caller asks
 * the cluster.
 */
export class NamespaceIndex {
  /** Namespaces this replica created, by tenant, until the watch brings them (or a relist starts over). */
  private readonly created = new Map<string, Set<string>>();
  private followed: { informer: SharedInformer<CachedObject>; subscription: HandlerRegistration } | undefined;

  constructor(private readonly informers: CachedObjectInformers) {}

  /** The tenant's namespaces in name order, or undefined when the index cannot answer yet. */
  namespacesOf(tenantId: string): string[] | undefined {
    const informer = this.start();
    if (!informer.isCurrent()) return undefined;
    const names = new Set(informer.indexer.byIndex(TENANT_INDEX, tenantId).map((ns) => ns.metadata.name));
    for (const name of this.created.get(tenantId) ?? []) names.add(name);
    const tenant = tenantPrefix(tenantId);
    return [...names].filter((name) => hasPrefix(tenant, name)).sort();
  }

  /** A namespace this replica just created for the tenant: known before the watch says so. */
  added(tenantId: string, name: string): void {
    if (!this.followed?.informer.isCurrent()) return;
    let names = this.created.get(tenantId);
    if (!names) this.created.set(tenantId, (names = new Set()));
    names.add(name);
  }

  /**
   * The tenant's namespaces the index holds now (whether or not it is current: it may be ahead of a
   * list just asked of the cluster), and from now on `events` of those that come and go.
   */
  follow(tenantId: string, events: TenantNamespaceEvents): { names: string[] } & HandlerRegistration {
    const informer = this.start();
    const tenant = tenantPrefix(tenantId);
    const isTenants = (ns: CachedObject) =>
      ns.metadata.labels?.[TENANT_LABEL] === tenantId && hasPrefix(tenant, ns.metadata.name);
    // Adding a handler tells it of what is there already: those are `names`, not news.
    let registering = true;
    const registration = informer.addEventHandler({
      onAdd: (ns) => {
        if (!registering && isTenants(ns)) events.added(ns.metadata.name, ns.metadata.resourceVersion);
      },
      onDelete: (ns) => {
        if (isTenants(ns)) events.deleted(ns.metadata.name);
      },
    });
    registering = false;
    const names = informer.indexer.byIndex(TENANT_INDEX, tenantId).map((ns) => ns.metadata.name);
    return { names: names.filter((name) => hasPrefix(tenant, name)).sort(), remove: () => registration.remove() };
  }

  stop(): void {
    this.followed?.subscription.remove();
    this.followed = undefined;
  }

  /** Follows the namespaces from the first use on: a replica no tenant reads across namespaces with needs no index. */
  private start(): SharedInformer<CachedObject> {
    if (this.followed) return this.followed.informer;
    const informer = this.informers.informerFor(NAMESPACES);
    informer.addIndexers({ [TENANT_INDEX]: tenantIndexFunc });
    const arrived = (namespace: CachedObject) => this.forget(namespace);
    // A sink rather than a handler: a relist (its replace) starts the namespaces created over.
    const subscription = informer.addSink({
      replace: () => this.created.clear(),
      add: arrived,
      update: arrived,
      delete: arrived,
      bookmark: () => {},
    });
    this.followed = { informer, subscription };
    return informer;
  }

  private forget(namespace: CachedObject): void {
    const tenantId = namespace.metadata.labels?.[TENANT_LABEL];
    if (tenantId === undefined) return;
    const names = this.created.get(tenantId);
    if (!names) return;
    names.delete(namespace.metadata.name);
    if (names.size === 0) this.created.delete(tenantId);
  }
}
