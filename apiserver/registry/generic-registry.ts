import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { recordUpdate } from '../apply/managed-fields.js';
import {
  ApplyConflictError,
  conflictCauses,
  conflictStatusMessage,
  serverSideApply,
  type ApplyResult,
} from '../apply/server-side-apply.js';
import { conversionFor } from '../conversion/builtin-conversions.js';
import type { KindConversion } from '../conversion/kind-conversion.js';
import { fillGoZeroFields } from '../go-json/go-zero-fields.js';
import { cloneJson, isObject } from '../json.js';
import { applyPatch, PatchError, type PatchType } from '../patch/index.js';
import type { ResourceInfo } from '../resources/resource-info.js';
import {
  ApiError,
  badRequest,
  conflict,
  deletedStatus,
  forbidden,
  invalid,
  isConflict,
  notFound,
  statusOf,
  type DeletedStatus,
} from '../status.js';
import type { Cause } from '../validation/cause.js';
import { decodeTypeError } from '../validation/decode-types.js';
import { nameValidatorFor, validateObjectMeta } from '../validation/names.js';
import { validateManagedFields } from '../validation/managed-fields.js';
import { validateOwnerReferences } from '../validation/owner-references.js';
import { findUnknownFields, strictDecodingMessage, unknownFieldMessage } from '../validation/unknown-fields.js';
import { ObjectStore, type ApiObject, type StoredObject } from './object-store.js';
import type { Strategy } from './strategy.js';
import { ConflictRetries } from './conflict-retries.js';

export interface DeleteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

/** Options of create, update and patch (kube's `?fieldValidation=` and `?dryRun=All`). */
export interface WriteOptions {
  /** Unknown fields of kinds with a schema: Strict rejects (400), Warn adds warnings, Ignore does nothing. */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** Validate and answer as if written, without writing. */
  dryRun?: boolean;
  /** Filled with warnings for the response's `Warning` headers. */
  warnings?: string[];
  /** The field manager recorded in managedFields as making this write (kube's `?fieldManager=`). */
  manager?: string;
  /** The subresource recorded with the manager when it is not the one written: `scale` writes the object. */
  managerSubresource?: string;
}

/** Options of a server-side apply: its field manager is required, `force` takes fields from others. */
export interface ApplyOptions extends WriteOptions {
  manager: string;
  force: boolean;
}

/** Whose ownership a write records: an Update by the request's manager, or what apply decided. */
type Ownership = 'update' | 'applied';

/** The manager of writes made without one, such as the devcluster's own. */
const UNKNOWN_MANAGER = 'unknown';

/** Looks a namespace up, for admission of namespaced objects. */
export type NamespaceLookup = (name: string) => Promise<ApiObject | null>;

export const GENERATE_NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** The StatusCause of a create refused because its namespace is terminating (core/v1 NamespaceTerminatingCause). */
export const NAMESPACE_TERMINATING_CAUSE = 'NamespaceTerminating';

export const FINALIZER_FOREGROUND = 'foregroundDeletion';
export const FINALIZER_ORPHAN = 'orphan';

/**
 * The create/get/update/patch/delete semantics every kind shares, as kube-apiserver's generic
 * registry Store implements them over etcd: server-set metadata (uid, creationTimestamp,
 * generation), name validation, optimistic concurrency on resourceVersion, status subresources,
 * finalizers and graceful deletion. Kind-specific behaviour comes from the Strategy.
 */
export class GenericRegistry {
  readonly objects: ObjectStore;
  private readonly validateName: (name: string, prefix: boolean) => string[];
  private readonly hasStatus: boolean;
  /** How objects of a kind whose versions differ in shape are stored (at its storage version) and served. */
  private readonly conversion: KindConversion | undefined;

  constructor(
    store: import('../../store/index.js').Store,
    readonly info: ResourceInfo,
    private readonly strategy: Strategy,
    private readonly lookupNamespace: NamespaceLookup,
  ) {
    this.objects = new ObjectStore(store, { group: info.group, resource: info.resource }, info.namespaced);
    this.validateName = strategy.validateName ?? nameValidatorFor(info.group, info.resource);
    this.hasStatus = info.subresources.some((s) => s.name === 'status');
    this.conversion = info.builtin ? conversionFor(info.group, info.kind) : undefined;
  }

  get gr() {
    return this.objects.gr;
  }

  apiVersion(): string {
    return this.info.group ? `${this.info.group}/${this.info.version}` : this.info.version;
  }

