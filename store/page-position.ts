import { StoreError } from './errors.js';

/**
 * A list's continue token: the revision every page is read at and the key the next page starts
 * from, so that paging through a prefix sees one consistent snapshot while writers go on.
 * Opaque to callers (base64url JSON, as Kubernetes' own tokens are base64 JSON).
 */
export interface ContinuePosition {
  revision: number;
  startKey: string;
  prefix: string;
}

export function encodeContinue(position: ContinuePosition): string {
  return Buffer.from(JSON.stringify({ r: position.revision, s: position.startKey, p: position.prefix })).toString(
    'base64url',
  );
}

export function decodeContinue(token: string, prefix: string): ContinuePosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new StoreError('Invalid', 'continue token is not valid: it is not a token this store issued');
  }
  const { r, s, p } = (parsed ?? {}) as { r?: unknown; s?: unknown; p?: unknown };
  if (typeof r !== 'number' || !Number.isSafeInteger(r) || r < 1 || typeof s !== 'string' || typeof p !== 'string') {
    throw new StoreError('Invalid', 'continue token is not valid: it is not a token this store issued');
  }
  if (p !== prefix || !s.startsWith(prefix)) {
    throw new StoreError(
      'Invalid',
      `continue token was issued for a list of ${JSON.stringify(p)}, not ${JSON.stringify(prefix)}`,
    );
  }
  return { revision: r, startKey: s, prefix: p };
}

/** The smallest key greater than `key`: where the next page starts. */
export function keyAfter(key: string): string {
  return key + '\u0000';
}
