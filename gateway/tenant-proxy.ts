import { requestUrl } from '../apiserver/request-info.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { acceptsAggregatedDiscovery } from '../apiserver/discovery/aggregated.js';
import {
  drained,
  MAX_JSON_DEPTH,
  MAX_REQUEST_BYTES,
  nestedDeeperThan,
  onClose,
  JsonAnswerStream,
  readBody,
  sendJson,
  sendJsonText,
  sendStatus,
} from '../apiserver/handlers/http-io.js';
import { ApiError, statusOf } from '../apiserver/status.js';
import {
  addPrefix,
  apiVersionDown,
  tenantContext,
  tenantPrefix,
  TranslationError,
  type TenantContext,
} from '../translate/context.js';
import { openContinue, sealContinue } from '../translate/sealed-continue.js';
import { apiGroupDown, apiResourceListDown, discoveryPathUp, discoveryRootDown } from '../translate/discovery.js';
import { CollectionStreamDown } from '../translate/list-stream.js';
import { collectionDown, objectTextDown, renderCollection, type CollectionPage } from '../translate/list-text.js';
import { objectDown, objectDownInPlace, objectUp, textDown } from '../translate/objects.js';
import { openapiDocumentDown, openapiIndexDown, openapiPathUp } from '../translate/openapi.js';
import { patchUp, type PatchBodyType } from '../translate/patch.js';
import { protobufBodyUp } from '../translate/protobuf-body.js';
import { assertUnderPrefix } from '../translate/prefix-check.js';
import { requestUp, type TranslatedRequest } from '../translate/request.js';
import { writeBodyType } from '../translate/write-body.js';
import { statusDown } from '../translate/status.js';
import { tableDown, type RowKind } from '../translate/table.js';
import type { Identity } from './authenticate.js';
import { refuseWatch, watchAcrossNamespaces } from './cross-namespace-watch.js';
import { checkedWrite, type WriteRequest } from './checked-write.js';
import { proxySubresource } from './workload-proxy.js';
import { accessReviewOf, answerAccessReview } from './access-review.js';
import { streamBody } from './stream-body.js';
import { isLongRunning, type TenantLimits, type TenantRequestLease } from './tenant-limits.js';
import { namespacedPath, tenantNamespaceNames } from './tenant-namespaces.js';
import { WatchEventsDown, WatchLineMemo, watchLineBatches } from './watch-lines.js';
import type { GatewayMetrics } from './metrics.js';
import { grantNamespace, syncTenantGrants } from '../tenants/tenant-grants.js';
import {
  tenantKindScope,
  type UpstreamConnection,
  type UpstreamResponse,
  type UpstreamScope,
} from './upstream-connection.js';
import { failureStatus, upstreamErrorStatus } from './upstream-failure.js';

type TenantIdentity = Extract<Identity, { kind: 'tenant' }>;

const PATCH_TYPES = new Set([
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
]);
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const OPENAPI_FAILED = 'the cluster could not serve its OpenAPI document';
/** Upstream pages read at most per tenant page, so a sparse list cannot hold a request forever. */
const MAX_UPSTREAM_PAGES = 1000;
/** Namespaces of a cross-namespace list read at once. */
const FAN_OUT_WIDTH = 8;

export interface TenantProxyOptions {
  /** Key for sealing continue tokens, the same on every replica. */
  continueKey: Buffer;
  maxRequestBytes?: number;
  metrics: GatewayMetrics;
  /** Each tenant's share of this replica (tenant-limits.ts). */
  limits: TenantLimits;
}

/**
 * The tenant path of the gateway: every request translated up (translate/), forwarded to the
 * tenant's cluster with the cluster's credentials and the tenant user's identity as
 * impersonation headers, and every response translated down — objects, lists in full pages,
 * Tables, watch streams line by line, Status errors, discovery and OpenAPI.
 */
export class TenantProxy {
  private readonly watchLineMemos = new WeakMap<UpstreamConnection, WatchLineMemo>();
  /** What each request in flight holds of its tenant's limits. */
  private readonly leases = new WeakMap<IncomingMessage, TenantRequestLease>();

  constructor(private readonly options: TenantProxyOptions) {}

