import type { ResourceInfo } from '../resources/resource-info.js';
import type { Cause } from '../validation/cause.js';
import type { NameValidator } from '../validation/names.js';
import type { ApiObject } from './object-store.js';

/**
 * What differs between kinds in the generic create/update/delete flow, as kube-apiserver's
 * RESTCreateStrategy/RESTUpdateStrategy: defaults before a write, validation, and which
 * finalizers an object always carries.
 */
export interface Strategy {
  /** Set defaults and server-owned fields on a new object (status, phase, finalizers, allocated IPs). */
  prepareForCreate?(object: ApiObject): void | Promise<void>;
  /**
   * Admission of a create, after the namespace's (kube's NamespaceLifecycle plugin runs first):
   * may change the object (mutating admission) or refuse it with an ApiError.
   */
  admit?(object: ApiObject): Promise<void>;
  /** Adjust an update (for example keep immutable fields); `previous` is the stored object. */
  prepareForUpdate?(object: ApiObject, previous: ApiObject): void;
  /** How names of this kind are validated, when not by the resource's kube rule. */
  validateName?: NameValidator;
  /**
   * Kind-specific validation beyond ObjectMeta; causes use the object's field paths. `previous`
   * is the stored object of an update, `subresource` the one written (`status`…), '' for the object.
   */
  validate?(object: ApiObject, previous?: ApiObject, subresource?: string): Cause[];
  /** Whether deleting starts a graceful deletion even without finalizers (namespaces do). */
  deleteGracefully?(object: ApiObject): boolean;
  /** Changes made when graceful deletion begins (a namespace turns Terminating). */
  beginDeletion?(object: ApiObject): void;
  /**
   * kube's Store.Decorator: what every answer holds besides what is stored (never what a patch
   * applies to, nor what is compared or stored). Returns a new object; the one given is shared.
   */
  decorate?(object: ApiObject): ApiObject;
  /** Called after every committed write of this kind (CRDs register their resources). */
  afterWrite?(object: ApiObject, deleted: boolean): void;
}

export type StrategyFor = (info: ResourceInfo) => Strategy;