  /** The object as answered at this resource's version: served, with what the strategy adds to answers. */
  present(object: ApiObject): ApiObject {
    const served = this.served(object);
    return this.strategy.decorate ? this.strategy.decorate(served) : served;
  }

  /** The object at this resource's version, as patches apply to it and ownership is compared. */
  private served(object: ApiObject): ApiObject {
    let served = object;
    if (this.conversion) {
      served = this.conversion.fromStorage(object, this.info.version);
      this.fillZeroFields(served, this.info.version);
    }
    const { apiVersion: _apiVersion, kind: _kind, ...rest } = served;
    return { apiVersion: this.apiVersion(), kind: this.info.kind, ...rest } as ApiObject;
  }

  /** The version this resource's objects are stored at. */
  private storageVersion(): string {
    return this.conversion?.storageVersion ?? this.info.version;
  }

  /**
   * What Go's encoding of a built-in kind prints though no client sent it (`status: {}`, a template's
   * `creationTimestamp: null`), filled in as kube-apiserver's decoding into the Go type leaves it.
   */
  private fillZeroFields(object: ApiObject, version: string): void {
    if (this.info.builtin) fillGoZeroFields(this.info.group, version, this.info.kind, object);
  }

  /**
   * An object sent at this resource's version as it is stored: converted to the storage version
   * for kinds whose versions differ in shape (kube's conversion to its internal version, before
   * defaults and validation), as it came for every other kind.
   */
  private toStorage(object: ApiObject): ApiObject {
    if (!this.conversion) return object;
    const converted = this.conversion.toStorage(object, this.info.version);
    const { storageVersion } = this.conversion;
    const apiVersion = this.info.group ? `${this.info.group}/${storageVersion}` : storageVersion;
    return { ...converted, apiVersion, kind: this.info.kind };
  }

  async get(namespace: string, name: string): Promise<ApiObject> {
    return this.present((await this.objects.get(namespace, name)).object);
  }

  /** `get`, undefined for an object that is not there (ObjectStore.find). */
  async find(namespace: string, name: string): Promise<ApiObject | undefined> {
    const found = await this.objects.find(namespace, name);
    return found && this.present(found.object);
  }

  async create(namespace: string, body: unknown, options: WriteOptions = {}): Promise<ApiObject> {
    return this.insert(namespace, this.checkBody(body), options, 'update');
  }

