import type { ApiServer } from '../../apiserver/api-server.js';
import { groupOfApiVersion, versionOfApiVersion } from '../../apiserver/api-version.js';
import { goQuote } from '../../apiserver/go-quote.js';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from '../../apiserver/registry/generic-registry.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { ApiError } from '../../apiserver/status.js';
import type { KeyValue, Store, WatchEvent } from '../../store/index.js';
import { mutate, removeFinalizer } from '../../apiserver/registry/object-mutation.js';
import { parseRegistryKey } from '../../apiserver/registry/object-store.js';
import { WatchLoop } from '../../store/watch-loop.js';
import { logger } from '../../log/log.js';
import { EventRecorder } from './event-recorder.js';

const log = logger('garbage collector');

interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  blockOwnerDeletion?: boolean;
}

interface Node {
  uid: string;
  group: string;
  resource: string;
  namespace: string;
  name: string;
  owners: OwnerReference[];
  deleting: boolean;
  finalizers: string[];
}

/**
 * What an owner reference of a dependent names, as kube's collector finds out (its `isDangling`
 * and `classifyReferences`): `solid` and `waiting` (its owner deletes its dependents first) when
 * the object of that kind, name and uid is in the dependent's namespace (or cluster-scoped);
 * `dangling` when no such object is — another object's uid under the wrong name or namespace
 * included; `unresolvable` for a kind not served, or a namespaced owner of a cluster-scoped
 * dependent, which kube leaves alone rather than collects.
 */
type Resolution = 'solid' | 'waiting' | 'dangling' | 'unresolvable';

/**
 * ownerReference garbage collection, as kube-controller-manager's garbage collector: one watch
 * over all of `/registry/` keeps a graph of every object's owners by uid, and an owner
 * reference counts only when the object of its kind, name and uid is where the dependent can
 * have it (its own namespace, or cluster-scoped). Then:
 * - a dependent with no owner left (deleted, or never there under those coordinates) is deleted;
 *   one with another owner left has the dangling references dropped (Background);
 * - an owner deleting with `foregroundDeletion` has its dependents deleted, and loses the
 *   finalizer once no dependent with `blockOwnerDeletion` names its uid (Foreground);
 * - an owner deleting with `orphan` has the references to it removed from its dependents, then
 *   loses the finalizer (Orphan).
 * A reference to an object by its uid in another namespace is reported on the dependent as kube
 * reports it: a Warning `OwnerRefInvalidNamespace`.
 *
 * Like kube's, the wait of a foreground deletion counts dependents by uid (its
 * `blockingDependents`): a dependent naming the owner's uid with the wrong coordinates and held
 * by a finalizer of its own is deleted at once, but the owner waits until it is gone.
 */
