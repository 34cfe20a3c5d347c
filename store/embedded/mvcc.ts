import btree from 'sorted-btree';
import { alreadyExists, conflict, expired, notFound, tooLarge } from '../errors.js';
import type { KeyValue, WatchEvent } from '../types.js';

// sorted-btree is CommonJS: an ESM default import is its module.exports, the class is `.default`.
const BTree = btree.default;

/** One value of a key; `value: null` is a tombstone (the key was deleted at `modRevision`). */
interface Version {
  modRevision: number;
  createRevision: number;
  value: string | null;
  lease?: string;
}

/** A write, as the log records it and as replay applies it. */
export type Mutation = { op: 'put'; key: string; value: string; lease?: string } | { op: 'del'; key: string };

/**
 * Multi-version concurrency control in memory, with no I/O: every key keeps its versions in
 * revision order, so any revision inside the history window can be read ("list at revision R"),
 * and `history` holds every write after the compacted revision for watches to replay.
 * Preconditions are checked against the newest state; the caller decides which revision readers
 * may see (the embedded store shows only writes that are durable).
 */
export class Mvcc {
  /** Revision of the newest write. */
  revision = 0;
  /** History at or before this revision is gone; reading at an older revision is Expired. */
  compacted = 0;
  /** Every key's versions in key order, for ranges. */
  private readonly keys = new BTree<string, Version[]>();
  /**
   * The same arrays by key, for point reads: a tree lookup compares long keys that share their
   * prefix about 18 times at 200,000 keys (2.6% of a devcluster's time creating tenants).
   */
  private readonly byKey = new Map<string, Version[]>();
  /** Writes after `compacted`, oldest first. */
  private history: WatchEvent[] = [];

  /** Start after a snapshot: state at `revision`, no history before it. */
  restore(revision: number, items: Iterable<KeyValue & { lease?: string }>): void {
    this.revision = revision;
    this.compacted = revision;
    for (const kv of items) {
      this.insert(kv.key, [
        { modRevision: kv.modRevision, createRevision: kv.createRevision, value: kv.value, lease: kv.lease },
      ]);
    }
  }

  get(key: string, atRevision: number): KeyValue | null {
    this.checkReadable(atRevision);
    const versions = this.byKey.get(key);
    return versions ? visible(key, versions, atRevision) : null;
  }

  /** Live keys with `prefix`, from `startKey` on, in key order, as they were at `atRevision`. */
  range(prefix: string, startKey: string, limit: number, atRevision: number): { items: KeyValue[]; more: boolean } {
    this.checkReadable(atRevision);
    const items: KeyValue[] = [];
    let more = false;
    this.keys.forRange(startKey, prefixEnd(prefix), false, (key, versions) => {
      const kv = visible(key, versions, atRevision);
      if (!kv) return;
      if (limit > 0 && items.length === limit) {
        more = true;
        return { break: true };
      }
      items.push(kv);
    });
    return { items, more };
  }

  /** Keys whose newest value is attached to a lease (for cleanup of leases that ended). */
  *leasedKeys(): Iterable<{ key: string; lease: string }> {
    for (const [key, versions] of this.keys.entries()) {
      const latest = versions[versions.length - 1];
      if (latest.value !== null && latest.lease) yield { key, lease: latest.lease };
    }
  }

  latest(key: string): KeyValue | null {
    const versions = this.byKey.get(key);
    return versions ? visible(key, versions, this.revision) : null;
  }

  checkCreate(key: string): void {
    if (this.latest(key)) throw alreadyExists(key);
  }

  checkExisting(key: string, expectedRevision: number | undefined): KeyValue {
    const current = this.latest(key);
    if (!current) throw notFound(key);
    if (expectedRevision !== undefined && current.modRevision !== expectedRevision) {
      throw conflict(key, expectedRevision, current.modRevision);
    }
    return current;
  }

  leaseOf(key: string): string | undefined {
    const versions = this.byKey.get(key);
    return versions?.[versions.length - 1]?.lease;
  }