  private async insert(
    namespace: string,
    sent: ApiObject,
    options: WriteOptions,
    ownership: Ownership,
  ): Promise<ApiObject> {
    this.checkFields(sent, options);
    const object = this.toStorage(sent);
    const meta = object.metadata;
    if (this.info.namespaced) {
      if (meta.namespace && namespace && meta.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = namespace || meta.namespace;
    } else {
      delete meta.namespace;
    }
    if (!meta.name && meta.generateName && typeof meta.generateName === 'string') {
      meta.name = meta.generateName + randomSuffix();
    }
    for (const field of ['resourceVersion', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink'])
      delete meta[field];
    meta.uid = randomUUID();
    meta.creationTimestamp = timestamp();
    meta.generation = 1;
    await this.strategy.prepareForCreate?.(object);
    this.fillZeroFields(object, this.storageVersion());
    // Ownership first, as kube's field manager runs before validation: what is validated is what is stored.
    if (ownership === 'update') this.recordUpdate(null, object, '', options);
    this.validate(object);
    if (this.info.namespaced) await this.admitNamespace(meta.namespace, meta.name);
    await this.strategy.admit?.(object);
    if (options.dryRun) return this.present(object);
    const created = await this.objects.create(object).catch((err: unknown) => this.beingDeleted(err, meta));
    this.strategy.afterWrite?.(created.object, false);
    return this.present(created.object);
  }

  /**
   * kube's Store.Create: a name still held by an object being deleted (finalizers pending) is
   * AlreadyExists saying so, `object is being deleted: <resource> "<name>" already exists`, so
   * that the client knows to wait rather than to pick another name.
   */
  private async beingDeleted(err: unknown, meta: ApiObject['metadata']): Promise<never> {
    if (!(err instanceof ApiError && err.status.reason === 'AlreadyExists')) throw err;
    const held = await this.objects.get(meta.namespace ?? '', meta.name).catch(() => null);
    if (!held?.object.metadata.deletionTimestamp) throw err;
    throw new ApiError({ ...err.status, message: `object is being deleted: ${err.status.message}` });
  }

  /** PUT of the object, or of the part a subresource owns (`status`, `ephemeralcontainers`). */
  async update(
    namespace: string,
    name: string,
    body: unknown,
    subresource = '',
    options: WriteOptions = {},
  ): Promise<ApiObject> {
    const object = this.checkBody(body);
    this.checkFields(object, options);
    if (object.metadata.name !== undefined && object.metadata.name !== name) {
      throw badRequest(`the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`);
    }
    this.checkNamespace(object, namespace);
    const requested = object.metadata.resourceVersion as string | undefined;
    const retries = new ConflictRetries();
    for (;;) {
      const current = await this.objects.get(namespace, name);
      if (requested && requested !== current.object.metadata.resourceVersion) throw conflict(this.gr, name);
      try {
        return await this.write(current, cloneJson(object), subresource, options);
      } catch (err) {
        // An unconditional update retries against whatever is current, as kube-apiserver does.
        if (requested || !isConflict(err)) throw err;
        if (!(await retries.again())) throw err;
      }
    }
  }

  async patch(
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
    subresource = '',
    options: WriteOptions = {},
  ): Promise<ApiObject> {
    const retries = new ConflictRetries();
    for (;;) {
      const current = await this.objects.get(namespace, name);
      let patched: ApiObject;
      try {
        patched = applyPatch(
          type,
          this.served(current.object),
          patch,
          { group: this.info.group, version: this.info.version, kind: this.info.kind },
          this.info.builtin,
        ) as ApiObject;
      } catch (err) {
        if (err instanceof PatchError)
          throw new ApiError(statusOf(err.status, reasonForPatchStatus(err.status), err.message));
        throw err;
      }
      if (
        !patched ||
        typeof patched !== 'object' ||
        typeof patched.metadata !== 'object' ||
        patched.metadata === null
      ) {
        throw badRequest("the patch removed the object's metadata");
      }
      const typeError = decodeTypeError(this.info.group, this.info.kind, patched, this.info.version);
      if (typeError)
        throw badRequest(
          `${this.info.kind} in version "${this.info.version}" cannot be handled as a ${this.info.kind}: ${typeError}`,
        );
      const requested = patched.metadata.resourceVersion;
      if (requested !== undefined && requested !== current.object.metadata.resourceVersion)
        throw conflict(this.gr, name);
      if (patched.metadata.name !== name)
        throw badRequest(
          `the name of the object (${patched.metadata.name}) does not match the name on the URL (${name})`,
        );
      this.checkNamespace(patched, namespace);
      this.checkFields(patched, options);
      try {
        return await this.write(current, patched, subresource, options);
      } catch (err) {
        if (!isConflict(err) || !(await retries.again())) throw err;
      }
    }
  }

  /**
   * Server-side apply of `body` by `options.manager`: creates the object when it does not exist,
   * and retries against whatever is current when a concurrent write wins, as patch does.
   */
  async apply(
    namespace: string,
    name: string,
    body: unknown,
    options: ApplyOptions,
  ): Promise<ApplyResult & { object: ApiObject }> {
    const applied = this.checkApplyBody(namespace, name, body);
    const requested = applied.metadata.resourceVersion as string | undefined;
    const retries = new ConflictRetries();
    for (;;) {
      const current = await this.objects.get(namespace, name).catch((err: unknown) => {
        if (err instanceof ApiError && err.code === 404) return null;
        throw err;
      });
      if (requested && current && requested !== current.object.metadata.resourceVersion) throw conflict(this.gr, name);
      let next: ApiObject;
      try {
        next = serverSideApply(current && this.served(current.object), applied, {
          manager: options.manager,
          force: options.force,
          apiVersion: this.apiVersion(),
          group: this.info.group,
          kind: this.info.kind,
          now: timestamp(),
        }) as ApiObject;
      } catch (err) {
        if (err instanceof ApplyConflictError) {
          throw new ApiError(
            statusOf(409, 'Conflict', conflictStatusMessage(err.conflicts), { causes: conflictCauses(err.conflicts) }),
          );
        }
        throw err;
      }
      try {
        if (!current) return { object: await this.insert(namespace, next, options, 'applied'), created: true };
        this.checkFields(applied, options);
        return { object: await this.write(current, next, '', options, 'applied'), created: false };
      } catch (err) {
        // Lost to a concurrent write, or to a concurrent create of the same name.
        const raced = isConflict(err) || (err instanceof ApiError && err.status.reason === 'AlreadyExists');
        if (requested || !raced || !(await retries.again())) throw err;
      }
    }
  }

  /**
   * Deletes as kube's generic Store does. An object whose deletion is now pending (finalizers, a
   * graceful kind) is answered as it is; one removed at once is answered as a Success Status
   * naming it, unless the kind returns the deleted object (ResourceInfo.returnsDeletedObject).
   * A delete that loses a race against another write is retried against the current object
   * (preconditions checked again), as kube-apiserver's conditional delete does.
   */
  async delete(namespace: string, name: string, options: DeleteOptions = {}): Promise<ApiObject | DeletedStatus> {
    const retries = new ConflictRetries();
    for (;;) {
      const current = await this.objects.get(namespace, name);
      try {
        return await this.deleteAt(current, namespace, name, options);
      } catch (err) {
        if (!(err instanceof LostRace)) throw err;
        if (!(await retries.again())) throw err.conflict;
      }
    }
  }

  private async deleteAt(
    current: StoredObject,
    namespace: string,
    name: string,
    options: DeleteOptions,
  ): Promise<ApiObject | DeletedStatus> {
    const meta = current.object.metadata;
    const { uid, resourceVersion } = options.preconditions ?? {};
    if (uid && uid !== meta.uid) {
      throw new ApiError(
        statusOf(409, 'Conflict', `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${meta.uid}`, {
          name,
          group: this.gr.group,
          kind: this.gr.resource,
        }),
      );
    }
    if (resourceVersion && resourceVersion !== meta.resourceVersion) {
      throw new ApiError(
        statusOf(
          409,
          'Conflict',
          `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`,
          { name, group: this.gr.group, kind: this.gr.resource },
        ),
      );
    }
    const finalizers: string[] = Array.isArray(meta.finalizers) ? [...meta.finalizers] : [];
    if (options.propagationPolicy === 'Foreground' && !finalizers.includes(FINALIZER_FOREGROUND))
      finalizers.push(FINALIZER_FOREGROUND);
    if (options.propagationPolicy === 'Orphan' && !finalizers.includes(FINALIZER_ORPHAN))
      finalizers.push(FINALIZER_ORPHAN);
    const graceful = finalizers.length > 0 || this.strategy.deleteGracefully?.(current.object) === true;
    if (options.dryRun) return graceful ? this.present(current.object) : this.deletedAnswer(current.object);
    if (!graceful) {
      const deleted = await lostRace(this.objects.delete(namespace, name, current.revision));
      this.strategy.afterWrite?.(deleted.object, true);
      return this.deletedAnswer(deleted.object);
    }
    if (meta.deletionTimestamp && isDeepStrictEqual(finalizers, meta.finalizers ?? []))
      return this.present(current.object);
    const deleting = cloneJson(current.object);
    deleting.metadata.deletionTimestamp ??= timestamp();
    deleting.metadata.deletionGracePeriodSeconds ??= 0;
    if (finalizers.length) deleting.metadata.finalizers = finalizers;
    this.strategy.beginDeletion?.(deleting);
    const updated = await lostRace(this.objects.update(deleting, current.revision));
    this.strategy.afterWrite?.(updated.object, false);
    return this.present(updated.object);
  }

  private deletedAnswer(object: ApiObject): ApiObject | DeletedStatus {
    if (this.info.returnsDeletedObject) return this.present(object);
    return deletedStatus(this.gr, object.metadata.name, object.metadata.uid);
  }

  /** Checked write of `object` over `current`, shared by update and patch. */
  private async write(
    current: StoredObject,
    sent: ApiObject,
    subresource: string,
    options: WriteOptions,
    ownership: Ownership = 'update',
  ): Promise<ApiObject> {
    const object = this.toStorage(sent);
    const previous = current.object;
    let next: ApiObject;
    const owned = PART_SUBRESOURCES[subresource];
    if (owned) {
      // Only the part the subresource owns comes from the body; all else stays as stored.
      next = cloneJson(previous);
      const [field, inner] = owned;
      const part = inner === undefined ? object[field] : object[field]?.[inner];
      if (inner === undefined) next[field] = part;
      else if (part === undefined) delete next[field]?.[inner];
      else next[field] = { ...next[field], [inner]: part };
    } else {
      next = object;
      if (this.hasStatus) {
        if (previous.status === undefined) delete next.status;
        else next.status = cloneJson(previous.status);
      }
    }
    next.apiVersion = previous.apiVersion;
    next.kind = previous.kind;
    const meta = (next.metadata = { ...next.metadata });
    for (const field of [
      'uid',
      'creationTimestamp',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'namespace',
      'name',
    ]) {
      if (previous.metadata[field] === undefined) delete meta[field];
      else meta[field] = previous.metadata[field];
    }
    delete meta.selfLink;
    this.strategy.prepareForUpdate?.(next, previous);
    this.fillZeroFields(next, this.storageVersion());
    // Compared once defaulted and filled, as kube compares decoded objects: what a client left
    // out and the server fills in is no change.
    meta.generation = previous.metadata.generation ?? 1;
    if (!owned && specChanged(previous, next)) meta.generation += 1;
    if (Array.isArray(meta.finalizers) && meta.finalizers.length === 0) delete meta.finalizers;
    if (ownership === 'update') this.recordUpdate(previous, next, options.managerSubresource ?? subresource, options);
    this.validate(next, previous, subresource);
    if (options.dryRun) return this.present(next);
    if (meta.deletionTimestamp && !meta.finalizers?.length) {
      const deleted = await this.objects.delete(meta.namespace ?? '', meta.name, current.revision);
      this.strategy.afterWrite?.(deleted.object, true);
      return this.present({
        ...next,
        metadata: { ...next.metadata, resourceVersion: deleted.object.metadata.resourceVersion },
      });
    }
    const unchanged = { ...next, metadata: { ...meta, resourceVersion: previous.metadata.resourceVersion } };
    if (isDeepStrictEqual(unchanged, this.served(previous)) || isDeepStrictEqual(unchanged, previous))
      return this.present(previous);
    const updated = await this.objects.update(next, current.revision);
    this.strategy.afterWrite?.(updated.object, false);
    return this.present(updated.object);
  }

  /** Sets `next`'s managedFields for an Update by the write's manager, from the client's own when kube would take them. */
  private recordUpdate(previous: ApiObject | null, next: ApiObject, subresource: string, options: WriteOptions): void {
    // Fields are owned at the version the manager wrote: compared as served there. Status is
    // kube's reset field of a write to the object itself: it cannot change it, so never owns it.
    const served = (object: ApiObject) => {
      const at = this.conversion ? this.served(object) : object;
      if (!this.hasStatus || subresource === 'status') return at;
      const { status: _status, ...rest } = at;
      return rest as ApiObject;
    };
    const { managedFields } = recordUpdate(previous && served(previous), served(next), {
      manager: options.manager ?? UNKNOWN_MANAGER,
      apiVersion: this.apiVersion(),
      group: this.info.group,
      kind: this.info.kind,
      now: timestamp(),
      ...(subresource ? { subresource } : {}),
    }).metadata;
    if (managedFields) next.metadata.managedFields = managedFields;
    else delete next.metadata.managedFields;
  }

  /** An apply body names its kind and version exactly, and the object of the URL. */
  private checkApplyBody(namespace: string, name: string, body: unknown): ApiObject {
    if (isObject(body)) {
      const { apiVersion, kind } = body;
      if (apiVersion !== this.apiVersion() || kind !== this.info.kind) {
        const text = (value: unknown) => (typeof value === 'string' ? value : '');
        const [group, version] = text(apiVersion).includes('/')
          ? text(apiVersion).split('/', 2)
          : ['', text(apiVersion)];
        throw badRequest(`invalid object type: ${group}/${version}, Kind=${text(kind)}`);
      }
    }
    const object = this.checkBody(body);
    const meta = object.metadata;
    meta.name ??= name;
    if (meta.name !== name)
      throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    if (this.info.namespaced && meta.namespace !== undefined && meta.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    return object;
  }

  /** kube's BeforeUpdate: a namespaced object that names a namespace names the URL's. */
  private checkNamespace(object: ApiObject, namespace: string): void {
    const named = object.metadata.namespace;
    if (this.info.namespaced && named !== undefined && named !== '' && named !== namespace)
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }

  private checkBody(body: unknown): ApiObject {
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw badRequest('the body of the request must be a JSON object');
    const object = cloneJson(body) as ApiObject;
    if (object.kind !== undefined && object.kind !== this.info.kind) {
      throw badRequest(
        `the kind in the data (${String(object.kind)}) does not match the expected kind (${this.info.kind})`,
      );
    }
    if (object.apiVersion !== undefined && !this.acceptsApiVersion(String(object.apiVersion))) {
      throw badRequest(
        `the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${this.apiVersion()})`,
      );
    }
    const typeError = decodeTypeError(this.info.group, this.info.kind, object, this.info.version);
    if (typeError)
      throw badRequest(
        `${this.info.kind} in version "${this.info.version}" cannot be handled as a ${this.info.kind}: ${typeError}`,
      );
    if (object.metadata === undefined || object.metadata === null) object.metadata = {};
    for (const [field, value] of Object.entries(object.metadata)) if (value === null) delete object.metadata[field];
    return object;
  }

  /** Unknown fields, as kube-apiserver's strict decoder reports them. */
  private checkFields(object: ApiObject, options: WriteOptions): void {
    const mode = options.fieldValidation ?? 'Warn';
    if (mode === 'Ignore') return;
    const unknown = findUnknownFields(this.info.group, this.info.kind, object, this.info.version);
    if (unknown.length === 0) return;
    if (mode === 'Strict') {
      throw badRequest(
        `${this.info.kind} in version "${this.info.version}" cannot be handled as a ${this.info.kind}: ${strictDecodingMessage(unknown)}`,
      );
    }
    options.warnings?.push(...unknown.map(unknownFieldMessage));
  }

  private acceptsApiVersion(apiVersion: string): boolean {
    return apiVersion === this.apiVersion();
  }

  private validate(object: ApiObject, previous?: ApiObject, subresource = ''): void {
    const causes: Cause[] = [
      ...validateObjectMeta(object.metadata, {
        namespaced: this.info.namespaced,
        nameValidator: this.validateName,
        generateNameAllowed: previous === undefined,
      }),
      ...validateOwnerReferences(object.metadata.ownerReferences),
      ...validateManagedFields(object.metadata.managedFields),
      ...(this.strategy.validate?.(object, previous, subresource) ?? []),
    ];
    if (causes.length)
      throw invalid(
        this.info.kind,
        this.info.group,
        String(object.metadata.name ?? object.metadata.generateName ?? ''),
        causes,
      );
  }

  private async admitNamespace(namespace: string, name: string): Promise<void> {
    const ns = await this.lookupNamespace(namespace);
    if (!ns) throw notFound({ group: '', resource: 'namespaces' }, namespace);
    if (ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating') {
      const error = forbidden(
        this.gr,
        name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
      // kube's NamespaceLifecycle admission names the cause, which controllers look for.
      error.status.details = {
        ...error.status.details,
        causes: [
          {
            reason: NAMESPACE_TERMINATING_CAUSE,
            message: `namespace ${namespace} is being terminated`,
            field: 'metadata.namespace',
          },
        ],
      };
      throw error;
    }
  }
}

/** A store write that failed because the object changed since it was read. */
class LostRace extends Error {
  constructor(readonly conflict: ApiError) {
    super(conflict.message);
  }
}

async function lostRace<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isConflict(err)) throw new LostRace(err);
    throw err;
  }
}

/**
 * The subresources whose writes change one part of the object, which the rest of the body cannot
 * touch (kube's status and ephemeral-containers strategies): the part as [field] or [field, inner].
 */
const PART_SUBRESOURCES: Readonly<Record<string, readonly [string, string?]>> = {
  status: ['status'],
  ephemeralcontainers: ['spec', 'ephemeralContainers'],
};

function specChanged(previous: ApiObject, next: ApiObject): boolean {
  const strip = ({ metadata: _m, status: _s, ...rest }: ApiObject) => rest;
  return !isDeepStrictEqual(strip(previous), strip(next));
}

/** kube's SimpleNameGenerator: five characters of the alphabet generated names use. */
export function randomSuffix(): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += GENERATE_NAME_CHARS[Math.floor(Math.random() * GENERATE_NAME_CHARS.length)];
  return suffix;
}

/** The last second `timestamp()` wrote, and how: every write stamps the time, many in one second. */
let lastSecond = -1;
let lastStamp = '';

/** RFC 3339 with seconds, as Kubernetes serialises metav1.Time. */
export function timestamp(date?: Date): string {
  const ms = date ? date.getTime() : Date.now();
  const second = Math.floor(ms / 1000);
  if (date === undefined && second === lastSecond) return lastStamp;
  const stamp = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  if (date === undefined) [lastSecond, lastStamp] = [second, stamp];
  return stamp;
}

function reasonForPatchStatus(status: number): string {
  return (
    (
      { 400: 'BadRequest', 415: 'UnsupportedMediaType', 422: 'Invalid', 500: 'InternalError' } as Record<number, string>
    )[status] ?? 'BadRequest'
  );
}
