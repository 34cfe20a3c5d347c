import { Etcd3, type IKeyValue, type Lease as EtcdLease, type Watcher } from 'etcd3';
import { decodeContinue, encodeContinue, keyAfter } from '../page-position.js';
import { campaign } from '../election.js';
import { alreadyExists, conflict, isStoreError, notFound, StoreError } from '../errors.js';
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

export interface EtcdStoreOptions {
  /** `http://host:port` of each etcd member. */
  endpoints: string[];
  /** Every key is stored under this prefix, so several stores can share one etcd (default `/paddock`). */
  prefix?: string;
  /** New events a watch may leave untaken before it is closed (default DEFAULT_MAX_PENDING_WATCH_EVENTS). */
  maxPendingWatchEvents?: number;
  /** TLS to `https://` endpoints: the CA that signed etcd's serving certificate, and a client certificate when etcd asks for one. */
  tls?: EtcdTls;
}

/** PEM files' contents, as kube-apiserver's `--etcd-cafile`, `--etcd-certfile` and `--etcd-keyfile` name them. */
export interface EtcdTls {
  /** Without it, the system's roots. */
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/**
 * The store on etcd 3.4 through `etcd3`: keys under a prefix, etcd's revision as the
 * resourceVersion, conditional writes as transactions on mod_revision, watches with previous
 * values, and etcd leases (kept alive by the client) for leader election.
 */
export class EtcdStore implements Store {
  private readonly client: Etcd3;
  private readonly prefix: string;
  private readonly maxPendingWatchEvents: number | undefined;
  private readonly watches = new Set<WatchQueue>();
  private readonly cancellations = new Set<Promise<unknown>>();
  private closed = false;

  constructor(options: EtcdStoreOptions) {
    if (options.endpoints.length === 0) throw new Error('etcd store needs at least one endpoint');
    this.prefix = (options.prefix ?? '/paddock').replace(/\/+$/, '');
    this.maxPendingWatchEvents = options.maxPendingWatchEvents;
    if (this.prefix !== '') validateKey(this.prefix, 'prefix');
    // gRPC refuses responses over 4 MiB by default; a list of a few thousand objects is more.
    // kube-apiserver lifts the limit for the same reason.
    const tls = options.tls;
    this.client = new Etcd3({
      hosts: options.endpoints,
      dialTimeout: 3000,
      grpcOptions: { 'grpc.max_receive_message_length': -1 },
      // etcd3 types the CA as required; gRPC's createSsl takes none as the system's roots.
      ...(tls ? { credentials: { rootCertificate: tls.ca as Buffer, privateKey: tls.key, certChain: tls.cert } } : {}),
    });
  }

  async currentRevision(): Promise<number> {
    const res = await this.call(() => this.client.kv.range({ key: this.raw('/'), count_only: true }));
    return Number(res.header.revision);
  }

  async get(key: string): Promise<KeyValue | null> {
    validateKey(key);
    const res = await this.call(() => this.client.kv.range({ key: this.raw(key) }));
    return res.kvs[0] ? this.toKeyValue(res.kvs[0]) : null;
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    validateKey(prefix, 'prefix');
    const limit = options.limit ?? 0;
    validateRevision(limit, 'limit');
    let revision = 0;
    let start = prefix;
    if (options.continue) {
      const position = decodeContinue(options.continue, prefix);
      revision = position.revision;
      start = position.startKey;
    } else if (options.revision) {
      validateRevision(options.revision, 'revision');
      revision = options.revision;
    }
    const res = await this.call(() =>
      this.client.kv.range({ key: this.raw(start), range_end: prefixEnd(this.raw(prefix)), limit, revision }),
    );
    const items = res.kvs.map((kv) => this.toKeyValue(kv));
    const readAt = revision || Number(res.header.revision);
    const result: ListResult = { items, revision: readAt };
    if (res.more && items.length > 0) {
      result.continue = encodeContinue({ revision: readAt, startKey: keyAfter(items[items.length - 1].key), prefix });
    }
    return result;
  }

  async create(key: string, value: string, options: CreateOptions = {}): Promise<number> {
    validateKey(key);
    validateValue(value);
    const raw = this.raw(key);
    const lease = options.lease ? etcdLeaseId(options.lease) : undefined;
    const res = await this.call(() =>
      this.client.kv.txn({
        compare: [{ key: raw, target: 'Create', result: 'Equal', create_revision: 0 }],
        success: [{ request_put: { key: raw, value: Buffer.from(value), ...(lease ? { lease } : {}) } }],
      }),
    );
    if (!res.succeeded) throw alreadyExists(key);
    return Number(res.header.revision);
  }

