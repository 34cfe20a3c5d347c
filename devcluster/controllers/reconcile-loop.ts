import { parseRegistryKey, type ApiObject } from '../../apiserver/registry/object-store.js';
import { NAMESPACE_TERMINATING_CAUSE } from '../../apiserver/registry/generic-registry.js';
import { reportFault } from '../../apiserver/process-faults.js';
import { ApiError } from '../../apiserver/status.js';
import type { Store } from '../../store/index.js';
import { WatchLoop } from '../../store/watch-loop.js';

/**
 * A reconcile that could not do its work for a reason it has reported itself (a Warning event):
 * it is run again after `afterMs`, and it is no fault of the process.
 */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly afterMs: number,
  ) {
    super(message);
  }
}

/**
 * What one watched prefix tells the controller: the keys to reconcile, `<namespace>/<name>` of
 * an object (`keyOf`) or any other string the controller's reconcile understands.
 */
export interface WatchedPrefix {
  prefix: string;
  /**
   * Whether a change in `namespace` can concern the controller at all, asked before the object is
   * parsed: a pod in a namespace without a ReplicaSet costs a ReplicaSet controller nothing.
   */
  inNamespace?(namespace: string): boolean;
  /** Only objects of this name concern the controller (also asked before parsing). */
  named?: string;
  keysOf(object: ApiObject, deleted: boolean): string[];
  /** Whether an update also concerns the keys of the object as it was (an owner it has left); unless false. */
  withPrevious?: boolean;
}

/**
 * kube-controller-manager's informer-and-workqueue shape for the simulated controllers: watches
 * over store prefixes turn changes into keys, a key waiting is queued once however many changes
 * name it, and one worker reconciles keys in order (so a controller never races itself). A
 * reconcile may ask to be run again after a delay it computes (minReadySeconds, a Job's deadline,
 * a CronJob's next schedule). What a failure means is decided here, once for every controller: an
 * object gone (NotFound) is done, a conflict is run again at once, a terminating namespace's work
 * is dropped, and anything else is reported as a fault and run again. Reads go to
 * the store itself, which is always current, so kube's "expectations" are not needed.
 */
export class ReconcileLoop {
  private readonly loops: WatchLoop[];
  private readonly waiting = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private working: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    store: Store,
    private readonly name: string,
    watched: WatchedPrefix[],
    /** Resolves to a delay in ms to be run again after, or nothing. */
    private readonly reconcile: (key: string) => Promise<number | void>,
  ) {
    this.loops = watched.map(
      (w) =>
        new WatchLoop(
          store,
          w.prefix,
          {
            onList: (items) =>
              items
                .filter((kv) => concerns(w, kv.key))
                .forEach((kv) => this.enqueueAll(w.keysOf(JSON.parse(kv.value) as ApiObject, false))),
            onEvent: (event) => {
              if (!concerns(w, event.key)) return;
              this.enqueueAll(w.keysOf(JSON.parse(event.value) as ApiObject, event.type === 'delete'));
              if (event.prevValue && event.type === 'update' && w.withPrevious !== false)
                this.enqueueAll(w.keysOf(JSON.parse(event.prevValue) as ApiObject, false));
            },
          },
          name,
        ),
    );
  }

  async start(): Promise<void> {
    for (const loop of this.loops) await loop.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.all(this.loops.map((loop) => loop.stop()));
    await this.working;
  }

  enqueue(key: string): void {
    if (this.stopped || this.waiting.has(key)) return;
    this.waiting.add(key);
    this.working = this.working.then(() => this.run(key));
  }

  private enqueueAll(keys: string[]): void {
    keys.forEach((key) => this.enqueue(key));
  }

  private async run(key: string): Promise<void> {
    this.waiting.delete(key);
    if (this.stopped) return;
    let again: number | void;
    try {
      again = await this.reconcile(key);
    } catch (err) {
      if (this.stopped) return;
      // Nothing can be created in a terminating namespace, and its owners go with it: drop it, as kube does.
      if (err instanceof ApiError && err.status.details?.causes?.some((c) => c.reason === NAMESPACE_TERMINATING_CAUSE))
        return;
      // NotFound: what the reconcile read or wrote was deleted meanwhile. Gone is done, as for
      // kube's controllers; if its owner is still there, the deletion's watch event queues it again.
      if (err instanceof ApiError && err.code === 404) return;
      // A conflict only means another writer was first: look again at once, quietly.
      if (err instanceof ApiError && err.code === 409) again = 20;
      else if (err instanceof RetryLater) again = err.afterMs;
      else {
        reportFault('detached', `${this.name}: ${key}`, err);
        again = 500;
      }
    }
    if (again !== undefined && !this.stopped) this.enqueueAfter(key, again);
  }

  private enqueueAfter(key: string, ms: number): void {
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(
        () => {
          this.timers.delete(key);
          this.enqueue(key);
        },
        // Node fires a longer timeout (a yearly schedule) at once.
        Math.min(Math.max(ms, 0), MAX_TIMEOUT_MS),
      ).unref(),
    );
  }
}

const MAX_TIMEOUT_MS = 2 ** 31 - 1;

function concerns(watched: WatchedPrefix, key: string): boolean {
  if (!watched.inNamespace && watched.named === undefined) return true;
  const parsed = parseRegistryKey(key);
  if (watched.named !== undefined && parsed?.name !== watched.named) return false;
  return !watched.inNamespace || watched.inNamespace(parsed?.namespace ?? '');
}

/** `<namespace>/<name>` of an object, the key a ReconcileLoop works on. */
export function keyOf(object: ApiObject): string {
  return joinKey(object.metadata.namespace ?? '', object.metadata.name);
}

export function joinKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
