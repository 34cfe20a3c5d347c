/**
 * What the server knows about one resource at one group-version: enough to route requests,
 * answer discovery and build OpenAPI documents.
 */
export interface SubresourceInfo {
  name: string;
  kind: string;
  /** Set only when the subresource speaks another group-version (e.g. `scale` → autoscaling/v1 Scale). */
  group?: string;
  version?: string;
  verbs: string[];
}

export interface ResourceInfo {
  group: string;
  version: string;
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  /** In the order discovery lists them (kube sorts them for built-ins, not for custom resources). */
  verbs: string[];
  shortNames: string[];
  categories: string[];
  /** In the order discovery lists them. */
  subresources: SubresourceInfo[];
  /** false for custom resources (no strategic merge patch) */
  builtin: boolean;
  /** A custom resource's `openAPIV3Schema` for this version, which its OpenAPI document publishes. */
  openAPIV3Schema?: unknown;
  /**
   * A DELETE that removes the object at once answers the object (kube's store option
   * `ReturnDeletedObject`), not a Success Status; absent for most kinds and every custom resource.
   * An object whose deletion is pending (finalizers, a namespace) is answered as it is either way.
   */
  returnsDeletedObject?: true;
}
