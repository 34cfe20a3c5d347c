/**
 * Values printed as text the way kube's JSONPath printer does for a CRD `string` column:
 * strings as they are, numbers and booleans as Go's fmt prints them, objects and lists as Go's JSON.
 */

/** Go's `%v` of a float64: shortest digits, exponent form (`1e-05`, `1.5e+06`) below 1e-4 or from 1e6 up. */
function goFloat(n: number): string {
  const [mantissa, exponentText] = n.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent >= -4 && exponent < 6) return String(n);
  const sign = exponent < 0 ? '-' : '+';
  return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/** Go's encoding/json sorts map keys; decoded JSON objects are maps. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const object = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, sortKeys(object[key])]),
  );
}

/** Go's json.Marshal, which also escapes HTML-significant characters and line separators. */
function goJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The text of a JSON value, or undefined for null. */
export function goText(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value;
  // Decoded JSON integers are Go int64s; only other numbers are float64s.
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : goFloat(value);
  if (typeof value === 'object') return goJson(value);
  // Decoded JSON: a boolean is left.
  return value ? 'true' : 'false';
}
