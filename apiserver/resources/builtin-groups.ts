/**
 * API groups kube-apiserver 1.32 serves itself (kube-apiserver, apiextensions and aggregator
 * schemes). Any other group is a CRD's: field selectors treat it as a custom resource, and the
 * gateway gives it a tenant's prefix upstream.
 */
export const BUILTIN_API_GROUPS: ReadonlySet<string> = new Set([
  '',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

/**
 * Groups kube-apiserver's scheme knows without serving them. They are named in the
 * group-version-kinds of the schemas every group shares (DeleteOptions, WatchEvent) in its
 * OpenAPI documents, so they are Kubernetes' own, not anybody's CRD group.
 */
export const UNSERVED_SCHEME_GROUPS: ReadonlySet<string> = new Set([
  'admission.k8s.io',
  'extensions',
  'imagepolicy.k8s.io',
]);