  /** Apply one write at the next revision and return its event. */
  apply(mutation: Mutation): WatchEvent {
    const revision = this.revision + 1;
    const versions = this.byKey.get(mutation.key);
    const previous = versions?.[versions.length - 1];
    const prevValue = previous?.value ?? undefined;
    let event: WatchEvent;
    if (mutation.op === 'put') {
      const createRevision = prevValue === undefined ? revision : previous!.createRevision;
      const version: Version = { modRevision: revision, createRevision, value: mutation.value };
      if (mutation.lease) version.lease = mutation.lease;
      if (versions) versions.push(version);
      else this.insert(mutation.key, [version]);
      event =
        prevValue === undefined
          ? { type: 'create', key: mutation.key, revision, value: mutation.value }
          : { type: 'update', key: mutation.key, revision, value: mutation.value, prevValue };
    } else {
      if (prevValue === undefined || !versions) throw notFound(mutation.key);
      versions.push({ modRevision: revision, createRevision: 0, value: null });
      event = { type: 'delete', key: mutation.key, revision, value: prevValue, prevValue };
    }
    this.revision = revision;
    this.history.push(event);
    return event;
  }

  /** Events after `afterRevision` for keys with `prefix`, up to `untilRevision`. */
  eventsBetween(prefix: string, afterRevision: number, untilRevision: number): WatchEvent[] {
    if (afterRevision < this.compacted) throw expired(afterRevision, this.compacted);
    const out: WatchEvent[] = [];
    for (let i = this.historyIndexAfter(afterRevision); i < this.history.length; i++) {
      const event = this.history[i];
      if (event.revision > untilRevision) break;
      if (event.key.startsWith(prefix)) out.push(event);
    }
    return out;
  }

  /** Drop history at or before `revision`, keeping each key's value as of `revision`. */
  compact(revision: number): void {
    if (revision <= this.compacted) return;
    if (revision > this.revision) throw tooLarge(revision, this.revision);
    const end = this.historyIndexAfter(revision);
    for (let i = 0; i < end; i++) {
      const key = this.history[i].key;
      const versions = this.byKey.get(key);
      if (!versions) continue;
      let keep = versions.length - 1;
      while (keep > 0 && versions[keep].modRevision > revision) keep--;
      if (keep > 0) {
        // Shortening the length, unlike a splice, gives back the room pushes made (17 versions, 130 bytes a key).
        versions.copyWithin(0, keep);
        versions.length -= keep;
      }
      if (versions.length === 1 && versions[0].value === null) {
        this.keys.delete(key);
        this.byKey.delete(key);
      }
    }
    // Dropped at once: an event left in the array would keep its values (superseded ones too) alive.
    this.history = this.history.slice(end);
    this.compacted = revision;
  }

  /** Every live key at `atRevision`, for snapshots. */
  *snapshot(atRevision: number): Iterable<KeyValue & { lease?: string }> {
    for (const [key, versions] of this.keys.entries()) {
      const kv = visible(key, versions, atRevision);
      if (!kv) continue;
      const lease = versionAt(versions, atRevision)!.lease;
      yield lease ? { ...kv, lease } : kv;
    }
  }

  private insert(key: string, versions: Version[]): void {
    this.keys.set(key, versions);
    this.byKey.set(key, versions);
  }

  private checkReadable(atRevision: number): void {
    if (atRevision < this.compacted) throw expired(atRevision, this.compacted);
    if (atRevision > this.revision) throw tooLarge(atRevision, this.revision);
  }

  /** Index of the first history event with a revision greater than `revision`. */
  private historyIndexAfter(revision: number): number {
    let lo = 0;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.history[mid].revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function versionAt(versions: Version[], atRevision: number): Version | undefined {
  for (let i = versions.length - 1; i >= 0; i--) {
    if (versions[i].modRevision <= atRevision) return versions[i];
  }
  return undefined;
}

function visible(key: string, versions: Version[], atRevision: number): KeyValue | null {
  const version = versionAt(versions, atRevision);
  if (!version || version.value === null) return null;
  return { key, value: version.value, createRevision: version.createRevision, modRevision: version.modRevision };
}

/** Past every key with `prefix` (keys are printable ASCII, so U+FFFF sorts after them all). */
function prefixEnd(prefix: string): string {
  return prefix + '\uffff';
}
