import type { ApiServer } from '../../apiserver/api-server.js';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from '../../apiserver/registry/generic-registry.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import type { KeyValue, Store, WatchEvent } from '../../store/index.js';
import { deleteQuietly, mutate, removeFinalizer } from '../../apiserver/registry/object-mutation.js';
import { parseRegistryKey } from '../../apiserver/registry/object-store.js';
import { WatchLoop } from '../../store/watch-loop.js';
import { logger } from '../../log/log.js';

const log = logger('garbage collector');

interface Node {
  group: string;
  resource: string;
  namespace: string;
  name: string;
  owners: string[];
  deleting: boolean;
  finalizers: string[];
}

/**
 * ownerReference garbage collection, as kube-controller-manager's garbage collector: it keeps
 * a graph of every object's owners (by uid) from one watch over all of `/registry/`, and
 * - when an owner is gone (deleted, or already gone when the dependent was written), deletes
 *   dependents that have no other owner left and drops the dangling reference from those that
 *   do (Background);
 * - for an owner deleting with `foregroundDeletion`, deletes its dependents first and then
 *   drops the finalizer so the owner goes last (Foreground);
 * - for an owner deleting with `orphan`, removes the references to it from its dependents and
 *   then drops the finalizer (Orphan).
 */
export class GarbageCollector {
  private readonly loop: WatchLoop;
  private readonly nodes = new Map<string, Node>();
  private readonly dependents = new Map<string, Set<string>>();
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly api: ApiServer,
    store: Store,
  ) {
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
    for (const [uid, node] of this.nodes) {
      if (node.owners.length && node.owners.every((owner) => !this.nodes.has(owner)))
        this.enqueue(() => this.collect(uid));
      this.reconcileOwner(uid);
    }
  }

  private observe(event: WatchEvent): void {
    const object = JSON.parse(event.value) as ApiObject;
    const uid: string | undefined = object.metadata?.uid;
    if (!uid) return;
    if (event.type === 'delete') {
      const node = this.nodes.get(uid);
      this.remove(uid);
      for (const dependent of this.dependents.get(uid) ?? []) this.enqueue(() => this.collect(dependent));
      for (const owner of node?.owners ?? []) this.reconcileOwner(owner);
      return;
    }
    this.upsert(event.key, object);
    // Written with an owner that is gone already (a controller that acted as its owner was being
    // deleted): collected as kube's collector collects dependents of absent owners. The one watch
    // runs in revision order, so an owner that exists has been seen.
    if (this.nodes.get(uid)?.owners.some((owner) => !this.nodes.has(owner))) this.enqueue(() => this.collect(uid));
    this.reconcileOwner(uid);
  }

  private upsert(key: string, object: ApiObject): void {
    const where = parseRegistryKey(key);
    const uid: string | undefined = object.metadata?.uid;
    if (!where || !uid) return;
    this.remove(uid);
    const owners: string[] = (object.metadata.ownerReferences ?? [])
      .map((ref: { uid: string }) => ref.uid)
      .filter(Boolean);
    this.nodes.set(uid, {
      ...where,
      owners,
      deleting: Boolean(object.metadata.deletionTimestamp),
      finalizers: object.metadata.finalizers ?? [],
    });
    for (const owner of owners) {
      let set = this.dependents.get(owner);
      if (!set) this.dependents.set(owner, (set = new Set()));
      set.add(uid);
    }
  }

  private remove(uid: string): void {
    const node = this.nodes.get(uid);
    if (!node) return;
    for (const owner of node.owners) this.dependents.get(owner)?.delete(uid);
    this.nodes.delete(uid);
  }

  /** An owner in foreground or orphan deletion: act on its dependents, then let it go. */
  private reconcileOwner(uid: string): void {
    const node = this.nodes.get(uid);
    if (!node?.deleting) return;
    const dependents = [...(this.dependents.get(uid) ?? [])];
    if (node.finalizers.includes(FINALIZER_ORPHAN)) {
      this.enqueue(async () => {
        for (const dependent of dependents) await this.dropOwner(dependent, uid);
        await this.dropFinalizer(node, FINALIZER_ORPHAN);
      });
    } else if (node.finalizers.includes(FINALIZER_FOREGROUND)) {
      this.enqueue(async () => {
        if (dependents.length === 0) return this.dropFinalizer(node, FINALIZER_FOREGROUND);
        for (const dependent of dependents) {
          const child = this.nodes.get(dependent);
          if (child && !child.deleting)
            await deleteQuietly(this.registry(child)!, child.namespace, child.name, 'Foreground');
        }
      });
    }
  }

  /** A dependent whose owner went away: delete it if no owner is left, else drop the reference. */
  private async collect(uid: string): Promise<void> {
    const node = this.nodes.get(uid);
    if (!node) return;
    const registry = this.registry(node);
    if (!registry) return;
    const living = node.owners.filter((owner) => this.nodes.has(owner));
    if (living.length === 0) return deleteQuietly(registry, node.namespace, node.name, 'Background');
    for (const owner of node.owners.filter((o) => !this.nodes.has(o))) await this.dropOwner(uid, owner);
  }

  private async dropOwner(uid: string, owner: string): Promise<void> {
    const node = this.nodes.get(uid);
    const registry = node && this.registry(node);
    if (!node || !registry) return;
    await mutate(registry, node.namespace, node.name, (object) => {
      const refs: { uid: string }[] = object.metadata.ownerReferences ?? [];
      if (!refs.some((ref) => ref.uid === owner)) return false;
      object.metadata.ownerReferences = refs.filter((ref) => ref.uid !== owner);
      if (object.metadata.ownerReferences.length === 0) delete object.metadata.ownerReferences;
      return true;
    });
  }

  private async dropFinalizer(node: Node, finalizer: string): Promise<void> {
    const registry = this.registry(node);
    if (registry) await mutate(registry, node.namespace, node.name, (object) => removeFinalizer(object, finalizer));
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
