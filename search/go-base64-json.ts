/**
 * What Karmada's search proxy does with a token it reads: Go's `base64.RawURLEncoding` (URL
 * alphabet, no padding) around JSON, where anything that does not decode is ignored rather than
 * refused. Node's own base64url decoder skips characters outside the alphabet, so the alphabet
 * and length are checked first, as Go's decoder fails on them.
 */
import { isObject, type Json } from '../apiserver/json.js';

/** Go's RawURLEncoding decodes only these; `\r` and `\n` are skipped, as Go skips them. */
const RAW_URL_ALPHABET = /^[A-Za-z0-9_-]*$/;

export function encodeRawUrl(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** The JSON object the token holds, or undefined when it is not base64url of a JSON object. */
export function decodeRawUrlJsonObject(token: string): Json | undefined {
  const compact = token.replace(/[\r\n]/g, '');
  // A length of 4n+1 leaves 6 bits, which no byte can be made of.
  if (!RAW_URL_ALPHABET.test(compact) || compact.length % 4 === 1) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(compact, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  return isObject(value) ? value : undefined;
}