  /** A tenant request, admitted within its tenant's limits (429 beyond them) and counted until it ends. */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    identity: TenantIdentity,
    upstream: UpstreamConnection,
  ): Promise<void> {
    let lease: TenantRequestLease;
    try {
      lease = this.options.limits.begin(identity.tenant);
    } catch (err) {
      return sendStatus(req, res, err as ApiError);
    }
    this.leases.set(req, lease);
    try {
      await this.serve(req, res, identity, upstream);
    } finally {
      lease.end();
    }
  }

  private async serve(
    req: IncomingMessage,
    res: ServerResponse,
    identity: TenantIdentity,
    upstream: UpstreamConnection,
  ): Promise<void> {
    const url = requestUrl(req.url);
    const path = url.pathname.replace(/\/+$/, '') || '/';
    let scope: UpstreamScope;
    try {
      scope = await upstream.scope();
    } catch (err) {
      // The cluster's discovery could not be read: told as any request's failure to reach the cluster.
      return sendStatus(req, res, failureStatus(err, `tenant proxy: ${req.method} ${req.url}`));
    }
    const ctx = tenantContext(identity.tenant, tenantKindScope(scope, identity.tenant));
    try {
      if (await this.discovery(req, res, ctx, path, upstream)) return;
      const up = () =>
        this.options.metrics.time('up', () => requestUp(ctx, req.method ?? 'GET', path, url.searchParams));
      let translated: TranslatedRequest | null;
      try {
        translated = up();
      } catch (err) {
        // A resource the cached discovery does not know may be a CRD created a moment ago.
        if (!(err instanceof TranslationError && err.code === 404)) throw err;
        await scope.refresh();
        translated = up();
      }
      if (!translated) throw new TranslationError(404, 'NotFound', 'the server could not find the requested resource');
      await this.forward(req, res, ctx, identity, translated, upstream);
    } catch (err) {
      this.fail(req, res, ctx, err);
    }
  }

  private async forward(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: TenantContext,
    identity: TenantIdentity,
    t: TranslatedRequest,
    upstream: UpstreamConnection,
  ): Promise<void> {
    // Counted against the tenant's open streams from the request as parsed once, here.
    if (isLongRunning(t.info)) this.leaseOf(req).openStream();
    const credentials = await credentialsFor(ctx, identity, t, upstream);
    if (t.info.subresource === 'proxy')
      return proxySubresource(
        req,
        res,
        ctx,
        t,
        upstream,
        credentials,
        requestUrl(req.url).pathname,
        this.options.maxRequestBytes,
      );
    const headers = { ...credentials };
    const send: Send = Object.assign(
      (call: (headers: UpstreamHeaders) => Promise<UpstreamResponse>) =>
        sendAs(ctx, identity, t, upstream, headers, call),
      { headers },
    );
    headers.accept = acceptUp(req.headers.accept);
    const continueToken = t.query.get('continue');
    if (continueToken) t.query.set('continue', openContinue(this.options.continueKey, ctx.tenantId, continueToken));
    const wantsNoObject = t.query.get('includeObject') === 'None';
    if (wantsNoObject) t.query.set('includeObject', 'Metadata');
    let body: string | Buffer | undefined;
    let write: WriteRequest | undefined;
    if (['POST', 'PUT', 'PATCH'].includes(req.method ?? '')) {
      const contentType = (req.headers['content-type'] ?? 'application/json').split(';')[0].trim();
      const raw = await readBody(req, this.options.maxRequestBytes ?? MAX_REQUEST_BYTES);
      const reviewKind =
        req.method === 'POST' && t.info.group === 'authorization.k8s.io' ? ACCESS_REVIEWS[t.info.resource] : undefined;
      if (reviewKind) {
        const review = accessReviewOf(contentType, raw);
        if (review && (await answerAccessReview(req, res, ctx, identity, upstream, reviewKind, review))) return;
      }
      const converted = this.options.metrics.time('up', () =>
        contentType === PROTOBUF ? this.protobufUp(req, ctx, t, raw) : this.bodyUp(req, ctx, t, contentType, raw),
      );
      body = Buffer.isBuffer(converted) ? converted : JSON.stringify(converted);
      write = { ctx, t, method: req.method!, query: t.query, contentType, body, converted };
      headers['content-type'] = contentType;
    } else if (req.method === 'DELETE') {
      const raw = await readBody(req, this.options.maxRequestBytes ?? MAX_REQUEST_BYTES);
      if (raw.length) {
        body = raw.toString('utf8');
        headers['content-type'] = 'application/json';
      }
    }
    const rowKind: RowKind = { group: t.info.group, kind: t.kind, namespaced: t.namespaced };
    if (t.info.verb === 'deletecollection' && !(t.namespaced && t.info.namespace))
      return this.deleteOwnCollection(req, res, ctx, t, upstream, headers, body);
    if (t.info.verb === 'watch') return this.watch(req, res, ctx, t, upstream, send, rowKind);
    if (t.info.resource === 'pods' && t.info.subresource === 'log' && req.method === 'GET')
      return this.streamLog(req, res, ctx, t, upstream, send);
    if (t.info.verb === 'list') return this.list(req, res, ctx, t, upstream, send, rowKind, wantsNoObject);
    const response = write
      ? await checkedWrite(write, (verb, method, query, sent, contentType) =>
          send((as) =>
            this.timedRequest(
              upstream,
              verb,
              method,
              pathWithQuery(t.path, query),
              contentType ? { ...as, 'content-type': contentType } : as,
              sent,
            ),
          ),
        )
      : await send((as) =>
          this.timedRequest(upstream, t.info.verb, req.method ?? 'GET', pathWithQuery(t.path, t.query), as, body),
        );
    const text = await response.body.text();
    if (response.status < 300 && req.method !== 'GET') await afterWrite(ctx, t, upstream, text);
    if (t.info.group === 'apiextensions.k8s.io' && req.method !== 'GET') upstream.invalidate();
    // An object converted from its text, as list items are; a namespace made is parsed, for the index below.
    const made = t.info.group === '' && t.info.resource === 'namespaces' && req.method === 'POST';
    const down =
      response.status < 300 && !made ? this.options.metrics.time('down', () => objectTextDown(ctx, text)) : undefined;
    if (down === null) throw notFound(t);
    if (down !== undefined) return sendJsonText(req, res, response.status, down, warningsDown(ctx, response.headers));
    const parsed = parseJson(text);
    if (!parsed) return this.rawDown(req, res, ctx, response, text);
    // The tenant's next `get -A` must see the namespace it just made, before the index's watch does.
    if (
      t.info.group === '' &&
      t.info.resource === 'namespaces' &&
      response.status === 201 &&
      typeof parsed.metadata?.name === 'string'
    )
      upstream.namespaceIndex.added(ctx.tenantId, parsed.metadata.name);
    const out = this.options.metrics.time('down', () => this.responseDown(ctx, parsed, rowKind, wantsNoObject));
    if (out === null) throw notFound(t);
    sendJson(req, res, response.status, out, warningsDown(ctx, response.headers));
  }

  /**
   * Delete-collection beyond one namespace would reach every tenant's objects upstream. As
   * kube-apiserver does, a cluster-wide delete of a namespaced kind is 405; for cluster-scoped
   * kinds the tenant's own matching objects are listed and deleted one by one.
   */
  private async deleteOwnCollection(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: TenantContext,
    t: TranslatedRequest,
    upstream: UpstreamConnection,
    headers: Record<string, string | string[]>,
    body: string | Buffer | undefined,
  ): Promise<void> {
    if (t.namespaced) {
      throw new TranslationError(
        405,
        'MethodNotAllowed',
        `the server does not allow this method on the requested resource (delete ${t.info.resource})`,
        { group: t.info.group, kind: t.info.resource },
      );
    }
    const query = new URLSearchParams();
    for (const key of ['labelSelector', 'fieldSelector']) {
      const value = t.query.get(key);
      if (value) query.set(key, value);
    }
    const listed = await this.timedRequest(upstream, 'list', 'GET', pathWithQuery(t.path, query), {
      ...headers,
      accept: 'application/json',
    });
    const listText = await listed.body.text();
    const list = parseJson(listText);
    if (listed.status !== 200 || !list)
      return sendJson(req, res, listed.status, upstreamErrorStatus(ctx, listed.status, listText, 'listing failed'));
    const items: Record<string, any>[] = [];
    for (const item of list.items ?? []) {
      const own = objectDown(ctx, { apiVersion: list.apiVersion, kind: t.kind, ...item });
      if (!own) continue;
      const deleted = await this.timedRequest(
        upstream,
        'delete',
        'DELETE',
        `${t.path}/${encodeURIComponent(item.metadata.name)}`,
        { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
        body,
      );
      // As kube: the list holds each object as listed, whether its delete answered it or a Status.
      await deleted.body.text();
      if (deleted.status < 300) items.push(own);
    }
    if (t.info.group === 'apiextensions.k8s.io') upstream.invalidate();
    await afterWrite(ctx, t, upstream, '');
    sendJson(req, res, 200, {
      kind: `${t.kind}List`,
      apiVersion: apiVersionDown(ctx, String(list.apiVersion ?? 'v1')) ?? list.apiVersion,
      metadata: { resourceVersion: list.metadata?.resourceVersion },
      items,
    });
  }

  /**
   * A list in full pages: upstream pages are read until the tenant's page is full or the list
   * ends. A list of a namespaced kind across all namespaces (`get -A`) fans out over the tenant's
   * own namespaces (found by their `kubezoo.io/tenant` label) a few at a time, so it never
   * reads the other tenants' objects; the continue token (sealed) records which namespace and
   * which upstream page come next.
   */
  private async list(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: TenantContext,
    t: TranslatedRequest,
    upstream: UpstreamConnection,
    send: Send,
    rowKind: RowKind,
    wantsNoObject: boolean,
  ): Promise<void> {
    const limit = Number(t.query.get('limit') ?? 0);
    const cursor = parseCursor(t.query.get('continue'));
    const paths =
      t.namespaced && !t.info.namespace
        ? (await tenantNamespaceNames(ctx, upstream, this.options.metrics)).map((name) => namespacedPath(t.path, name))
        : [t.path];
    let combined: CollectionPage | undefined;
    // Resume at the path the token names; if it went away meanwhile, at the next one after it.
    let index = cursor.path === undefined ? 0 : paths.findIndex((path) => path >= cursor.path!);
    if (index < 0) index = paths.length;
    let upstreamContinue: string | undefined = paths[index] === cursor.path ? cursor.continue : undefined;
    let revision: string | undefined;
    // A list of one namespace (or of a cluster-scoped kind) is one upstream page: streamed.
    const streams = paths.length === 1 && index === 0;
    const headDown = (head: Record<string, any>) => {
      if (head.metadata === undefined) return head;
      const metadata = { ...head.metadata };
      delete metadata.remainingItemCount;
      if (limit > 0 && metadata.continue)
        metadata.continue = sealContinue(
          this.options.continueKey,
          ctx.tenantId,
          JSON.stringify({ p: paths[0], c: metadata.continue }),
        );
      else delete metadata.continue;
      return { ...head, metadata };
    };
    const read = async (path: string, continueToken: string | undefined, need: number) => {
      const query = new URLSearchParams(t.query);
      query.delete('continue');
      if (limit > 0) query.set('limit', String(need));
      if (continueToken) {
        query.set('continue', continueToken);
        query.delete('resourceVersion');
        query.delete('resourceVersionMatch');
      }
      const response = await send((as) => this.timedRequest(upstream, 'list', 'GET', pathWithQuery(path, query), as));
      const whole =
        streams && response.status === 200
          ? await this.streamPage(req, res, ctx, upstream, response, rowKind, wantsNoObject, headDown)
          : undefined;
      if (whole === null) return null;
      const text = whole ?? (await response.body.text());
      const translated =
        response.status === 200
          ? this.options.metrics.time('down', () => this.pageDown(ctx, text, rowKind, wantsNoObject))
          : null;
      if (translated) this.options.metrics.objectsRead.inc({ cluster: upstream.name }, translated.read);
      return { response, text, translated };
    };
    for (let round = 0; round < MAX_UPSTREAM_PAGES && index < paths.length; round++) {
      const need = limit > 0 ? limit - (combined?.elements.length ?? 0) : 0;
      // Namespaces are read a window at a time, each asked for the whole remaining page; a
      // namespace resumed mid-way through its pages is read alone.
      const width = upstreamContinue ? 1 : Math.min(FAN_OUT_WIDTH, paths.length - index);
      const pages = await Promise.all(
        Array.from({ length: width }, (_, k) => read(paths[index + k], k === 0 ? upstreamContinue : undefined, need)),
      );
      for (const page of pages) {
        if (!page) return;
        const { response, text, translated } = page;
        if (!translated) {
          const parsed = parseJson(text);
          if (!parsed) return this.rawDown(req, res, ctx, response, text);
          const body =
            response.status !== 200 || parsed.kind === 'Status'
              ? upstreamErrorStatus(ctx, response.status, text, 'listing failed')
              : this.responseDown(ctx, parsed, rowKind, wantsNoObject);
          return sendJson(req, res, response.status, body, warningsDown(ctx, response.headers));
        }
        // A later namespace's page that no longer fits is read again, asked for what is left.
        if (combined && limit > 0 && translated.elements.length > limit - combined.elements.length) break;
        if (!combined) combined = translated;
        else combined.elements.push(...translated.elements);
        // With several namespaces read, the list's resourceVersion is the oldest of them, so a
        // watch from it misses nothing (it may see a change twice, which watches allow).
        const pageRevision = translated.head.metadata?.resourceVersion;
        if (pageRevision && (!revision || Number(pageRevision) < Number(revision))) revision = pageRevision;
        upstreamContinue = translated.head.metadata?.continue || undefined;
        if (upstreamContinue) break;
        index++;
      }
      if (limit > 0 && (combined?.elements.length ?? 0) >= limit) break;
    }
    combined ??= {
      head: {
        kind: `${t.kind}List`,
        apiVersion: t.info.group ? `${t.info.group}/${t.info.version}` : t.info.version,
        metadata: {},
      },
      key: 'items',
      elements: [],
      read: 0,
    };
    const metadata: Record<string, any> = {
      ...(combined.head.metadata ?? {}),
      ...(revision ? { resourceVersion: revision } : {}),
    };
    delete metadata.remainingItemCount;
    delete metadata.continue;
    if (limit > 0 && index < paths.length)
      metadata.continue = sealContinue(
        this.options.continueKey,
        ctx.tenantId,
        JSON.stringify({ p: paths[index], c: upstreamContinue ?? '' }),
      );
    const answer = new JsonAnswerStream(req, res, 200);
    for (const piece of renderCollection({ ...combined, head: { ...combined.head, metadata } }))
      await answer.write(piece);
    answer.end();
  }

  /**
   * One upstream page sent on as it is converted (translate/list-stream.ts), so the first items
   * reach the tenant while the upstream still sends the last. Returns the whole text instead,
   * having sent nothing, when the answer is not a list or Table that streams.
   */
  private async streamPage(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: TenantContext,
    upstream: UpstreamConnection,
    response: UpstreamResponse,
    rowKind: RowKind,
    wantsNoObject: boolean,
    headDown: (head: Record<string, any>) => Record<string, any>,
  ): Promise<string | null> {
    const stream = new CollectionStreamDown(ctx, rowKind, wantsNoObject, headDown);
    const answer = new JsonAnswerStream(req, res, 200, warningsDown(ctx, response.headers));
    const decoder = new StringDecoder('utf8');
    let converting = 0;
    const down = (convert: () => string) => {
      const start = performance.now();
      const out = convert();
      converting += performance.now() - start;
      return out;
    };
    const close = () => response.body.destroy();
    const unfollow = onClose(res, close);
    try {
      for await (const chunk of response.body)
        await answer.write(down(() => stream.push(decoder.write(chunk as Buffer))));
      await answer.write(down(() => stream.push(decoder.end())));
      if (!stream.end()) return stream.wholeText;
      answer.end();
      this.options.metrics.objectsRead.inc({ cluster: upstream.name }, stream.read);
      this.options.metrics.translation.observe({ direction: 'down' }, converting / 1000);
      return null;
    } catch (err) {
      if (!res.headersSent) throw err;
      // Part of the list is out: cutting the connection is the only way left to say it failed.
      res.destroy();
      return null;
    } finally {
      unfollow();
    }
  }

  /**
   * One upstream page of a list or Table, converted from its text (translate/list-text.ts); null
   * when it is not one. Text that is not what the scanner expects is parsed in full instead.
   */
  private pageDown(ctx: TenantContext, text: string, rowKind: RowKind, wantsNoObject: boolean): CollectionPage | null {
    try {
      return collectionDown(ctx, text, rowKind, wantsNoObject);
    } catch {
      const parsed = parseJson(text);
      if (!parsed || !(Array.isArray(parsed.items) || Array.isArray(parsed.rows)) || parsed.kind === 'Status')
        return null;
      const { items, rows, ...head } = this.responseDown(ctx, parsed, rowKind, wantsNoObject)!;
      const key = Array.isArray(rows) ? 'rows' : 'items';
      return {
        head,
        key,
        elements: (rows ?? items).map((element: unknown) => JSON.stringify(element)),
        read: (parsed.rows ?? parsed.items).length,
      };
    }
  }

  /** Container logs are the tenant's own output: streamed through as they come (`logs -f`). */
  private async streamLog(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: TenantContext,
    t: TranslatedRequest,
    upstream: UpstreamConnection,
    send: Send,
  ): Promise<void> {
    const response = await send((as) => upstream.stream(pathWithQuery(t.path, t.query), { ...as, accept: '*/*' }));
    if (response.status !== 200) {
      const text = await response.body.text();
      return sendJson(
        req,
        res,
        response.status,
        upstreamErrorStatus(ctx, response.status, text, 'the cluster refused the log request'),
      );
    }
    res.writeHead(200, {
      'Content-Type': String(response.headers['content-type'] ?? 'text/plain'),
      'Transfer-Encoding': 'chunked',
    });
    await streamBody(response, res);
  }

  /**
   * A watch streamed line by line; the tenant's hang-up closes the upstream watch. Across all
   * namespaces it fans out over the tenant's namespaces (cross-namespace-watch.ts).
   */
  private async watch(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: TenantContext,
    t: TranslatedRequest,
    upstream: UpstreamConnection,
    send: Send,
    rowKind: RowKind,
  ): Promise<void> {
    const events = new WatchEventsDown(ctx, rowKind);
    const { metrics } = this.options;
    const memo = String(send.headers.accept).includes('as=Table') ? undefined : this.watchLineMemo(upstream);
    if (t.namespaced && !t.info.namespace)
      return watchAcrossNamespaces(req, res, {
        ctx,
        upstream,
        metrics,
        path: t.path,
        query: t.query,
        headers: send.headers,
        events,
        memo,
        lease: this.leaseOf(req),
      });
    const response = await send((as) =>
      metrics.upstream(upstream.name, 'watch', () => upstream.stream(pathWithQuery(t.path, t.query), as)),
    );
    if (response.status !== 200) return refuseWatch(req, res, ctx, response);
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    res.flushHeaders();
    const close = () => response.body.destroy();
    const unfollow = onClose(res, close);
    try {
      for await (const lines of watchLineBatches(response.body)) {
        metrics.watchEventsRead.inc({ cluster: upstream.name }, lines.length);
        let out = '';
        for (const line of lines) out += events.downLine(line, memo) ?? '';
        if (out && !res.write(out) && !res.destroyed) await drained(res, res);
      }
    } catch {
      // The upstream stream ended abnormally or the tenant hung up: end the tenant's stream.
    } finally {
      unfollow();
      if (!res.destroyed) res.end();
    }
  }

  private leaseOf(req: IncomingMessage): TenantRequestLease {
    const lease = this.leases.get(req);
    if (!lease) throw new Error('a request without a lease: handle() admits every request');
    return lease;
  }

  private watchLineMemo(upstream: UpstreamConnection): WatchLineMemo {
    let memo = this.watchLineMemos.get(upstream);
    if (!memo) this.watchLineMemos.set(upstream, (memo = new WatchLineMemo()));
    return memo;
  }

  /**
   * A protobuf body (kubectl's `create` generators and `auth can-i`) rewritten in place and sent
   * on as protobuf (translate/protobuf-body.ts). A subresource other than status carries a kind
   * of its own (TokenRequest, Scale, Eviction) with nothing to rewrite, and goes as it came.
   */
  private protobufUp(req: IncomingMessage, ctx: TenantContext, t: TranslatedRequest, raw: Buffer): Buffer {
    if (req.method === 'PATCH') throw unsupportedPatch();
    const type = writeBodyType(t);
    if (!type) return raw;
    return protobufBodyUp(ctx, raw, {
      apiVersion: type.apiVersion,
      kind: type.kind,
      namespace: t.namespaced ? t.info.namespace : undefined,
    });
  }

  private bodyUp(
    req: IncomingMessage,
    ctx: TenantContext,
    t: TranslatedRequest,
    contentType: string,
    raw: Buffer,
  ): unknown {
    const text = raw.toString('utf8');
    if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
      throw new TranslationError(
        400,
        'BadRequest',
        `the body of the request is nested deeper than ${MAX_JSON_DEPTH} levels`,
      );
    }
    const parsed = parseJson(text);
    if (parsed === undefined) throw new TranslationError(400, 'BadRequest', 'the request body is not valid JSON');
    const type = writeBodyType(t);
    if (!type) return parsed;
    if (req.method === 'PATCH') {
      if (!PATCH_TYPES.has(contentType)) throw unsupportedPatch();
      return patchUp(ctx, contentType as PatchBodyType, parsed, type.apiVersion, type.kind);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new TranslationError(400, 'BadRequest', 'the body of the request must be a JSON object');
    const object = parsed as Record<string, any>;
    if (
      t.namespaced &&
      t.info.namespace &&
      object.metadata &&
      typeof object.metadata === 'object' &&
      object.metadata.namespace === undefined
    ) {
      object.metadata = { ...object.metadata, namespace: t.info.namespace };
    }
    return objectUp(ctx, {
      ...object,
      apiVersion: object.apiVersion ?? type.apiVersion,
      kind: object.kind ?? type.kind,
    });
  }

  private async timedRequest(
    upstream: UpstreamConnection,
    verb: string,
    method: string,
    path: string,
    headers: Record<string, string | string[]>,
    body?: string | Buffer,
  ): Promise<UpstreamResponse> {
    return this.options.metrics.upstream(upstream.name, verb, () => upstream.request(method, path, headers, body));
  }

  /** Any JSON response down: Status, Table, list or object (null when the object is foreign; a list is never foreign, its foreign items are dropped). */
  private responseDown(
    ctx: TenantContext,
    body: Record<string, any>,
    rowKind: RowKind,
    wantsNoObject: boolean,
  ): Record<string, any> | null {
    if (body.kind === 'Status') return statusDown(ctx, body);
    if (body.kind === 'Table') {
      const table = tableDown(ctx, body, rowKind);
      if (wantsNoObject) table.rows = table.rows.map((row: Record<string, unknown>) => ({ ...row, object: null }));
      return table;
    }
    // The body was parsed for this request alone: converted where it lies, no copies.
    if (objectDownInPlace(ctx, body)) return body;
    return Array.isArray(body.items) ? { ...body, items: [] } : null;
  }

  private async discovery(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: TenantContext,
    path: string,
    upstream: UpstreamConnection,
  ): Promise<boolean> {
    if (path === '/openapi/v2') {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': '0' });
      res.end();
      return true;
    }
    if (path === '/openapi/v3' || path.startsWith('/openapi/v3/')) {
      const query = requestUrl(req.url).search;
      if (path === '/openapi/v3') {
        const doc = await upstream.document('/openapi/v3', 'application/json');
        sendJson(
          req,
          res,
          doc.status,
          doc.status === 200
            ? openapiIndexDown(ctx, JSON.parse(doc.body))
            : upstreamErrorStatus(ctx, doc.status, doc.body, OPENAPI_FAILED),
          { 'Cache-Control': 'no-cache, private' },
        );
        return true;
      }
      const upstreamPath = openapiPathUp(ctx, path);
      if (!upstreamPath)
        throw new TranslationError(404, 'NotFound', 'the server could not find the requested resource');
      const doc = await upstream.document(upstreamPath + query, 'application/json');
      const cache = new URLSearchParams(query).has('hash') ? 'public, immutable' : 'no-cache, private';
      sendJson(
        req,
        res,
        doc.status,
        doc.status === 200
          ? openapiDocumentDown(ctx, JSON.parse(doc.body))
          : upstreamErrorStatus(ctx, doc.status, doc.body, OPENAPI_FAILED),
        { 'Cache-Control': cache },
      );
      return true;
    }
    const parts = path.split('/').filter(Boolean);
    const isDiscovery = (parts[0] === 'api' && parts.length <= 2) || (parts[0] === 'apis' && parts.length <= 3);
    if (!isDiscovery || req.method !== 'GET') return false;
    const upstreamPath = discoveryPathUp(ctx, path);
    if (!upstreamPath) throw new TranslationError(404, 'NotFound', 'the server could not find the requested resource');
    const aggregated = parts.length === 1 ? acceptsAggregatedDiscovery(req.headers.accept ?? '') : null;
    const doc = await upstream.document(upstreamPath, aggregated ? String(req.headers.accept) : 'application/json');
    if (doc.status !== 200) {
      sendJson(
        req,
        res,
        doc.status,
        upstreamErrorStatus(ctx, doc.status, doc.body, 'the cluster could not serve its discovery document'),
      );
      return true;
    }
    const body = JSON.parse(doc.body);
    const down =
      parts.length === 1
        ? discoveryRootDown(ctx, body)
        : parts[0] === 'apis' && parts.length === 2
          ? apiGroupDown(ctx, body)
          : apiResourceListDown(ctx, body);
    if (!down) throw new TranslationError(404, 'NotFound', 'the server could not find the requested resource');
    sendJson(req, res, 200, down, { 'Content-Type': doc.contentType, Vary: 'Accept' });
    return true;
  }

  /** A non-JSON upstream answer: its status with the text stripped of the prefix. */
  private rawDown(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: TenantContext,
    response: UpstreamResponse,
    text: string,
  ): void {
    if (response.status >= 400)
      return sendJson(
        req,
        res,
        response.status,
        upstreamErrorStatus(ctx, response.status, text, textDown(ctx, text.slice(0, 1000))),
      );
    res.writeHead(response.status, { 'Content-Type': String(response.headers['content-type'] ?? 'text/plain') });
    res.end(textDown(ctx, text));
  }

  private fail(req: IncomingMessage, res: ServerResponse, ctx: TenantContext, err: unknown): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof TranslationError) {
      return sendStatus(req, res, statusOf(err.code, err.reason, err.message, err.details as never));
    }
    if (err instanceof ApiError) return sendStatus(req, res, statusDown(ctx, err.status) as never);
    sendStatus(req, res, failureStatus(err, `tenant proxy: ${req.method} ${req.url}`));
  }
}

