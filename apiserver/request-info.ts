/**
 * What a request is about, parsed from its method and path as kube-apiserver's RequestInfoFactory
 * does: `/apis/<group>/<version>/namespaces/<ns>/<resource>/<name>/<subresource>`, with `/api/v1`
 * for the core group, the verb from the method (GET without a name is list, `?watch=true` makes
 * it watch, read as query-bool.ts reads it; DELETE without a name is deletecollection) and the
 * namespace's own paths (`/api/v1/namespaces/<ns>/status`) treated as the namespace resource. As in kube, the name of a
 * proxy request is the whole segment (`pods/web:8080/proxy` → name `web:8080`, which is what RBAC
 * resourceNames are matched against); `splitSchemeNamePort` reads the port out of it.
 */
import { queryBool } from './query-bool.js';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface ResourceRequestInfo {
  isResourceRequest: true;
  verb: Verb;
  apiPrefix: 'api' | 'apis';
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments after the subresource (`pods/x/proxy/a/b` → ['a', 'b']); `subresourcePath` keeps kube's exact form. */
  rest: string[];
}

export interface NonResourceRequestInfo {
  isResourceRequest: false;
  verb: string;
  path: string;
}

export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

const METHOD_VERBS: Record<string, Verb> = {
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  GET: 'get',
  HEAD: 'get',
  DELETE: 'delete',
};

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const nonResource: NonResourceRequestInfo = { isResourceRequest: false, verb: method.toLowerCase(), path };
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map(decodeSegment);
  if (parts.length === 0 || (parts[0] !== 'api' && parts[0] !== 'apis')) return nonResource;
  const apiPrefix = parts[0];
  let rest = parts.slice(1);
  let group = '';
  if (apiPrefix === 'apis') {
    if (rest.length < 3) return nonResource;
    group = rest[0]!;
    rest = rest.slice(1);
  } else if (rest.length < 2) {
    return nonResource;
  }
  const version = rest[0];
  rest = rest.slice(1);

  let verb = METHOD_VERBS[method.toUpperCase()];
  if (!verb) return nonResource;
  if (rest[0] === 'watch') {
    // The deprecated /watch/ path prefix.
    verb = 'watch';
    rest = rest.slice(1);
  }

  let namespace = '';
  if (rest[0] === 'namespaces') {
    if (rest.length > 1) {
      namespace = rest[1]!;
      // /namespaces/<ns> and /namespaces/<ns>/{status,finalize} are the namespace object itself.
      if (rest.length > 2 && !['status', 'finalize'].includes(rest[2])) rest = rest.slice(2);
    }
  }
  const [resource = '', name = '', subresource = '', ...extra] = rest;
  const info: ResourceRequestInfo = {
    isResourceRequest: true,
    verb,
    apiPrefix,
    group,
    version,
    namespace: resource === 'namespaces' && rest[0] === 'namespaces' ? '' : namespace,
    resource,
    subresource,
    name,
    rest: extra,
  };
  if (!name) {
    if (verb === 'get') info.verb = queryBool(query, 'watch') ? 'watch' : 'list';
    if (verb === 'delete') info.verb = 'deletecollection';
  } else if (verb === 'get' && queryBool(query, 'watch') && !subresource) {
    // A watch on one object (`?watch=true` with a name) is a watch narrowed by metadata.name.
    info.verb = 'watch';
  }
  return info;
}

/**
 * The path a connect subresource (`proxy`) hands on, as kube-apiserver derives it from the request
 * path (before any trailing slash is trimmed): the segments after `<resource>/<name>/<subresource>`
 * behind a leading slash, empty inner segments kept, and a trailing slash when the request had
 * one. Empty when nothing follows the subresource, which kube answers with a redirect for GET.
 */
export function subresourcePath(rawPath: string, info: ResourceRequestInfo): string {
  const parts = rawPath
    .replace(/^\/+|\/+$/g, '')
    .split('/')
    .map(decodeSegment);
  const prefixParts = (info.group ? 3 : 2) + (info.namespace ? 2 : 0);
  let path = parts.slice(prefixParts + 3).join('/');
  if (path && !path.startsWith('/')) path = `/${path}`;
  if (rawPath.endsWith('/') && !path.endsWith('/')) path += '/';
  return path;
}

/** Where a proxy request goes, from the name segment `[scheme:]name[:port]` (apimachinery's SplitSchemeNamePort). */
export interface ProxyTarget {
  /** `http`, `https`, or '' for http. */
  scheme: string;
  name: string;
  /** As written: a number, a service port name, or '' when none is given. */
  port: string;
}

/** Null when the name segment is not a valid `[scheme:]name[:port]`. */
export function splitSchemeNamePort(id: string): ProxyTarget | null {
  const parts = id.split(':');
  if (parts.length > 3) return null;
  const [scheme = '', name = '', port = ''] = parts.length === 3 ? parts : ['', ...parts];
  if (!name || !['', 'http', 'https'].includes(scheme)) return null;
  return { scheme, name, port };
}

/** A path segment decoded as kube's router does; a malformed escape is kept as sent. */
export function decodeSegment(segment: string): string {
  // Most segments hold no escape: decodeURIComponent is not asked (every request's path passes here).
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The URL of a request. A request target is always a path here, even one starting with `//`,
 * which `new URL(target, base)` would read as a host (and throw on) — a crash waiting for
 * anyone who sends `GET //%00`.
 */
export function requestUrl(target: string | undefined): URL {
  const path = target ?? '/';
  try {
    return new URL(`https://localhost${path.startsWith('/') ? path : `/${path}`}`);
  } catch {
    return new URL('https://localhost/');
  }
}
