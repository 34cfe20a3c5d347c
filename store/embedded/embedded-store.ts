import { promises as fs } from 'node:fs';
import { decodeContinue, encodeContinue, keyAfter } from '../page-position.js';
import { campaign } from '../election.js';
import { StoreError, tooLarge } from '../errors.js';
import type {
  CreateOptions,
  ElectOptions,
  KeyValue,
  Leadership,
  Lease,
  ListOptions,
  ListResult,
  Store,
  Watch,
  WatchEvent,
} from '../types.js';
import { validateKey, validateRevision, validateTtl, validateValue } from '../validate.js';
import { WatchQueue } from '../watch-queue.js';
import { privateDataDir } from '../private-files.js';
import { lockDataDir } from './data-dir-lock.js';
import { EmbeddedLease } from './leases.js';
import { Mvcc, type Mutation } from './mvcc.js';
import { readSnapshot, writeSnapshot } from './snapshot.js';
import { listLogs, readLog, toMutation, toRecord, WriteAheadLog } from './wal.js';

export interface EmbeddedStoreOptions {
  /** Where the log and snapshots live; absent: memory only, nothing survives the process. */
  dataDir?: string;
  /** `fdatasync` each batch of writes before acknowledging it (default true). */
  fsync?: boolean;
  /** Revisions of history kept for watches and reads at older revisions (default DEFAULT_HISTORY_WINDOW). */
  historyWindow?: number;
  /** New events a watch may leave untaken before it is closed (default DEFAULT_MAX_PENDING_WATCH_EVENTS). */
  maxPendingWatchEvents?: number;
  /** Take a snapshot and start a new log once the log has grown this much (default 64 MiB). */
  snapshotEveryBytes?: number;
}

/**
 * A live watch needs no history (each write is handed to it once durable); history serves a watch
 * from an older revision and a read at one (a list's later pages), and past it a client is Expired
 * and relists, as from kube's watch cache and compacted etcd. What it costs is the values no longer
 * current: 5,000 revisions are a few MiB whatever the number of keys (docs/store.md, "History").
 */
export const DEFAULT_HISTORY_WINDOW = 5000;

interface Watcher {
  prefix: string;
  after: number;
  queue: WatchQueue;
}

/**
 * The single-node store: MVCC in memory, persisted as an append-only log plus snapshots.
 *
 * Durability: a write is acknowledged (its promise resolves) only after its log record is written
 * and, with `fsync` (the default), `fdatasync`ed; readers and watchers see a write only from then
 * on. So every acknowledged write survives a crash of the process (SIGKILL) and, with fsync, of
 * the machine. A record cut short by a crash was never acknowledged and is dropped on open.
 */
export class EmbeddedStore implements Store {
  private readonly mvcc = new Mvcc();
  /** Newest revision whose write is durable: what readers see. */
  private durable = 0;
  private readonly watchers = new Set<Watcher>();
  /** Per key, the write applied in memory whose log record is not yet durable. */
  private readonly inFlight = new Map<string, Promise<WatchEvent>>();
  private readonly leases = new Map<string, { lease: EmbeddedLease; keys: Set<string> }>();
  private wal: WriteAheadLog | undefined;
  private snapshotting: Promise<void> | undefined;
  private unlock: (() => Promise<void>) | undefined;
  private failure: StoreError | undefined;
  private readonly historyWindow: number;
  private readonly snapshotEveryBytes: number;
  private readonly fsync: boolean;

  private constructor(private readonly options: EmbeddedStoreOptions) {
    this.historyWindow = options.historyWindow ?? DEFAULT_HISTORY_WINDOW;
    this.snapshotEveryBytes = options.snapshotEveryBytes ?? 64 * 1024 * 1024;
    this.fsync = options.fsync ?? true;
    if (!Number.isInteger(this.historyWindow) || this.historyWindow < 1)
      throw new Error('historyWindow must be a positive integer');
  }

  static async open(options: EmbeddedStoreOptions = {}): Promise<EmbeddedStore> {
    const store = new EmbeddedStore(options);
    try {
      if (options.dataDir) await store.recover(options.dataDir);
      await store.deleteKeysOfEndedLeases();
    } catch (err) {
      await store.close().catch(() => undefined);
      throw err;
    }
    return store;
  }

  async currentRevision(): Promise<number> {
    this.checkUsable();
    return this.durable;
  }

