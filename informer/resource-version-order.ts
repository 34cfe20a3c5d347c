/**
 * The order of a cluster's resourceVersions. Kubernetes calls them opaque, but a watch cache
 * compares them (kube's own parses them as unsigned integers); so does this cache, to know how
 * fresh a store is and what a watch resumes after. Anything that is not a decimal integer ("" of
 * a store that has not listed yet) is older than every version.
 */
const DECIMAL = /^\d+$/;

export function versionNumber(resourceVersion: string): bigint {
  return DECIMAL.test(resourceVersion) ? BigInt(resourceVersion) : -1n;
}

/** Whether `a` is at least as new as `b`. */
export function atLeast(a: string, b: string): boolean {
  return versionNumber(a) >= versionNumber(b);
}
