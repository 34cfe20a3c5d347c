/**
 * Boolean query parameters as kube-apiserver reads them. Every one (`watch`, `allowWatchBookmarks`,
 * `sendInitialEvents`, `force`, `orphanDependents`, a log's `follow`, exec's `stdin`…) is decoded
 * by apimachinery's parameter codec (runtime.Convert_Slice_string_To_bool): only the first value
 * counts, `0` and `false` in any letter case are false, and anything else present is true — `yes`,
 * `no` and an empty value included. No value is ever refused, so Python's `watch=True` is a watch.
 */

/** Go's strings.EqualFold(value, "false"): simple case folding, so `falſe` (long s) is false too. */
const FALSE = /^false$/iu;

/** A `bool` parameter: false when absent. */
export function queryBool(query: URLSearchParams, name: string): boolean {
  return optionalQueryBool(query, name) ?? false;
}

/** A `*bool` parameter: undefined when absent, so a caller can tell "not asked" from false. */
export function optionalQueryBool(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  return value !== '0' && !FALSE.test(value);
}