/** Access reviews the gateway answers itself (access-review.ts). */
const ACCESS_REVIEWS: Readonly<Record<string, 'SelfSubjectAccessReview' | 'SubjectAccessReview'>> = {
  selfsubjectaccessreviews: 'SelfSubjectAccessReview',
  subjectaccessreviews: 'SubjectAccessReview',
};

/** Self reviews are about the caller: they run as the tenant user whatever their scope. */
const SELF_REVIEWS = new Set([
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  'authentication.k8s.io/selfsubjectreviews',
]);

/**
 * Who the request runs as upstream (docs/isolation.md). Inside one of the tenant's namespaces:
 * the tenant user, whom upstream RBAC confines to the tenant's namespaces. At the cluster scope
 * (a cluster-scoped kind, a namespaced kind across all namespaces) and in a namespace that does
 * not exist, the tenant holds no rights upstream: the gateway decides by the tenant's own RBAC,
 * as kube-apiserver would, and sends the request with its own credentials — only ever under the
 * tenant's prefix (`assertUnderPrefix`), and fanned out only over the tenant's namespaces.
 */
async function credentialsFor(
  ctx: TenantContext,
  identity: TenantIdentity,
  t: TranslatedRequest,
  upstream: UpstreamConnection,
): Promise<Record<string, string | string[]>> {
  if (SELF_REVIEWS.has(`${t.info.group}/${t.info.resource}`)) return impersonation(identity);
  if (t.namespaced && t.info.namespace) return impersonation(identity);
  await authorizeHere(ctx, identity, t, upstream);
  return {};
}

