/**
 * karmada-search inside the gateway, for the admin (docs/gateway.md, "The search cache"):
 *
 * - **the proxy** `/apis/search.karmada.io/v1alpha1/proxying/<any>/proxy/<path>`, Karmada's plugin
 *   chain: a get, list or watch of a registered resource (no subresource) is answered by the
 *   multi-cluster cache; any other request for a registered resource goes to the one cluster
 *   whose cache holds the object (a create, which names no object, is 405 as in Karmada); all
 *   else (discovery, unregistered resources, non-resource paths) goes to the default cluster.
 * - **the search API** `/apis/search.karmada.io/v1alpha1/search/cache/<path>`: the cached objects
 *   of a resource, by label selector, in Karmada's answer shape.
 *
 * A consistent read (resourceVersion "") waits for the cache to be as fresh as the clusters, or
 * for the stores behind to list again (search/cache-freshness.ts); a read the cache still cannot
 * answer (a cluster that does not answer its list) is 503.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { readBody, sendJson, sendStatus } from '../../apiserver/handlers/http-io.js';
import { isObject } from '../../apiserver/json.js';
import { parseRequestInfo, requestUrl, type ResourceRequestInfo } from '../../apiserver/request-info.js';
import { ApiError, methodNotAllowed, serviceUnavailable } from '../../apiserver/status.js';
import { serveCacheRead } from '../../search/cache-response.js';
import { answerText, CACHE_SOURCE_ANNOTATION } from '../../search/cached-object-text.js';
import { apiVersionOf, type CacheResource } from '../../search/cluster-resource-store.js';
import type { MultiClusterCache } from '../../search/multi-cluster-cache.js';
import { recoverClusterResourceVersion } from '../../search/multi-cluster-resource-version.js';
import { parseSearchPath } from '../../search/search-paths.js';
import { parseLabelSelector, SelectorParseError } from '../../apiserver/selectors/label-selector.js';
import type { ClusterMember } from '../../clusters/cluster-roster.js';
import type { AdminIdentity } from '../auth/authenticate.js';
import { passThrough, passThroughUpgrade } from '../admin/admin-passthrough.js';
import { refuseUpgrade } from '../proxy/upgrade-proxy.js';
import type { GatewayMetrics } from '../observability/metrics.js';

const CACHED_VERBS = new Set(['get', 'list', 'watch']);

export interface SearchApiOptions {
  cache: MultiClusterCache;
  clusterNamed: (name: string) => ClusterMember | undefined;
  defaultCluster: () => ClusterMember | undefined;
  metrics: GatewayMetrics;
}

export class SearchApi {
  constructor(private readonly options: SearchApiOptions) {}

  /** Serves a `proxying` or `search` path; false for any other path of the search group. */
  async handle(req: IncomingMessage, res: ServerResponse, admin: AdminIdentity, pathname: string): Promise<boolean> {
    const target = parseSearchPath(pathname);
    if (target.kind === 'none') return false;
    const query = requestUrl(req.url).searchParams;
    try {
      if (target.kind === 'search') await this.search(req, res, target.category, target.path, query);
      else await this.proxy(req, res, admin, target.path, query);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (!res.headersSent) sendStatus(req, res, err);
    }
    return true;
  }

  /**
   * An upgrade (exec, attach, port-forward) through the proxy: to the cluster whose cache holds
   * the object for a registered resource, else to the default cluster, as requests go. False for
   * any other path.
   */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, admin: AdminIdentity, pathname: string): boolean {
    const target = parseSearchPath(pathname);
    if (target.kind !== 'proxy') return false;
    const query = requestUrl(req.url).searchParams;
    const info = parseRequestInfo(req.method ?? 'GET', target.path, query);
    const path = `${target.path}${query.size ? `?${query.toString()}` : ''}`;
    try {
      const resource = info.isResourceRequest ? this.options.cache.registeredResource(info) : undefined;
      const owner =
        resource && info.isResourceRequest
          ? this.options.cache.locate(resource, info.namespace, info.name).cluster
          : undefined;
      const cluster = owner === undefined ? this.options.defaultCluster() : this.options.clusterNamed(owner);
      if (!cluster) throw serviceUnavailable(`cluster ${owner ?? 'default'} is not reachable`);
      passThroughUpgrade(req, socket, head, admin, cluster, this.options.metrics, path);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      refuseUpgrade(socket, err.status);
    }
    return true;
  }

  private async proxy(
    req: IncomingMessage,
    res: ServerResponse,
    admin: AdminIdentity,
    path: string,
    query: URLSearchParams,
  ): Promise<void> {
    const method = req.method ?? 'GET';
    const info = parseRequestInfo(method, path, query);
    const upstreamPath = `${path}${query.size ? `?${query.toString()}` : ''}`;
    const resource = info.isResourceRequest ? this.options.cache.registeredResource(info) : undefined;
    if (!info.isResourceRequest || !resource) {
      const cluster = this.options.defaultCluster();
      if (!cluster) throw serviceUnavailable('no default cluster is registered and reachable');
      return passThrough(req, res, admin, cluster, this.options.metrics, { path: upstreamPath });
    }
    if (info.subresource === '' && CACHED_VERBS.has(info.verb)) return this.fromCache(req, res, info, resource, query);
    if (info.verb === 'create' && info.name === '') throw methodNotAllowed('create', resource);
    const { cluster: owner } = this.options.cache.locate(resource, info.namespace, info.name);
    const cluster = this.options.clusterNamed(owner);
    if (!cluster) throw serviceUnavailable(`cluster ${owner} is not reachable`);
    const body = info.verb === 'update' ? recoverForCluster(await readBody(req), owner) : undefined;
    return passThrough(req, res, admin, cluster, this.options.metrics, { path: upstreamPath, body });
  }

  private async fromCache(
    req: IncomingMessage,
    res: ServerResponse,
    info: ResourceRequestInfo,
    resource: CacheResource,
    query: URLSearchParams,
  ): Promise<void> {
    const read = {
      resource,
      namespace: info.namespace,
      name: info.name || undefined,
      query,
      watch: info.verb === 'watch',
    };
    const stale = await serveCacheRead(req, res, this.options.cache, read);
    this.options.metrics.cacheReads.inc({ answer: stale ? 'unavailable' : 'cache' });
    if (stale) throw serviceUnavailable(`the search cache cannot answer: ${stale.reason}`);
  }

  /** Karmada's search API: only the `cache` category reads anything; labelSelector is the one option. */
  private async search(
    req: IncomingMessage,
    res: ServerResponse,
    category: string,
    path: string,
    query: URLSearchParams,
  ): Promise<void> {
    if (category === 'opensearch') return sendJson(req, res, 200, {});
    if (category !== 'cache') return sendJson(req, res, 400, { error: 'unrecognized search category' });
    const info = parseRequestInfo('GET', path, query);
    const resource = info.isResourceRequest ? this.options.cache.registeredResource(info) : undefined;
    if (!info.isResourceRequest || !resource || info.subresource !== '')
      return sendJson(req, res, 400, { error: `${path} is not a resource of any ResourceRegistry` });
    let selector;
    try {
      selector = parseLabelSelector(query.get('labelSelector') ?? '');
    } catch (err) {
      if (err instanceof SelectorParseError) return sendJson(req, res, 400, { error: err.message });
      throw err;
    }
    const items: string[] = [];
    for (const store of this.options.cache.storesOf(resource))
      for (const [, object] of store.inKeyOrder(info.namespace))
        if ((info.name === '' || object.metadata.name === info.name) && selector.matches(object.metadata.labels ?? {}))
          items.push(answerText(object, store.type, store.cluster, object.metadata.resourceVersion));
    const head = JSON.stringify({
      kind: `${resource.kind}List`,
      apiVersion: apiVersionOf(resource),
      metadata: {},
    }).slice(0, -1);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(`${head},"items":[${items.join(',')}]}`);
  }
}

/**
 * An update's body as the owning cluster must get it (Karmada's modifyRequest): without the
 * cache's annotation, and with that cluster's own resourceVersion where a read from the cache
 * put the multi-cluster one. A body that is not a JSON object goes as it is.
 */
function recoverForCluster(body: Buffer, cluster: string): Buffer {
  let object: unknown;
  try {
    object = JSON.parse(body.toString('utf8'));
  } catch {
    return body;
  }
  if (!isObject(object) || !isObject(object.metadata)) return body;
  const metadata = object.metadata;
  if (isObject(metadata.annotations)) {
    delete metadata.annotations[CACHE_SOURCE_ANNOTATION];
    if (Object.keys(metadata.annotations).length === 0) delete metadata.annotations;
  }
  if (typeof metadata.resourceVersion === 'string')
    metadata.resourceVersion = recoverClusterResourceVersion(metadata.resourceVersion, cluster);
  return Buffer.from(JSON.stringify(object));
}
