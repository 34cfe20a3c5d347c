/**
 * Typed store errors. The HTTP layer maps each code to one Kubernetes status:
 * NotFound 404, AlreadyExists 409, Conflict 409, Expired 410, Unavailable 503, Invalid 400,
 * TooLargeRevision 504 (kube-apiserver's "Too large resource version").
 */
export type StoreErrorCode =
  'NotFound' | 'AlreadyExists' | 'Conflict' | 'Expired' | 'Unavailable' | 'Invalid' | 'TooLargeRevision';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isStoreError(err: unknown, code?: StoreErrorCode): err is StoreError {
  return err instanceof StoreError && (code === undefined || err.code === code);
}

export const notFound = (key: string) => new StoreError('NotFound', `key ${key} not found`);
export const alreadyExists = (key: string) => new StoreError('AlreadyExists', `key ${key} already exists`);
export const conflict = (key: string, expected: number, actual: number) =>
  new StoreError('Conflict', `key ${key} is at revision ${actual}, not the expected ${expected}`);
export const expired = (revision: number, compacted: number) =>
  new StoreError('Expired', `revision ${revision} has been compacted (history starts after ${compacted})`);
export const tooLarge = (revision: number, current: number) =>
  new StoreError('TooLargeRevision', `revision ${revision} is newer than the current revision ${current}`);