/** The gateway's decision by the tenant's RBAC (tenant-authorizer.ts); a denial is kube's 403, an allowed request must name only the tenant's. */
async function authorizeHere(
  ctx: TenantContext,
  identity: TenantIdentity,
  t: TranslatedRequest,
  upstream: UpstreamConnection,
): Promise<void> {
  const namespace = t.namespaced
    ? t.info.namespace
    : t.info.group === '' && t.info.resource === 'namespaces'
      ? t.info.name
      : '';
  const decision = await upstream.authorizer.authorize(ctx, identity, {
    verb: t.info.verb,
    isResourceRequest: true,
    namespace,
    apiGroup: t.info.group,
    resource: t.info.resource,
    subresource: t.info.subresource,
    name: t.info.name,
    path: '',
  });
  if (!decision.allowed)
    throw new TranslationError(403, 'Forbidden', decision.message ?? 'forbidden', {
      name: t.info.name,
      group: t.info.group,
      kind: t.info.resource,
    });
  assertUnderPrefix(ctx, t);
}

type UpstreamHeaders = Record<string, string | string[]>;
/** Sends one upstream request (built by `call` with the headers to use), as sendAs decides; `headers` are the first choice. */
interface Send {
  (call: (headers: UpstreamHeaders) => Promise<UpstreamResponse>): Promise<UpstreamResponse>;
  readonly headers: UpstreamHeaders;
}