  async update(key: string, value: string, expectedRevision?: number): Promise<number> {
    validateKey(key);
    validateValue(value);
    const res = await this.conditional(key, expectedRevision, {
      request_put: { key: this.raw(key), value: Buffer.from(value), ignore_lease: true },
    });
    return Number(res.header.revision);
  }

  async delete(key: string, expectedRevision?: number): Promise<{ revision: number; value: string }> {
    validateKey(key);
    const res = await this.conditional(key, expectedRevision, {
      request_delete_range: { key: this.raw(key), prev_kv: true },
    });
    const previous = res.responses[0]?.response_delete_range.prev_kvs[0];
    if (!previous) throw notFound(key);
    return { revision: Number(res.header.revision), value: previous.value.toString('utf8') };
  }

  async watch(prefix: string, afterRevision?: number): Promise<Watch> {
    validateKey(prefix, 'prefix');
    if (afterRevision !== undefined) validateRevision(afterRevision, 'revision');
    if (this.closed) throw closedError();
    if (afterRevision !== undefined) await this.checkNotCompacted(afterRevision);
    const queue = new WatchQueue(() => {
      this.watches.delete(queue);
      this.cancelling(watcher);
    }, this.maxPendingWatchEvents);
    let watcher: Watcher | undefined = undefined;
    const builder = this.client.watch().prefix(this.raw(prefix)).withPreviousKV();
    if (afterRevision !== undefined) builder.startRevision(String(afterRevision + 1));
    const pending = builder.watcher();
    // etcd's revision when the watch was created: the events up to it are the replayed history.
    let createdAt = Infinity;
    pending.once('connected', (res: { header: { revision: string } }) => (createdAt = Number(res.header.revision)));
    const enqueue = (event: WatchEvent) => (event.revision <= createdAt ? queue.replay([event]) : queue.push(event));
    pending.on('data', (res) => {
      for (const event of res.events) {
        const kv = this.toKeyValue(event.kv);
        const prevValue = event.prev_kv ? event.prev_kv.value.toString('utf8') : undefined;
        if (event.type === 'Delete') {
          enqueue({
            type: 'delete',
            key: kv.key,
            revision: kv.modRevision,
            value: prevValue ?? '',
            ...(prevValue !== undefined ? { prevValue } : {}),
          });
        } else if (event.kv.version === '1') {
          enqueue({ type: 'create', key: kv.key, revision: kv.modRevision, value: kv.value });
        } else {
          enqueue({
            type: 'update',
            key: kv.key,
            revision: kv.modRevision,
            value: kv.value,
            ...(prevValue !== undefined ? { prevValue } : {}),
          });
        }
      }
    });
    const connected = new Promise<void>((resolve, reject) => {
      pending.once('connected', () => resolve());
      pending.on('error', (err: Error) => {
        const mapped = mapWatchError(err, afterRevision);
        reject(mapped);
        queue.fail(mapped);
      });
    });
    try {
      await connected;
    } catch (err) {
      this.cancelling(pending);
      throw err;
    }
    watcher = pending;
    this.watches.add(queue);
    return queue;
  }

  /**
   * etcd accepts a watch from a compacted revision and cancels it a moment later; a read at the
   * watch's first revision fails exactly when that watch would, so the caller gets Expired at once.
   */
  private async checkNotCompacted(afterRevision: number): Promise<void> {
    try {
      await this.call(() =>
        this.client.kv.range({ key: this.raw('/'), revision: afterRevision + 1, count_only: true }),
      );
    } catch (err) {
      if (isStoreError(err, 'TooLargeRevision')) return;
      throw err;
    }
  }

  async compact(revision: number): Promise<void> {
    validateRevision(revision, 'revision');
    await this.call(() => this.client.kv.compact({ revision, physical: true }));
  }

  async grantLease(ttlSeconds: number): Promise<Lease> {
    validateTtl(ttlSeconds);
    const lease = this.client.lease(ttlSeconds);
    const id = await this.call(() => lease.grant());
    return new EtcdStoreLease(lease, id, ttlSeconds);
  }

