import type { RestClient } from '../../apiserver/client/rest-client.js';
import { RestListWatcher } from '../../informer/rest-list-watcher.js';
import { SharedInformer, type HandlerRegistration } from '../../informer/shared-informer.js';
import { TENANT_INDEX, tenantIndexFunc } from '../../informer/tenant-index.js';
import { hasPrefix, tenantPrefix } from '../../translate/context.js';
import { TENANT_LABEL } from '../../translate/kinds/tenant-label.js';

/** News of one tenant's namespaces (`NamespaceIndex.follow`). */
export interface TenantNamespaceEvents {
  /** A namespace came: created, or found by a relist. `resourceVersion` is the namespace's own: nothing in it is older. */
  added(name: string, resourceVersion: string): void;
  /** A namespace went, or a relist no longer has it. */
  deleted(name: string): void;
}

/** What the index keeps of a namespace: its name and labels (the tenant label is its index value). */
interface NamespaceEntry {
  metadata: { name: string; labels: Record<string, string>; resourceVersion: string };
}

/**
 * Every tenant's namespaces on one cluster: a SharedInformer (informer/) of the namespaces that
 * carry the tenant label, indexed by tenant, one per cluster and gateway replica. A tenant's
 * `get pods -A` needs its namespaces first; asking the cluster each time costs a label-selected
 * list over every tenant's namespaces (21 ms on the devcluster at 4,000 namespaces, most of a
 * fan-out list's time). A namespace this replica creates is added at once; one made through
 * another replica arrives with the watch, milliseconds later. Until the first list is in, and
 * while the watch is broken, `namespacesOf` answers undefined and the caller asks the cluster.
 */
export class NamespaceIndex {
  private readonly informer: SharedInformer<NamespaceEntry>;
  /** Namespaces this replica created, by tenant, until the watch brings them (or a relist starts over). */
  private readonly created = new Map<string, Set<string>>();
  private started = false;

  constructor(admin: RestClient) {
    const namespaces = new RestListWatcher(admin, {
      groupVersionPath: '/api/v1',
      resource: 'namespaces',
      labelSelector: TENANT_LABEL,
    });
    this.informer = new SharedInformer<NamespaceEntry>(namespaces, {
      name: 'namespace index',
      indexers: { [TENANT_INDEX]: tenantIndexFunc },
      transform: ({ metadata }) => ({
        metadata: { name: metadata.name, labels: metadata.labels ?? {}, resourceVersion: metadata.resourceVersion },
      }),
      hooks: { listed: () => this.created.clear() },
    });
    const arrived = (namespace: NamespaceEntry) => this.forget(namespace);
    this.informer.addEventHandler({
      onAdd: arrived,
      onUpdate: (_, namespace) => arrived(namespace),
      onDelete: arrived,
    });
  }

  /** The tenant's namespaces in name order, or undefined when the index cannot answer yet. */
  namespacesOf(tenantId: string): string[] | undefined {
    this.start();
    if (!this.informer.isCurrent()) return undefined;
    const names = new Set(this.informer.indexer.byIndex(TENANT_INDEX, tenantId).map((ns) => ns.metadata.name));
    for (const name of this.created.get(tenantId) ?? []) names.add(name);
    const tenant = tenantPrefix(tenantId);
    return [...names].filter((name) => hasPrefix(tenant, name)).sort();
  }

  /** A namespace this replica just created for the tenant: known before the watch says so. */
  added(tenantId: string, name: string): void {
    if (!this.informer.isCurrent()) return;
    let names = this.created.get(tenantId);
    if (!names) this.created.set(tenantId, (names = new Set()));
    names.add(name);
  }

  /**
   * The tenant's namespaces the index holds now (whether or not it is current: it may be ahead of a
   * list just asked of the cluster), and from now on `events` of those that come and go.
   */
  follow(tenantId: string, events: TenantNamespaceEvents): { names: string[] } & HandlerRegistration {
    this.start();
    const tenant = tenantPrefix(tenantId);
    const isTenants = (ns: NamespaceEntry) =>
      ns.metadata.labels[TENANT_LABEL] === tenantId && hasPrefix(tenant, ns.metadata.name);
    // Adding a handler tells it of what is there already: those are `names`, not news.
    let registering = true;
    const registration = this.informer.addEventHandler({
      onAdd: (ns) => {
        if (!registering && isTenants(ns)) events.added(ns.metadata.name, ns.metadata.resourceVersion);
      },
      onDelete: (ns) => {
        if (isTenants(ns)) events.deleted(ns.metadata.name);
      },
    });
    registering = false;
    const names = this.informer.indexer.byIndex(TENANT_INDEX, tenantId).map((ns) => ns.metadata.name);
    return { names: names.filter((name) => hasPrefix(tenant, name)).sort(), remove: () => registration.remove() };
  }

  stop(): void {
    this.informer.stop();
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.informer.run();
  }

  private forget(namespace: NamespaceEntry): void {
    const tenantId = namespace.metadata.labels[TENANT_LABEL];
    const names = this.created.get(tenantId);
    if (!names) return;
    names.delete(namespace.metadata.name);
    if (names.size === 0) this.created.delete(tenantId);
  }
}