/**
 * A request in a namespace runs as the tenant user. Upstream refuses it where the tenant has no
 * grants: a namespace that does not exist (yet), one made a moment ago whose grants the cluster's
 * authorizer has not seen, one whose grants were deleted and not yet healed. Where the tenant's
 * own RBAC allows the request all the same, kube-apiserver would have let it through (to a 404,
 * an empty list, …): the gateway sends it again as itself, under the tenant's prefix only.
 */
async function sendAs(
  ctx: TenantContext,
  identity: TenantIdentity,
  t: TranslatedRequest,
  upstream: UpstreamConnection,
  headers: UpstreamHeaders,
  call: (headers: UpstreamHeaders) => Promise<UpstreamResponse>,
): Promise<UpstreamResponse> {
  const first = await call(headers);
  if (first.status !== 403 || !('impersonate-user' in headers) || !t.namespaced || !t.info.namespace) return first;
  try {
    await authorizeHere(ctx, identity, t, upstream);
  } catch {
    return first;
  }
  first.body.resume();
  const { 'impersonate-user': _user, 'impersonate-group': _groups, ...asGateway } = headers;
  return call(asGateway);
}

/** What a successful write changes beyond itself: a binding or namespace changes the tenant's grants, a role the gateway's decisions. */
async function afterWrite(
  ctx: TenantContext,
  t: TranslatedRequest,
  upstream: UpstreamConnection,
  answer: string,
): Promise<void> {
  const rbac = t.info.group === 'rbac.authorization.k8s.io';
  if (rbac && (t.info.resource === 'clusterroles' || t.info.resource === 'clusterrolebindings'))
    upstream.authorizer.invalidate();
  if (rbac && t.info.resource === 'clusterrolebindings')
    await syncTenantGrants(upstream.admin, ctx.tenantId, await upstream.authorizer.clusterRoleBindings());
  const namespace =
    t.info.group === '' && t.info.resource === 'namespaces' && t.info.verb === 'create'
      ? parseJson(answer)?.metadata?.name
      : undefined;
  if (typeof namespace === 'string') {
    await grantNamespace(upstream.admin, ctx.tenantId, namespace, await upstream.authorizer.clusterRoleBindings());
  }
}