  async get(key: string): Promise<KeyValue | null> {
    validateKey(key);
    this.checkUsable();
    return this.mvcc.get(key, this.durable);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    validateKey(prefix, 'prefix');
    const limit = options.limit ?? 0;
    validateRevision(limit, 'limit');
    this.checkUsable();
    let revision = this.durable;
    let start = prefix;
    if (options.continue) {
      const position = decodeContinue(options.continue, prefix);
      revision = position.revision;
      start = position.startKey;
    } else if (options.revision) {
      validateRevision(options.revision, 'revision');
      revision = options.revision;
    }
    if (revision > this.durable) throw tooLarge(revision, this.durable);
    const { items, more } = this.mvcc.range(prefix, start, limit, revision);
    const result: ListResult = { items, revision };
    if (more) result.continue = encodeContinue({ revision, startKey: keyAfter(items[items.length - 1].key), prefix });
    return result;
  }

  async create(key: string, value: string, options: CreateOptions = {}): Promise<number> {
    validateKey(key);
    validateValue(value);
    this.checkUsable();
    while (this.inFlight.has(key)) await this.settle(key);
    this.mvcc.checkCreate(key);
    const mutation: Mutation = { op: 'put', key, value };
    if (options.lease) {
      const entry = this.leases.get(options.lease.id);
      if (!entry) throw new StoreError('NotFound', `lease ${options.lease.id} not found: it expired or was revoked`);
      entry.keys.add(key);
      mutation.lease = options.lease.id;
    }
    return (await this.commit(mutation)).revision;
  }

  async update(key: string, value: string, expectedRevision?: number): Promise<number> {
    validateKey(key);
    validateValue(value);
    if (expectedRevision !== undefined) validateRevision(expectedRevision, 'expected revision');
    this.checkUsable();
    while (this.inFlight.has(key)) await this.settle(key);
    this.mvcc.checkExisting(key, expectedRevision);
    const lease = this.mvcc.leaseOf(key);
    return (await this.commit(lease ? { op: 'put', key, value, lease } : { op: 'put', key, value })).revision;
  }

  async delete(key: string, expectedRevision?: number): Promise<{ revision: number; value: string }> {
    validateKey(key);
    if (expectedRevision !== undefined) validateRevision(expectedRevision, 'expected revision');
    this.checkUsable();
    while (this.inFlight.has(key)) await this.settle(key);
    this.mvcc.checkExisting(key, expectedRevision);
    const event = await this.commit({ op: 'del', key });
    return { revision: event.revision, value: event.value };
  }

  async watch(prefix: string, afterRevision?: number): Promise<Watch> {
    validateKey(prefix, 'prefix');
    if (afterRevision !== undefined) validateRevision(afterRevision, 'revision');
    this.checkUsable();
    const after = afterRevision ?? this.durable;
    const backlog = this.mvcc.eventsBetween(prefix, Math.min(after, this.durable), this.durable);
    const watcher: Watcher = {
      prefix,
      after,
      queue: new WatchQueue(() => this.watchers.delete(watcher), this.options.maxPendingWatchEvents),
    };
    watcher.queue.replay(backlog.filter((event) => event.revision > after));
    this.watchers.add(watcher);
    return watcher.queue;
  }

  async compact(revision: number): Promise<void> {
    validateRevision(revision, 'revision');
    this.checkUsable();
    if (revision > this.durable) throw tooLarge(revision, this.durable);
    this.mvcc.compact(revision);
  }

  async grantLease(ttlSeconds: number): Promise<Lease> {
    validateTtl(ttlSeconds);
    this.checkUsable();
    const lease = new EmbeddedLease(ttlSeconds, (l, reason) => this.endLease(l, reason));
    this.leases.set(lease.id, { lease, keys: new Set() });
    return lease;
  }

  elect(name: string, ttlSeconds: number, options?: ElectOptions): Promise<Leadership> {
    return campaign(this, name, ttlSeconds, options);
  }

  async close(): Promise<void> {
    if (this.failure?.message === CLOSED) return;
    this.failure = new StoreError('Unavailable', CLOSED);
    for (const watcher of this.watchers) watcher.queue.close();
    for (const { lease } of this.leases.values()) lease.markEnded(CLOSED);
    this.leases.clear();
    await this.snapshotting?.catch(() => undefined);
    await this.wal?.close();
    await this.unlock?.();
  }

  private checkUsable(): void {
    if (this.failure) throw this.failure;
  }

  /**
   * Waits for the write of `key` in flight. Callers loop until none is, then check and commit
   * without an await between, so a write is checked against what readers can see: checked
   * against a newer version still in memory, a Conflict would send the writer back to read the
   * same durable version again, and a retrying writer (a patch) would spend its retries before
   * the log record of the write it lost to is even written.
   */
  private async settle(key: string): Promise<void> {
    await this.inFlight.get(key)?.catch(() => undefined);
    this.checkUsable();
  }

