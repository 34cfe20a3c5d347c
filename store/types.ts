/**
 * The versioned key-value store everything in Paddock sits on.
 *
 * Vocabulary (etcd's, because a Kubernetes resourceVersion *is* the store revision):
 * - a **key** is an absolute path such as `/registry/pods/default/web`; a **prefix** selects every
 *   key that starts with it;
 * - the **revision** is one counter for the whole store: every write (create, update, delete,
 *   lease expiry) advances it by one, and every key-value remembers the revision that created it
 *   (`createRevision`) and the one that last changed it (`modRevision`);
 * - **history** is the list of writes kept for watches and consistent reads at older revisions;
 *   **compaction** drops history older than a revision, after which reading or watching from
 *   before it fails with `Expired` (HTTP 410 Gone);
 * - a **lease** is a time-to-live that keys can be attached to: when the lease's holder stops
 *   renewing it (the process died), the lease expires and its keys are deleted. Leader election is
 *   built on leases.
 */

export interface KeyValue {
  key: string;
  value: string;
  /** Revision of the write that created this key (since its last deletion). */
  createRevision: number;
  /** Revision of the write that produced this value: the resourceVersion. */
  modRevision: number;
}

export interface ListOptions {
  /** At most this many items; 0 or absent means all. */
  limit?: number;
  /** Token from a previous page: the next page is read at that page's revision. */
  continue?: string;
  /** Read at this revision instead of the current one (Expired when compacted). */
  revision?: number;
}

export interface ListResult {
  items: KeyValue[];
  /** The revision the whole list (every page of it) was read at. */
  revision: number;
  /** Present when more items follow; pass it back as `continue`. */
  continue?: string;
}

export type WatchEventType = 'create' | 'update' | 'delete';

export interface WatchEvent {
  type: WatchEventType;
  key: string;
  /** The revision of this write. */
  revision: number;
  /** The value after the write; for a delete, the last value the key had. */
  value: string;
  /** The value before the write, for updates and deletes. */
  prevValue?: string;
}

/** New events a watch's consumer may leave untaken before its watch is closed (store/watch-queue.ts). */
export const DEFAULT_MAX_PENDING_WATCH_EVENTS = 10_000;

/**
 * The events of one watch, in revision order, with neither gaps nor duplicates. Iterate it with
 * `for await`; the iteration ends when `close()` is called and throws a StoreError when the watch
 * breaks (`Expired` if history it needed was compacted, `Unavailable` if the backend went away).
 */
export interface Watch extends AsyncIterable<WatchEvent> {
  close(): void;
}

export interface Lease {
  readonly id: string;
  readonly ttlSeconds: number;
  /** Aborted once the lease is gone: expired, revoked, or no longer renewable. */
  readonly signal: AbortSignal;
  /** End the lease now; its keys are deleted at once. */
  revoke(): Promise<void>;
  /** Stop renewing without revoking, so the lease expires after its TTL as if its holder died. */
  release(): void;
}

export interface CreateOptions {
  /** Attach the key to this lease: it is deleted when the lease ends. */
  lease?: Lease;
}

/** Held by the one leader of an election, until `signal` aborts or it resigns. */
export interface Leadership {
  readonly name: string;
  readonly identity: string;
  /** Aborted when leadership is lost (the lease expired or the leader's key was removed). */
  readonly signal: AbortSignal;
  /** Give up leadership at once so another candidate takes over without waiting for the TTL. */
  resign(): Promise<void>;
  /** Stop renewing, as a leader that died would: leadership passes on after the TTL. */
  release(): void;
}

export interface ElectOptions {
  /** Who this candidate is, for operators; defaults to host name and PID. */
  identity?: string;
  /** Stop campaigning (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
}

export interface Store {
  /** The current revision: the revision of the latest write. */
  currentRevision(): Promise<number>;
  get(key: string): Promise<KeyValue | null>;
  /** Keys with `prefix`, in key order, all read at one revision (see ListOptions). */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  /** Returns the new revision; `AlreadyExists` when the key is present. */
  create(key: string, value: string, options?: CreateOptions): Promise<number>;
  /**
   * Returns the new revision. With `expectedRevision`, `Conflict` unless the key's modRevision is
   * exactly that; `NotFound` when the key is absent.
   */
  update(key: string, value: string, expectedRevision?: number): Promise<number>;
  /** Returns the revision of the delete and the last value; `NotFound`, or `Conflict` as update. */
  delete(key: string, expectedRevision?: number): Promise<{ revision: number; value: string }>;
  /**
   * Events for keys with `prefix` whose revision is greater than `afterRevision` (as a Kubernetes
   * watch from resourceVersion N starts after N): history first, then live. Absent: from now.
   * Rejects with `Expired` when `afterRevision` is older than the compacted history.
   */
  watch(prefix: string, afterRevision?: number): Promise<Watch>;
  /** Drop history up to `revision`; reads and watches from before it then fail with `Expired`. */
  compact(revision: number): Promise<void>;
  grantLease(ttlSeconds: number): Promise<Lease>;
  /** Campaign in election `name`; resolves when this candidate is the one leader. */
  elect(name: string, ttlSeconds: number, options?: ElectOptions): Promise<Leadership>;
  close(): Promise<void>;
}
