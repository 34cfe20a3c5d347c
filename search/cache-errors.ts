/** The Status errors the multi-cluster cache answers with, worded as kube-apiserver and karmada-search word them. */
import { goQuote } from '../apiserver/go-quote.js';
import { ApiError, qualifiedResource, statusOf, type GroupResource } from '../apiserver/status.js';

/** A get whose name is cached in several clusters; the clusters are sorted (Karmada lists them in map order). */
export function ambiguousObject(gr: GroupResource, name: string, clusters: readonly string[]): ApiError {
  const message = `Operation cannot be fulfilled on ${qualifiedResource(gr)} ${goQuote(name)}: ambiguous objects in clusters [${[...clusters].sort().join(', ')}]`;
  return new ApiError(
    statusOf(409, 'Conflict', message, { name, ...(gr.group ? { group: gr.group } : {}), kind: gr.resource }),
  );
}

/**
 * A read at a version the cache did not reach in time: kube's watch cache answers this after
 * waiting 3 s (`storage.NewTooLargeResourceVersionError`, a Timeout with a retry after 1 s).
 */
export function tooLargeResourceVersion(requested: string, current: string): ApiError {
  return new ApiError(
    statusOf(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current || 0}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version', field: '' }],
      retryAfterSeconds: 1,
    }),
  );
}

/** A watch from a version the store's window no longer reaches (kube's watch cache's wording). */
export function tooOldResourceVersion(requested: string, oldest: string): ApiError {
  return new ApiError(statusOf(410, 'Expired', `too old resource version: ${requested} (${oldest})`));
}
