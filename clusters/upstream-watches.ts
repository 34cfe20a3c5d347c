/**
 * Which of the gateway's requests to a cluster are watches, and under which `resource` label they
 * are counted (`paddock_upstream_watches`, docs/metrics.md). Both ways the gateway reaches a
 * cluster are observed (upstream-connection.ts): its REST client, under every informer and
 * reflector (the caches, the namespace index, tenant spaces, the RBAC change feed, the owner
 * reference healer), and its pools, under every forwarded watch. The gateway's metrics keep the
 * count (gateway/observability/metrics.ts, `upstreamWatchOpened`).
 */
import type { ClientRequest } from 'node:http';
import { parseRequestInfo, requestUrl } from '../apiserver/request-info.js';
import { isTenantGroup } from '../translate/context.js';

/**
 * Where the watches of custom resources are counted: their groups are the tenants' (`<tid>-…`,
 * an id in every name) or the cluster's own, neither bounded by the gateway's configuration.
 */
export const CUSTOM_RESOURCES = '(custom resources)';

/** Counts one open watch of `resource`; the function returned ends it (once). */
export type UpstreamWatchOpened = (resource: string) => () => void;

/** The `resource` label of a request to a cluster if it is a watch; undefined for any other request. */
export function watchedResource(method: string, pathWithQuery: string): string | undefined {
  const url = requestUrl(pathWithQuery);
  const info = parseRequestInfo(method, url.pathname, url.searchParams);
  if (!info.isResourceRequest || info.verb !== 'watch') return undefined;
  if (info.group === '') return info.resource;
  return isTenantGroup(info.group) ? CUSTOM_RESOURCES : `${info.resource}.${info.group}`;
}

/**
 * Counts a watch the REST client opens, from its 200 answer until that answer closes, however it
 * ends. A watch is a stream (`req`); a request read whole is none.
 */
export function countRestWatch(
  opened: UpstreamWatchOpened,
  method: string,
  path: string,
  req: ClientRequest | undefined,
): void {
  if (req === undefined) return;
  const resource = watchedResource(method, path);
  if (resource === undefined) return;
  req.once('response', (res) => {
    if (res.statusCode !== 200) return;
    const closed = opened(resource);
    res.once('close', closed);
  });
}

/** Counts a watch answered on the stream pool: `body` is its answer, counted until it closes. */
export function countStreamedWatch(
  opened: UpstreamWatchOpened,
  method: string,
  path: string,
  status: number,
  body: { once(event: 'close', listener: () => void): unknown },
): void {
  const resource = watchedResource(method, path);
  if (resource === undefined || status !== 200) return;
  body.once('close', opened(resource));
}