/**
 * The user and each group as its own Impersonate-Group line (docs/design.md, "How the gateway talks upstream"), plus
 * the tenant's own `<tid>-system:authenticated`, which its bindings to `system:authenticated` name
 * upstream (translate/kinds/identity-names.ts).
 */
export function impersonation(identity: TenantIdentity): Record<string, string | string[]> {
  const tenant = tenantPrefix(identity.tenant);
  const groups = [...identity.groups, 'system:authenticated'].map((group) => addPrefix(tenant, group));
  return { 'impersonate-user': identity.user, 'impersonate-group': [...new Set(groups)] };
}

/** What the tenant is told of an object that is not its own: that it does not exist. */
function notFound(t: TranslatedRequest): TranslationError {
  return new TranslationError(404, 'NotFound', `${t.info.resource} "${t.info.name}" not found`, {
    name: t.info.name,
    group: t.info.group,
    kind: t.info.resource,
  });
}

/** JSON or a JSON Table, never protobuf: the gateway must be able to read the answer. */
function acceptUp(accept: string | undefined): string {
  const kept = (accept ?? 'application/json')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.startsWith('application/json') || s === '*/*');
  return kept.length ? kept.join(',') : 'application/json';
}

function pathWithQuery(path: string, query: URLSearchParams): string {
  const q = query.toString();
  return q ? `${path}?${q}` : path;
}

/** Where a paged list goes on: which upstream path (namespace) and which upstream page. */
function parseCursor(token: string | null): { path: string | undefined; continue: string | undefined } {
  if (!token) return { path: undefined, continue: undefined };
  try {
    const cursor = JSON.parse(token) as { p?: unknown; c?: unknown };
    if (typeof cursor.p === 'string' && typeof cursor.c === 'string')
      return { path: cursor.p, continue: cursor.c || undefined };
  } catch {
    // fall through
  }
  throw new TranslationError(400, 'BadRequest', 'continue token is not valid');
}

function unsupportedPatch(): TranslationError {
  return new TranslationError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${[...PATCH_TYPES].join(', ')}`,
  );
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function warningsDown(
  ctx: TenantContext,
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const warning = headers.warning;
  if (!warning) return {};
  return { Warning: textDown(ctx, Array.isArray(warning) ? warning.join(', ') : warning) };
}