export class GarbageCollector {
  private readonly loop: WatchLoop;
  private readonly nodes = new Map<string, Node>();
  private readonly dependents = new Map<string, Set<string>>();
  /** `<dependent>/<owner>` uids already reported, so a relist does not report them again. */
  private readonly reported = new Set<string>();
  private readonly events: EventRecorder;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly api: ApiServer,
    store: Store,
  ) {
    this.events = new EventRecorder(api, { component: 'garbage-collector-controller' });
    this.loop = new WatchLoop(
      store,
      '/registry/',
      { onList: (items) => this.rebuild(items), onEvent: (event) => this.observe(event) },
      'garbage collector',
    );
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    await this.queue;
  }

  private rebuild(items: KeyValue[]): void {
    this.nodes.clear();
    this.dependents.clear();
    for (const kv of items) this.upsert(kv.key, JSON.parse(kv.value) as ApiObject);
    // Every node is in the graph before any is judged: a dependent may come before its owner in key order.
    for (const node of this.nodes.values()) {
      this.judgeReferences(node, node.owners);
      this.reconcileDeleting(node);
    }
  }

  private observe(event: WatchEvent): void {
    const object = JSON.parse(event.value) as ApiObject;
    const uid: string | undefined = object.metadata?.uid;
    if (!uid) return;
    const previous = this.nodes.get(uid);
    if (event.type === 'delete') {
      this.remove(uid);
      for (const key of this.reported) if (key.startsWith(`${uid}/`)) this.reported.delete(key);
      for (const dependent of this.dependents.get(uid) ?? []) this.enqueue(() => this.attemptToDelete(dependent));
      for (const owner of previous?.owners ?? []) this.recheckOwner(owner.uid);
      return;
    }
    const node = this.upsert(event.key, object);
    if (!node) return;
    const before = new Map((previous?.owners ?? []).map((ref) => [ref.uid, ref]));
    this.judgeReferences(
      node,
      node.owners.filter((ref) => !before.has(ref.uid)),
    );
    // A reference removed, or no longer blocking, may be what an owner in foreground deletion waits for.
    const now = new Map(node.owners.map((ref) => [ref.uid, ref]));
    for (const [owner, ref] of before)
      if (ref.blockOwnerDeletion === true && now.get(owner)?.blockOwnerDeletion !== true) this.recheckOwner(owner);
    this.reconcileDeleting(node);
  }

  /** An owner in foreground deletion one of whose dependents went, or stopped blocking it, is looked at again. */
  private recheckOwner(uid: string): void {
    const owner = this.nodes.get(uid);
    if (owner && isDeletingDependents(owner)) this.enqueue(() => this.attemptToDelete(uid));
  }

  /**
   * New references of a dependent (kube's addDependentToOwners): one to an object in another
   * namespace is reported, and a dependent with any reference not to a live owner is looked at.
   */
  private judgeReferences(node: Node, added: OwnerReference[]): void {
    for (const ref of added) {
      const owner = this.nodes.get(ref.uid);
      if (owner && owner.namespace !== '' && owner.namespace !== node.namespace) this.reportInvalidNamespace(node, ref);
    }
    if (added.some((ref) => this.resolve(node, ref) !== 'solid')) this.enqueue(() => this.attemptToDelete(node.uid));
  }

  /** An owner being deleted: its orphaning, or its dependents' deletion and its own wait. */
  private reconcileDeleting(node: Node): void {
    if (!node.deleting) return;
    if (node.finalizers.includes(FINALIZER_ORPHAN)) this.enqueue(() => this.orphanDependents(node.uid));
    else if (node.finalizers.includes(FINALIZER_FOREGROUND)) {
      for (const dependent of this.dependents.get(node.uid) ?? []) this.enqueue(() => this.attemptToDelete(dependent));
      this.enqueue(() => this.attemptToDelete(node.uid));
    }
  }

  private upsert(key: string, object: ApiObject): Node | undefined {
    const where = parseRegistryKey(key);
    const uid: string | undefined = object.metadata?.uid;
    if (!where || !uid) return undefined;
    this.remove(uid);
    const owners = ((object.metadata.ownerReferences ?? []) as OwnerReference[]).filter((ref) => ref.uid);
    const node: Node = {
      uid,
      ...where,
      owners,
      deleting: Boolean(object.metadata.deletionTimestamp),
      finalizers: object.metadata.finalizers ?? [],
    };
    this.nodes.set(uid, node);
    for (const owner of owners) {
      let set = this.dependents.get(owner.uid);
      if (!set) this.dependents.set(owner.uid, (set = new Set()));
      set.add(uid);
    }
    return node;
  }

  private remove(uid: string): void {
    const node = this.nodes.get(uid);
    if (!node) return;
    for (const owner of node.owners) this.dependents.get(owner.uid)?.delete(uid);
    this.nodes.delete(uid);
  }

  /**
   * kube's isDangling, from the graph: the graph holds every object the store does (one watch,
   * in revision order), so looking the owner up by uid and comparing where it is answers what a
   * GET of its kind by name in the dependent's namespace would.
   */
  private resolve(dependent: Node, ref: OwnerReference): Resolution {
    const info = this.resourceOf(ref.apiVersion, ref.kind);
    if (!info || (info.namespaced && dependent.namespace === '')) return 'unresolvable';
    const owner = this.nodes.get(ref.uid);
    const namespace = info.namespaced ? dependent.namespace : '';
    if (
      !owner ||
      owner.group !== info.group ||
      owner.resource !== info.resource ||
      owner.namespace !== namespace ||
      owner.name !== ref.name
    )
      return 'dangling';
    return isDeletingDependents(owner) ? 'waiting' : 'solid';
  }

  private resourceOf(apiVersion: string, kind: string) {
    const group = groupOfApiVersion(apiVersion);
    const version = versionOfApiVersion(apiVersion);
    return this.api.options.catalog
      .resources()
      .find((r) => r.group === group && r.version === version && r.kind === kind);
  }

  /**
   * kube's attemptToDeleteItem: an owner waiting for its dependents is let go once none blocks
   * it; a dependent with no solid owner is deleted; one with a solid owner loses its references
   * to the absent ones and to those deleting their dependents.
   */
  private async attemptToDelete(uid: string): Promise<void> {
    const node = this.nodes.get(uid);
    if (!node) return;
    if (node.deleting && !isDeletingDependents(node)) return;
    if (node.deleting) return this.processDeletingDependents(node);
    if (node.owners.length === 0) return;
    const resolutions = node.owners.map((ref) => ({ ref, resolution: this.resolve(node, ref) }));
    if (resolutions.some(({ resolution }) => resolution === 'unresolvable')) return;
    const of = (resolution: Resolution) => resolutions.filter((r) => r.resolution === resolution).map((r) => r.ref);
    const waiting = of('waiting');
    if (of('solid').length > 0) {
      const drop = [...of('dangling'), ...waiting].map((ref) => ref.uid);
      if (drop.length > 0) await this.dropOwners(node, drop);
      return;
    }
    if (waiting.length > 0 && (this.dependents.get(uid)?.size ?? 0) > 0) return this.delete(node, 'Foreground');
    const policy = node.finalizers.includes(FINALIZER_ORPHAN)
      ? 'Orphan'
      : node.finalizers.includes(FINALIZER_FOREGROUND)
        ? 'Foreground'
        : 'Background';
    return this.delete(node, policy);
  }

  /** Dependents naming this owner's uid with `blockOwnerDeletion` hold it; when none is left, it goes. */
  private async processDeletingDependents(owner: Node): Promise<void> {
    const blocking = [...(this.dependents.get(owner.uid) ?? [])]
      .map((uid) => this.nodes.get(uid))
      .filter((dependent): dependent is Node =>
        Boolean(dependent?.owners.some((ref) => ref.uid === owner.uid && ref.blockOwnerDeletion === true)),
      );
    if (blocking.length === 0) return this.dropFinalizer(owner, FINALIZER_FOREGROUND);
    for (const dependent of blocking)
      if (!isDeletingDependents(dependent)) this.enqueue(() => this.attemptToDelete(dependent.uid));
  }

  private async orphanDependents(uid: string): Promise<void> {
    const owner = this.nodes.get(uid);
    if (!owner?.deleting || !owner.finalizers.includes(FINALIZER_ORPHAN)) return;
    for (const dependent of this.dependents.get(uid) ?? []) {
      const node = this.nodes.get(dependent);
      if (node) await this.dropOwners(node, [uid]);
    }
    await this.dropFinalizer(owner, FINALIZER_ORPHAN);
  }

  private reportInvalidNamespace(dependent: Node, ref: OwnerReference): void {
    const key = `${dependent.uid}/${ref.uid}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    const info = this.api.registryOf(dependent.group, dependent.resource)?.info;
    if (!info) return;
    const involved: ApiObject = {
      apiVersion: info.group ? `${info.group}/${info.version}` : info.version,
      kind: info.kind,
      metadata: { namespace: dependent.namespace, name: dependent.name, uid: dependent.uid },
    };
    // kube prints the reference as its objectReference's String(), with the dependent's namespace.
    const owner = `[${ref.apiVersion}/${ref.kind}, namespace: ${dependent.namespace}, name: ${ref.name}, uid: ${ref.uid}]`;
    const message = `ownerRef ${owner} does not exist in namespace ${goQuote(dependent.namespace)}`;
    this.enqueue(() => this.events.record(involved, 'Warning', 'OwnerRefInvalidNamespace', message));
  }

  /** Deleted with the uid as precondition, as kube's collector deletes: another object of the name is not this one. */
  private async delete(node: Node, propagationPolicy: 'Background' | 'Foreground' | 'Orphan'): Promise<void> {
    const registry = this.registry(node);
    if (!registry) return;
    try {
      await registry.delete(node.namespace, node.name, { propagationPolicy, preconditions: { uid: node.uid } });
    } catch (err) {
      if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
    }
  }

  private async dropOwners(node: Node, owners: string[]): Promise<void> {
    const registry = this.registry(node);
    if (!registry) return;
    await mutate(registry, node.namespace, node.name, (object) => {
      const refs: { uid: string }[] = object.metadata.ownerReferences ?? [];
      if (object.metadata.uid !== node.uid || !refs.some((ref) => owners.includes(ref.uid))) return false;
      object.metadata.ownerReferences = refs.filter((ref) => !owners.includes(ref.uid));
      if (object.metadata.ownerReferences.length === 0) delete object.metadata.ownerReferences;
      return true;
    });
  }

  private async dropFinalizer(node: Node, finalizer: string): Promise<void> {
    const registry = this.registry(node);
    if (registry)
      await mutate(
        registry,
        node.namespace,
        node.name,
        (object) => object.metadata.uid === node.uid && removeFinalizer(object, finalizer),
      );
  }

  private registry(node: Pick<Node, 'group' | 'resource'>) {
    return this.api.registryOf(node.group, node.resource);
  }

  /** One action at a time, in order, so the graph and the store do not race each other. */
  private enqueue(action: () => Promise<void>): void {
    this.queue = this.queue.then(action).catch((err: Error) => {
      if (!this.stopped) log.warn('an action failed', { error: err.message }, err.message);
    });
  }
}

/** Deleting with `foregroundDeletion`: waiting for its dependents (kube's isDeletingDependents). */
function isDeletingDependents(node: Node): boolean {
  return node.deleting && node.finalizers.includes(FINALIZER_FOREGROUND);
}