  elect(name: string, ttlSeconds: number, options?: ElectOptions): Promise<Leadership> {
    return campaign(this, name, ttlSeconds, options);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const queue of this.watches) queue.close();
    // A watcher still cancelling when the client closes is retried by etcd3 forever, on timers
    // that keep the process alive: let every cancellation finish first.
    await Promise.all(this.cancellations);
    this.client.close();
  }

  private cancelling(watcher: Watcher | undefined): void {
    if (!watcher) return;
    const cancellation: Promise<void> = watcher
      .cancel()
      .catch(() => undefined)
      .then(() => void this.cancellations.delete(cancellation));
    this.cancellations.add(cancellation);
  }

  /**
   * A put or delete that applies only when the key exists (at `expectedRevision`, if given).
   * Puts carry `ignore_lease` so an update keeps the key's lease, as the embedded store does.
   */
  private async conditional(key: string, expectedRevision: number | undefined, op: object) {
    if (expectedRevision !== undefined) validateRevision(expectedRevision, 'expected revision');
    const raw = this.raw(key);
    const res = await this.call(() =>
      this.client.kv.txn({
        compare: [
          expectedRevision === undefined
            ? { key: raw, target: 'Create', result: 'Greater', create_revision: 0 }
            : { key: raw, target: 'Mod', result: 'Equal', mod_revision: expectedRevision },
        ],
        success: [op],
        failure: [{ request_range: { key: raw } }],
      }),
    );
    if (!res.succeeded) {
      const current = res.responses[0]?.response_range.kvs[0];
      if (!current) throw notFound(key);
      throw conflict(key, expectedRevision!, Number(current.mod_revision));
    }
    return res;
  }

  private raw(key: string): Buffer {
    return Buffer.from(this.prefix + key);
  }

  private toKeyValue(kv: IKeyValue): KeyValue {
    return {
      key: kv.key.toString('utf8').slice(this.prefix.length),
      value: kv.value.toString('utf8'),
      createRevision: Number(kv.create_revision),
      modRevision: Number(kv.mod_revision),
    };
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw closedError();
    try {
      return await fn();
    } catch (err) {
      throw mapError(err as Error);
    }
  }
}

class EtcdStoreLease implements Lease {
  readonly id: string;
  private readonly controller = new AbortController();

  constructor(
    readonly lease: EtcdLease,
    readonly etcdId: string,
    readonly ttlSeconds: number,
  ) {
    this.id = BigInt(etcdId).toString(16).padStart(16, '0');
    lease.on('lost', (err) =>
      this.controller.abort(new StoreError('Unavailable', `lease ${this.id} lost: ${err.message}`)),
    );
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  async revoke(): Promise<void> {
    if (!this.lease.revoked()) await this.lease.revoke().catch((err: Error) => Promise.reject(mapError(err)));
    if (!this.controller.signal.aborted) this.controller.abort(new Error('lease revoked'));
  }

  release(): void {
    this.lease.release();
  }
}

function etcdLeaseId(lease: Lease): string {
  if (!(lease instanceof EtcdStoreLease)) throw new StoreError('Invalid', 'lease was not granted by this etcd store');
  return lease.etcdId;
}

/** The first key after every key that starts with `prefix`, as etcd's `clientv3.GetPrefixRangeEnd`. */
function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

function mapError(err: Error): Error {
  if (err instanceof StoreError) return err;
  const message = err.message ?? '';
  if (message.includes('required revision has been compacted'))
    return new StoreError('Expired', 'the requested revision has been compacted', { cause: err });
  if (message.includes('required revision is a future revision'))
    return new StoreError('TooLargeRevision', 'the requested revision is newer than the current revision', {
      cause: err,
    });
  if (message.includes('requested lease not found'))
    return new StoreError('NotFound', 'lease not found: it expired or was revoked', { cause: err });
  return new StoreError('Unavailable', `etcd is unavailable: ${message}`, { cause: err });
}

/** etcd cancels a watch from a compacted revision with an empty "Watcher canceled" reason. */
function mapWatchError(err: Error, afterRevision: number | undefined): StoreError {
  if (/Watcher canceled/.test(err.message) && afterRevision !== undefined) {
    return new StoreError('Expired', `revision ${afterRevision} has been compacted`, { cause: err });
  }
  return mapError(err) as StoreError;
}

function closedError(): StoreError {
  return new StoreError('Unavailable', 'the store is closed');
}
