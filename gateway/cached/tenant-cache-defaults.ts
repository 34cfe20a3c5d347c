/**
 * The defaults of `serve --tenant-cache` and `--failover-resources`, apart from the code that
 * parses them (tenant-cached-resources.ts): `paddock --help` prints them, and loading that code
 * took most of the help's time.
 */

/** The reads most tools make: kubectl's, controllers' informers. */
export const DEFAULT_TENANT_CACHE = 'pods,configmaps,secrets,services,deployments.apps';

/**
 * What an evicted tenant's replay reads besides the tenant cache (eviction/tenant-replay.ts): its
 * CRDs and namespaces, which everything else needs, and what tenants commonly make. Cached only
 * while the taint manager may evict (`--enable-no-execute-taint-eviction`).
 */
export const DEFAULT_FAILOVER_RESOURCES = [
  'customresourcedefinitions.apiextensions.k8s.io',
  'namespaces',
  'serviceaccounts',
  'persistentvolumeclaims',
  'roles.rbac.authorization.k8s.io',
  'rolebindings.rbac.authorization.k8s.io',
  'statefulsets.apps',
  'daemonsets.apps',
  'jobs.batch',
  'cronjobs.batch',
  'ingresses.networking.k8s.io',
  'networkpolicies.networking.k8s.io',
].join(',');