  private commit(mutation: Mutation): Promise<WatchEvent> {
    const committing = this.persist(mutation);
    this.inFlight.set(mutation.key, committing);
    const done = () => {
      if (this.inFlight.get(mutation.key) === committing) this.inFlight.delete(mutation.key);
    };
    committing.then(done, done);
    return committing;
  }

  /** Apply a checked write, make it durable, then show it to readers and watchers. */
  private async persist(mutation: Mutation): Promise<WatchEvent> {
    if (mutation.op === 'del') {
      const lease = this.mvcc.leaseOf(mutation.key);
      if (lease) this.leases.get(lease)?.keys.delete(mutation.key);
    }
    const event = this.mvcc.apply(mutation);
    if (this.wal) {
      try {
        await this.wal.append(toRecord(event.revision, mutation));
      } catch (err) {
        this.fail(err as Error);
        throw this.failure ?? err;
      }
    }
    this.advance(event.revision);
    return event;
  }

  private advance(revision: number): void {
    if (revision <= this.durable) return;
    const events = this.mvcc.eventsBetween('', this.durable, revision);
    this.durable = revision;
    for (const watcher of this.watchers) {
      for (const event of events) {
        if (event.revision > watcher.after && event.key.startsWith(watcher.prefix)) watcher.queue.push(event);
      }
    }
    if (this.durable - this.mvcc.compacted > this.historyWindow * 1.25)
      this.mvcc.compact(this.durable - this.historyWindow);
    if (this.wal && this.wal.bytes > this.snapshotEveryBytes && !this.snapshotting) {
      this.snapshotting = this.takeSnapshot().finally(() => (this.snapshotting = undefined));
    }
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = new StoreError('Unavailable', `embedded store stopped after a storage failure: ${err.message}`, {
      cause: err,
    });
    for (const watcher of this.watchers) watcher.queue.fail(this.failure);
  }

  private async endLease(lease: EmbeddedLease, reason: string): Promise<void> {
    const entry = this.leases.get(lease.id);
    this.leases.delete(lease.id);
    if (entry && !this.failure) {
      await Promise.all(
        [...entry.keys].filter((key) => this.mvcc.latest(key)).map((key) => this.commit({ op: 'del', key })),
      );
    }
    lease.markEnded(reason);
  }

  /** Leases do not outlive the process that held them (see leases.ts). */
  private async deleteKeysOfEndedLeases(): Promise<void> {
    const stale = [...this.mvcc.leasedKeys()].filter(({ lease }) => !this.leases.has(lease));
    await Promise.all(stale.map(({ key }) => this.commit({ op: 'del', key })));
  }

  private async recover(dir: string): Promise<void> {
    await privateDataDir(dir);
    this.unlock = await lockDataDir(dir);
    const snapshot = await readSnapshot(dir);
    if (snapshot) this.mvcc.restore(snapshot.revision, snapshot.items);
    const logs = await listLogs(dir);
    for (const [i, log] of logs.entries()) {
      for (const record of await readLog(log.file, i === logs.length - 1)) {
        if (record.r <= this.mvcc.revision) continue;
        if (record.r !== this.mvcc.revision + 1) {
          throw new Error(
            `write-ahead log ${log.file} jumps from revision ${this.mvcc.revision} to ${record.r}; refusing to start`,
          );
        }
        this.mvcc.apply(toMutation(record));
      }
    }
    this.durable = this.mvcc.revision;
    this.wal = await WriteAheadLog.create(dir, (logs[logs.length - 1]?.sequence ?? 0) + 1, this.fsync);
    if (logs.length > 0) await this.takeSnapshot();
  }

  /**
   * Start a new log, then write the state as of the last record of the old one to a snapshot;
   * once it is durable the old logs are deleted. Writes go on into the new log meanwhile.
   */
  private async takeSnapshot(): Promise<void> {
    const dir = this.options.dataDir!;
    const next = await WriteAheadLog.create(dir, this.wal!.sequence + 1, this.fsync);
    const previous = this.wal!;
    this.wal = next;
    const revision = this.mvcc.revision;
    const items = [...this.mvcc.snapshot(revision)];
    await previous.close();
    if (this.failure) return;
    await writeSnapshot(dir, revision, items);
    for (const log of await listLogs(dir)) {
      if (log.sequence < next.sequence) await fs.rm(log.file, { force: true });
    }
  }
}

const CLOSED = 'the store is closed';
