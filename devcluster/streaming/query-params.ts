/** Query parameters of the streaming subresources, parsed as Go's strconv parses them. */
import { badRequest } from '../../apiserver/status.js';

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** An absent flag is false; anything strconv.ParseBool rejects is a 400. */
export function booleanParam(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null || value === '' || FALSE.has(value)) return false;
  if (TRUE.has(value)) return true;
  throw badRequest(`${name}: invalid boolean value "${value}"`);
}

/** A non-negative integer, or null when absent. */
export function countParam(query: URLSearchParams, name: string): number | null {
  const value = query.get(name);
  if (value === null || value === '') return null;
  if (!/^\d+$/.test(value)) throw badRequest(`${name}: invalid non-negative integer "${value}"`);
  return Number(value);
}
