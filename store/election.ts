import { hostname } from 'node:os';
import { StoreError } from './errors.js';
import type { ElectOptions, KeyValue, Leadership, Store } from './types.js';

const ELECTION_NAME = /^[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?$/;

/**
 * Leader election over the store's own primitives, the same on every backend (etcd's
 * concurrency.Election algorithm): each candidate creates `/elections/<name>/<lease id>` attached
 * to its lease; the key with the lowest createRevision is the leader; every other candidate
 * waits for the deletion of the key just ahead of it (no thundering herd). A candidate that dies
 * stops renewing its lease, the lease expires after its TTL, its key is deleted and the next
 * candidate takes over.
 */
export async function campaign(
  store: Store,
  name: string,
  ttlSeconds: number,
  options: ElectOptions = {},
): Promise<Leadership> {
  if (!ELECTION_NAME.test(name)) {
    throw new StoreError('Invalid', `election name ${JSON.stringify(name)} must be a DNS label or subdomain`);
  }
  const identity = options.identity ?? `${hostname()}_${process.pid}`;
  const prefix = `/elections/${name}/`;
  const lease = await store.grantLease(ttlSeconds);
  const key = prefix + lease.id;
  const giveUp = options.signal ? AbortSignal.any([options.signal, lease.signal]) : lease.signal;
  try {
    await store.create(key, identity, { lease });
    const revision = await waitUntilFirst(store, prefix, key, giveUp);
    const lost = new AbortController();
    lease.signal.addEventListener('abort', () => lost.abort(lease.signal.reason), { once: true });
    // The key gone (deleted by hand, or its lease expired) or the watch failed: leadership is lost.
    waitForDeletion(store, key, revision, lost.signal).then(
      () => lost.abort(new Error(`election key ${key} was deleted`)),
      (err: unknown) => lost.abort(err),
    );
    return {
      name,
      identity,
      signal: lost.signal,
      resign: async () => {
        await lease.revoke();
        if (!lost.signal.aborted) lost.abort(new Error('resigned'));
      },
      release: () => lease.release(),
    };
  } catch (err) {
    await lease.revoke().catch(() => undefined);
    throw giveUp.aborted && !(err instanceof StoreError) ? giveUp.reason : err;
  }
}

/** Resolves with a revision at which `key` is the oldest candidate. */
async function waitUntilFirst(store: Store, prefix: string, key: string, signal: AbortSignal): Promise<number> {
  for (;;) {
    signal.throwIfAborted();
    const { items, revision } = await store.list(prefix);
    const mine = items.find((kv) => kv.key === key);
    if (!mine)
      throw new StoreError('Unavailable', `election key ${key} disappeared while campaigning: the lease ended`);
    const ahead = items.filter((kv) => kv.createRevision < mine.createRevision);
    if (ahead.length === 0) return revision;
    const predecessor = ahead.reduce((a: KeyValue, b: KeyValue) => (b.createRevision > a.createRevision ? b : a));
    await waitForDeletion(store, predecessor.key, revision, signal);
  }
}

async function waitForDeletion(store: Store, key: string, afterRevision: number, signal: AbortSignal): Promise<void> {
  const watch = await store.watch(key, afterRevision);
  const stop = () => watch.close();
  signal.addEventListener('abort', stop, { once: true });
  try {
    // Aborted while the watch was being opened: no abort event will come to stop it.
    signal.throwIfAborted();
    for await (const event of watch) {
      if (event.key === key && event.type === 'delete') return;
    }
    signal.throwIfAborted();
  } finally {
    signal.removeEventListener('abort', stop);
    watch.close();
  }
}
