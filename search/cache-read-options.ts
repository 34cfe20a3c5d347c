/**
 * The options of a get, list or watch the multi-cluster cache answers, read from the query as
 * kube-apiserver reads them, except `resourceVersion`: here it is a multi-cluster resourceVersion
 * (or a cluster's own, or "0"), which kube's integer check would refuse.
 */
import { nonNegativeInteger } from '../apiserver/handlers/list-options.js';
import { queryBool } from '../apiserver/query-bool.js';
import { parseFieldSelector, type FieldSelector } from '../apiserver/selectors/field-selector.js';
import { parseLabelSelector, type LabelSelector } from '../apiserver/selectors/label-selector.js';
import { checkFieldSelectorSupported } from '../apiserver/selectors/selectable-fields.js';
import { badRequest } from '../apiserver/status.js';
import type { CachedObject } from './cached-object.js';
import type { CacheResource } from './cluster-resource-store.js';
import { fieldsForSelector } from './to-cached-object.js';

export interface CacheReadOptions {
  resourceVersion: string;
  limit: number;
  continue: string;
  labelSelector: LabelSelector;
  fieldSelector: FieldSelector;
  allowWatchBookmarks: boolean;
  timeoutSeconds: number | undefined;
}

/** Reads the options; a bad selector or number is a 400 BadRequest worded as kube words it. */
export function parseCacheReadOptions(query: URLSearchParams, resource: CacheResource): CacheReadOptions {
  const labelSelector = asBadRequest(() => parseLabelSelector(query.get('labelSelector') ?? ''));
  const fieldSelector = asBadRequest(() => parseFieldSelector(query.get('fieldSelector') ?? ''));
  asBadRequest(() =>
    checkFieldSelectorSupported(resource.group, resource.resource, resource.namespaced, fieldSelector),
  );
  return {
    resourceVersion: query.get('resourceVersion') ?? '',
    limit: nonNegativeInteger(query.get('limit'), 'limit') ?? 0,
    continue: query.get('continue') ?? '',
    labelSelector,
    fieldSelector,
    allowWatchBookmarks: queryBool(query, 'allowWatchBookmarks'),
    timeoutSeconds: nonNegativeInteger(query.get('timeoutSeconds'), 'timeoutSeconds'),
  };
}

/** Whether an object passes the options' label and field selectors. */
export function selects(
  options: Pick<CacheReadOptions, 'labelSelector' | 'fieldSelector'>,
  object: CachedObject,
): boolean {
  if (!options.labelSelector.empty && !options.labelSelector.matches(object.metadata.labels)) return false;
  return options.fieldSelector.empty || options.fieldSelector.matches(fieldsForSelector(object));
}

function asBadRequest<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw badRequest((err as Error).message);
  }
}
