import type { ApiObject } from '../registry/object-store.js';

/**
 * How a kind served at versions of different shapes is converted, as kube's conversion functions
 * (pkg/apis/<group>/<version>/conversion.go) do it. Its objects are stored at one version — kube's
 * internal version, the one the registry defaults, validates and keeps — and converted on the way
 * in and out.
 */
export interface KindConversion {
  /** The version objects are stored, defaulted and validated at. */
  readonly storageVersion: string;
  /** `object`, sent at `version`, as the object at the storage version (apiVersion aside). */
  toStorage(object: ApiObject, version: string): ApiObject;
  /** A stored object as served at `version` (apiVersion aside). */
  fromStorage(object: ApiObject, version: string): ApiObject;
}
