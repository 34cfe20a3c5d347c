/**
 * Go's JSON of a typed object, without what the protobuf decoder leaves out on purpose: nulls
 * (`creationTimestamp: null`) and empty objects (`resources: {}`, `strategy: {}`); and without the
 * keys named in `dropped` at any depth.
 */
export function withoutEmpties(value: unknown, dropped: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutEmpties(item, dropped));
  if (typeof value !== 'object' || value === null) return value;
  const kept = Object.entries(value)
    .filter(([key]) => !dropped.has(key))
    .map(([key, inner]) => [key, withoutEmpties(inner, dropped)] as const)
    .filter(
      ([, inner]) =>
        inner !== null && !(typeof inner === 'object' && !Array.isArray(inner) && Object.keys(inner).length === 0),
    );
  return Object.fromEntries(kept);
}
