/** Numeric query parameters of the streaming subresources (booleans: apiserver/query-bool.ts). */
import { badRequest } from '../../apiserver/status.js';

/** A non-negative integer, or null when absent. */
export function countParam(query: URLSearchParams, name: string): number | null {
  const value = query.get(name);
  if (value === null || value === '') return null;
  if (!/^\d+$/.test(value)) throw badRequest(`${name}: invalid non-negative integer "${value}"`);
  return Number(value);
}
