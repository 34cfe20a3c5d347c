import { parseFieldSelector, type FieldSelector } from '../selectors/field-selector.js';
import { parseLabelSelector, type LabelSelector } from '../selectors/label-selector.js';
import { optionalQueryBool, queryBool } from '../query-bool.js';
import { badRequest } from '../status.js';

export type ResourceVersionMatch = '' | 'Exact' | 'NotOlderThan';

/** metav1.ListOptions from a query string, validated as kube-apiserver validates them. */
export interface ListOptions {
  labelSelector: LabelSelector;
  fieldSelector: FieldSelector;
  limit: number;
  continue: string;
  /** '' when absent. */
  resourceVersion: string;
  resourceVersionMatch: ResourceVersionMatch;
  allowWatchBookmarks: boolean;
  sendInitialEvents: boolean | undefined;
  timeoutSeconds: number | undefined;
  includeObject: 'None' | 'Metadata' | 'Object';
}

export function parseListOptions(query: URLSearchParams, watch: boolean): ListOptions {
  const labelSelector = parseSelector(() => parseLabelSelector(query.get('labelSelector') ?? ''));
  const fieldSelector = parseSelector(() => parseFieldSelector(query.get('fieldSelector') ?? ''));
  const limit = nonNegativeInteger(query.get('limit'), 'limit') ?? 0;
  const resourceVersion = query.get('resourceVersion') ?? '';
  const resourceVersionMatch = (query.get('resourceVersionMatch') ?? '') as ResourceVersionMatch;
  const options: ListOptions = {
    labelSelector,
    fieldSelector,
    limit,
    continue: query.get('continue') ?? '',
    resourceVersion,
    resourceVersionMatch,
    allowWatchBookmarks: queryBool(query, 'allowWatchBookmarks'),
    sendInitialEvents: optionalQueryBool(query, 'sendInitialEvents'),
    timeoutSeconds: nonNegativeInteger(query.get('timeoutSeconds'), 'timeoutSeconds'),
    includeObject: includeObject(query.get('includeObject')),
  };
  if (resourceVersion !== '' && !/^\d+$/.test(resourceVersion)) {
    throw badRequest(`resourceVersion: Invalid value: "${resourceVersion}": must be a non-negative integer`);
  }
  if (!['', 'Exact', 'NotOlderThan'].includes(resourceVersionMatch)) {
    throw badRequest(
      `resourceVersionMatch: Unsupported value: "${resourceVersionMatch}": supported values: "Exact", "NotOlderThan", ""`,
    );
  }
  if (watch) validateWatchOptions(options);
  else validateListOnlyOptions(options);
  if (options.continue && resourceVersion && resourceVersion !== '0') {
    throw badRequest('resourceVersion: Forbidden: specifying resource version is not allowed when using continue');
  }
  return options;
}

/** kube-apiserver's rules for a list: resourceVersionMatch needs a resourceVersion; streaming options are watch-only. */
function validateListOnlyOptions(options: ListOptions): void {
  const { resourceVersion, resourceVersionMatch } = options;
  if (resourceVersionMatch && !resourceVersion) {
    throw badRequest(
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
  }
  if (resourceVersionMatch === 'Exact' && resourceVersion === '0') {
    throw badRequest(
      'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    );
  }
  if (options.sendInitialEvents !== undefined)
    throw badRequest('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list');
}

/**
 * kube-apiserver's rules for a watch (WatchList is on in 1.32): a streaming list is
 * `sendInitialEvents` with resourceVersionMatch=NotOlderThan, and the match is allowed only with it.
 */
function validateWatchOptions(options: ListOptions): void {
  const match = options.resourceVersionMatch;
  if (options.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    throw badRequest(
      'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
  }
  if (match && options.sendInitialEvents === undefined) {
    throw badRequest(
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    );
  }
  if (match && match !== 'NotOlderThan')
    throw badRequest(`resourceVersionMatch: Unsupported value: "${match}": supported values: "NotOlderThan"`);
}

function parseSelector<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw badRequest((err as Error).message);
  }
}

/** A non-negative integer parameter, undefined when absent; anything else is kube's 400. */
export function nonNegativeInteger(value: string | null, name: string): number | undefined {
  if (value === null || value === '') return undefined;
  if (!/^\d+$/.test(value)) throw badRequest(`${name}: Invalid value: "${value}": must be a non-negative integer`);
  return Number(value);
}

function includeObject(value: string | null): ListOptions['includeObject'] {
  if (value === null || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw badRequest(`includeObject: Unsupported value: "${value}": supported values: "Metadata", "None", "Object"`);
}
