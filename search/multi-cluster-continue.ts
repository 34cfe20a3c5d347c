/**
 * The continue token of a list that spans clusters, in karmada-search's format: base64url
 * (unpadded) of `{"rv":<multi-cluster resourceVersion>,"cluster":<next cluster>,"continue":<that
 * cluster's own continue>}`, `cluster` and `continue` left out when empty. A list that ends names
 * no cluster, and its token is `""`. A token that does not decode is ignored (the list starts
 * over), as Karmada ignores it.
 *
 * Karmada puts the member cluster's own continue token in `continue`; Paddock serves pages from
 * memory and puts there the key (`<namespace>/<name>`) of the last item it returned.
 */
import { decodeRawUrlJsonObject, encodeRawUrl } from './go-base64-json.js';

export interface MultiClusterContinue {
  rv: string;
  cluster: string;
  continue: string;
}

const FIELDS = ['rv', 'cluster', 'continue'] as const;

export function parseMultiClusterContinue(token: string): MultiClusterContinue {
  const parsed: MultiClusterContinue = { rv: '', cluster: '', continue: '' };
  if (token === '') return parsed;
  const decoded = decodeRawUrlJsonObject(token) ?? {};
  // Go matches a JSON key to a struct field case-insensitively, the last key winning, and skips
  // values of the wrong type.
  for (const [key, value] of Object.entries(decoded)) {
    const field = FIELDS.find((name) => name === key.toLowerCase());
    if (field !== undefined && typeof value === 'string') parsed[field] = value;
  }
  return parsed;
}

export function formatMultiClusterContinue(token: MultiClusterContinue): string {
  if (token.cluster === '') return '';
  const json: Record<string, string> = { rv: token.rv, cluster: token.cluster };
  if (token.continue !== '') json.continue = token.continue;
  return encodeRawUrl(goJson(json));
}

/** JSON as Go's encoder writes it, which escapes `<`, `>`, `&`, U+2028 and U+2029. */
function goJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
