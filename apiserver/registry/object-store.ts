import { isStoreError, type KeyValue, type Store, type Watch, type WatchEvent } from '../../store/index.js';
import { alreadyExists, conflict, notFound, toApiError, type GroupResource } from '../status.js';

/** An API object as stored: JSON with `metadata`; resourceVersion is the store revision. */
export type ApiObject = Record<string, any> & { metadata: Record<string, any> };

export interface StoredObject {
  object: ApiObject;
  revision: number;
}

export interface ObjectListPage {
  objects: ApiObject[];
  revision: number;
  continue?: string;
}

export interface ObjectEvent {
  type: WatchEvent['type'];
  object: ApiObject;
  /** The object before this change (updates and deletes). */
  previous?: ApiObject;
  revision: number;
}

/**
 * Objects of one group-resource in the store, under kube-apiserver's key layout
 * `/registry/<group>/<resource>/[<namespace>/]<name>` (core group as `core`). The revision is
 * not kept inside the stored JSON: it is set as `metadata.resourceVersion` on the way out, as
 * kube-apiserver's etcd3 storage does.
 */
export class ObjectStore {
  private readonly root: string;

  constructor(
    private readonly store: Store,
    readonly gr: GroupResource,
    readonly namespaced: boolean,
  ) {
    this.root = `/registry/${gr.group || 'core'}/${gr.resource}/`;
  }

  /** Prefix of every object, or of one namespace's objects. */
  prefix(namespace?: string): string {
    return this.namespaced && namespace ? `${this.root}${namespace}/` : this.root;
  }

  async get(namespace: string, name: string): Promise<StoredObject> {
    const found = await this.find(namespace, name);
    if (!found) throw notFound(this.gr, name);
    return found;
  }

  /**
   * `get` without the NotFound error, for controllers that ask after objects that are mostly not
   * there yet: an Error captures its stack, which cost the devcluster more than the read itself.
   */
  async find(namespace: string, name: string): Promise<StoredObject | undefined> {
    const key = this.key(namespace, name);
    const kv = key ? await this.call(() => this.store.get(key), name) : null;
    return kv ? { object: decode(kv), revision: kv.modRevision } : undefined;
  }

  /** Objects in key order; `namePrefix` narrows to names starting with it (within a namespace). */
  async list(
    namespace: string,
    options: { limit?: number; continue?: string; revision?: number; namePrefix?: string },
  ): Promise<ObjectListPage> {
    const { namePrefix, ...page0 } = options;
    let prefix = this.prefix(namespace);
    if (namePrefix && (namespace || !this.namespaced) && /^[\x21-\x7e]+$/.test(namePrefix) && !namePrefix.includes('/'))
      prefix += namePrefix;
    const page = await this.call(() => this.store.list(prefix, page0), '');
    const result: ObjectListPage = { objects: page.items.map(decode), revision: page.revision };
    if (page.continue) result.continue = page.continue;
    return result;
  }

  async create(object: ApiObject): Promise<StoredObject> {
    const name = object.metadata.name as string;
    const key = this.key(object.metadata.namespace ?? '', name);
    if (!key) throw notFound(this.gr, name);
    const revision = await this.call(() => this.store.create(key, encode(object)), name);
    return { object: withRevision(object, revision), revision };
  }

  async update(object: ApiObject, expectedRevision: number): Promise<StoredObject> {
    const name = object.metadata.name as string;
    const key = this.key(object.metadata.namespace ?? '', name);
    if (!key) throw notFound(this.gr, name);
    const revision = await this.call(() => this.store.update(key, encode(object), expectedRevision), name);
    return { object: withRevision(object, revision), revision };
  }

  /** Deletes at `expectedRevision`; returns the last state, stamped with the delete's revision. */
  async delete(namespace: string, name: string, expectedRevision: number): Promise<StoredObject> {
    const key = this.key(namespace, name);
    if (!key) throw notFound(this.gr, name);
    const { revision, value } = await this.call(() => this.store.delete(key, expectedRevision), name);
    return { object: withRevision(JSON.parse(value) as ApiObject, revision), revision };
  }

  async watch(namespace: string, afterRevision: number | undefined): Promise<Watch> {
    return this.call(() => this.store.watch(this.prefix(namespace), afterRevision), '');
  }

  decodeEvent(event: WatchEvent): ObjectEvent {
    const object = withRevision(JSON.parse(event.value) as ApiObject, event.revision);
    const decoded: ObjectEvent = { type: event.type, object, revision: event.revision };
    if (event.prevValue !== undefined && event.type === 'update')
      decoded.previous = JSON.parse(event.prevValue) as ApiObject;
    return decoded;
  }

  /** A name that cannot be a key (not printable ASCII, or a slash) names no object. */
  private key(namespace: string, name: string): string | null {
    const valid = (s: string) => s !== '' && s !== '.' && s !== '..' && /^[\x21-\x7e]+$/.test(s) && !s.includes('/');
    if (!valid(name) || (this.namespaced && !valid(namespace))) return null;
    return this.namespaced ? `${this.root}${namespace}/${name}` : `${this.root}${name}`;
  }

  private async call<T>(fn: () => Promise<T>, name: string): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isStoreError(err, 'AlreadyExists')) throw alreadyExists(this.gr, name);
      if (isStoreError(err, 'Conflict')) throw conflict(this.gr, name);
      throw toApiError(err, this.gr, name);
    }
  }
}

function encode(object: ApiObject): string {
  const { resourceVersion: _ignored, ...metadata } = object.metadata;
  return JSON.stringify({ ...object, metadata });
}

function decode(kv: KeyValue): ApiObject {
  return withRevision(JSON.parse(kv.value) as ApiObject, kv.modRevision);
}

function withRevision(object: ApiObject, revision: number): ApiObject {
  object.metadata = { ...object.metadata, resourceVersion: String(revision) };
  return object;
}

/** group, resource, namespace and name of a `/registry/...` key. */
export function parseRegistryKey(
  key: string,
): { group: string; resource: string; namespace: string; name: string } | null {
  const parts = key.split('/').slice(2);
  if (parts.length === 3)
    return { group: parts[0] === 'core' ? '' : parts[0], resource: parts[1], namespace: '', name: parts[2] };
  if (parts.length === 4)
    return { group: parts[0] === 'core' ? '' : parts[0], resource: parts[1], namespace: parts[2], name: parts[3] };
  return null;
}
