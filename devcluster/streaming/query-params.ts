/**
 * Numeric and time query parameters of the streaming subresources, decoded as apimachinery's
 * parameter codec decodes them (booleans: apiserver/query-bool.ts): only the first value counts,
 * and a value that does not decode is a 400 whose message is Go's parse error.
 */
import { GoTimeParseError, parseRfc3339 } from '../../apiserver/go-time-parse.js';
import { goQuote } from '../../apiserver/go-quote.js';
import { badRequest } from '../../apiserver/status.js';

/** Go's zero time.Time, 0001-01-01T00:00:00Z, in milliseconds since the epoch. */
export const GO_ZERO_TIME = Date.parse('0001-01-01T00:00:00Z');

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An `*int64` (runtime.Convert_Slice_string_To_Pointer_int64, strconv.ParseInt): null when absent. */
export function int64Param(query: URLSearchParams, name: string): bigint | null {
  const text = query.get(name);
  if (text === null) return null;
  const fail = (why: string) => badRequest(`strconv.ParseInt: parsing ${goQuote(text)}: ${why}`);
  if (!/^[+-]?\d+$/.test(text)) throw fail('invalid syntax');
  const value = BigInt(text);
  if (value < INT64_MIN || value > INT64_MAX) throw fail('value out of range');
  return value;
}

/**
 * A `*metav1.Time` (Convert_Slice_string_To_Pointer_v1_Time): milliseconds since the epoch, or
 * null when absent. An empty value or `null` is Go's zero time, which is present all the same.
 */
export function timeParam(query: URLSearchParams, name: string): number | null {
  const text = query.get(name);
  if (text === null) return null;
  if (text === '' || text === 'null') return GO_ZERO_TIME;
  try {
    return parseRfc3339(text);
  } catch (err) {
    if (err instanceof GoTimeParseError) throw badRequest(err.message);
    throw err;
  }
}
