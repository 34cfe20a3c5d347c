/**
 * An `apiVersion` as Kubernetes writes it: `group/version`, or a bare `version` for the core
 * group (`v1`). Owner references, object references and managedFields carry one, and both the
 * gateway's conversion and the devcluster's garbage collector read its group.
 */

/** The group of `group/version`; '' (core) for a bare version. */
export function groupOfApiVersion(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The version of `group/version`, or the bare version itself. */
export function versionOfApiVersion(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}
