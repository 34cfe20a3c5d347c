import { StoreError } from './errors.js';

/** etcd's default request limit is 1.5 MiB; a value must fit in one request with its key. */
export const MAX_VALUE_BYTES = 1536 * 1024 - 4096;
export const MAX_KEY_BYTES = 3072;

/**
 * Keys are absolute, slash-separated paths of printable ASCII (as every Kubernetes storage key
 * is): no control characters (they would break prefix ranges and log framing) and nothing beyond
 * ASCII, so both backends sort keys the same way (etcd by UTF-8 bytes, JavaScript by UTF-16
 * units); no empty or dot segments, except the trailing slash of a prefix.
 */
export function validateKey(key: unknown, what: 'key' | 'prefix' = 'key'): asserts key is string {
  if (typeof key !== 'string') throw invalid(`${what} must be a string, got ${typeof key}`);
  if (!key.startsWith('/')) throw invalid(`${what} ${JSON.stringify(key)} must start with "/"`);
  if (what === 'key' && key.endsWith('/')) throw invalid(`key ${JSON.stringify(key)} must not end with "/"`);
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw invalid(`${what} is longer than ${MAX_KEY_BYTES} bytes`);
  if (!/^[\x20-\x7e]*$/.test(key))
    throw invalid(`${what} ${JSON.stringify(key)} may hold only printable ASCII characters`);
  const segments = key.slice(1, key.endsWith('/') ? -1 : undefined).split('/');
  if (key !== '/' && segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw invalid(`${what} ${JSON.stringify(key)} has an empty, "." or ".." segment`);
  }
}

export function validateValue(value: unknown): asserts value is string {
  if (typeof value !== 'string') throw invalid(`value must be a string, got ${typeof value}`);
  if (!value.isWellFormed()) throw invalid('value is not well-formed Unicode');
  if (Buffer.byteLength(value) > MAX_VALUE_BYTES) throw invalid(`value is larger than ${MAX_VALUE_BYTES} bytes`);
}

export function validateRevision(revision: unknown, what: string): asserts revision is number {
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0) {
    throw invalid(`${what} must be a non-negative integer, got ${String(revision)}`);
  }
}

export function validateTtl(ttlSeconds: unknown): asserts ttlSeconds is number {
  if (typeof ttlSeconds !== 'number' || !Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > 9e9) {
    throw invalid(`lease TTL must be a whole number of seconds of at least 1, got ${String(ttlSeconds)}`);
  }
}

function invalid(message: string): StoreError {
  return new StoreError('Invalid', message);
}
