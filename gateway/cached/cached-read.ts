/**
 * Tenant get and list of a resource cached for tenants, answered from the cluster's store in the
 * multi-cluster cache (docs/gateway.md, "Tenant reads from the cache"): once the authorization
 * stage (auth/tenant-credentials.ts) found that the cluster would allow them, made as fresh as the
 * request's resourceVersion asks, and converted down item by item as a forwarded list is. Watches
 * are cached-watch.ts's. A read the cache cannot make fresh in time goes to the cluster instead.
 */
import { JsonAnswerStream, sendJsonText } from '../../apiserver/handlers/http-io.js';
import { wantsTable } from '../../apiserver/handlers/negotiation.js';
import { tableText } from '../../apiserver/table/build-table.js';
import { printerFor } from '../../apiserver/table/printers-by-resource.js';
import { notFound } from '../../apiserver/status.js';
import { freshnessOf } from '../../search/cache-freshness.js';
import { parseCacheReadOptions, selects } from '../../search/cache-read-options.js';
import { withTypeMeta } from '../../search/cached-object-text.js';
import type { ClusterResourceStore } from '../../search/cluster-resource-store.js';
import { addPrefix, TranslationError } from '../../translate/context.js';
import { renderCollection } from '../../translate/list-text.js';
import { openContinue, sealContinue } from '../../translate/sealed-continue.js';
import { cachedTableRow, includeObjectOf, tenantItemConverter } from './cached-item.js';
import type { TenantRequest } from '../server/tenant-request.js';

/**
 * A continue token of a list the cache answered starts with this, which no sealed token (base64url)
 * does: a page from the cache continues from the cache, a forwarded page from the cluster.
 */
const CACHE_TOKEN = '~';

type CachedVerb = 'get' | 'list' | 'watch';

/**
 * Whether the cache answers this request: a get, list or watch of a namespaced resource cached
 * for tenants on the tenant's cluster, asking nothing the cache cannot answer as kube-apiserver
 * would (`resourceVersionMatch=Exact`, a streamed list's `sendInitialEvents`, a v1beta1 Table, a
 * resourceVersion that is not a number).
 */
export function readsFromCache(r: TenantRequest): boolean {
  const cache = r.services.cache;
  const { t } = r;
  if (!cache || r.method !== 'GET' || !isCachedVerb(t.info.verb) || t.info.subresource !== '' || !t.namespaced)
    return false;
  // Whether the cache holds the resource first: every read of one it does not hold is forwarded at once.
  const token = t.query.get('continue');
  const cacheToken = token !== null && token.startsWith(CACHE_TOKEN);
  if (!cacheToken && (token || cache.storeFor(r.upstream.name, t.info) === undefined)) return false;
  if (t.query.get('resourceVersionMatch') === 'Exact' || t.query.has('sendInitialEvents')) return false;
  // A resourceVersion that is not a revision is the cluster's to refuse (400), in its own words.
  if (!/^\d*$/.test(t.query.get('resourceVersion') ?? '')) return false;
  return wantsTable(r.req.headers.accept) !== 'v1beta1';
}

/** Answers from the cache, or calls `forward` when the cache cannot answer in time. */
export async function serveFromCache(r: TenantRequest, forward: () => Promise<void>): Promise<void> {
  const cache = r.services.cache!;
  const { t, metrics } = r;
  const verb = t.info.verb as CachedVerb;
  const token = t.query.get('continue');
  const cursor = token ? openCursor(r, token) : undefined;
  // The cluster answers what the cache cannot; a cached page's token means nothing there.
  const elsewhere = (answer?: 'forwarded' | 'denied'): Promise<void> => {
    if (cursor) throw expiredContinue();
    if (answer) metrics.tenantCacheReads.inc({ verb, answer });
    return forward();
  };
  const store = cache.storeFor(r.upstream.name, t.info);
  if (!store) return elsewhere();
  // The cache answers only what the cluster would allow; the rest is the cluster's to answer.
  if (r.cacheDecision === 'unavailable') return elsewhere('forwarded');
  if (r.cacheDecision !== 'allowed') return elsewhere('denied');
  // A page after the first is read as the list was, from the cache as it is (as Karmada's cache does).
  const resourceVersion = cursor ? '0' : (t.query.get('resourceVersion') ?? '');
  const freshness =
    verb === 'watch' && resourceVersion !== '' && resourceVersion !== '0'
      ? { kind: 'watchFrom' as const, resourceVersion }
      : freshnessOf(resourceVersion);
  const stale = await cache.ensureFresh(store, freshness);
  if (stale !== undefined) return elsewhere('forwarded');
  metrics.tenantCacheReads.inc({ verb, answer: 'cache' });
  if (verb === 'get') return answerGet(r, store);
  if (verb === 'list') return answerList(r, store, cursor);
  return cache.watches.join(r, store);
}

function answerGet(r: TenantRequest, store: ClusterResourceStore): void {
  const { t, req, res } = r;
  const object = store.get(addPrefix(r.ctx, t.info.namespace), t.info.name);
  const text = object && tenantItemConverter(r, store)(object);
  if (!object || !text) throw notFound({ group: t.info.group, resource: t.info.resource }, t.info.name);
  const whole = withTypeMeta(store.type, text);
  if (!wantsTable(req.headers.accept)) return sendJsonText(req, res, 200, whole);
  const printer = printerFor(t.info.group, t.info.resource);
  const row = cachedTableRow(printer, whole, includeObjectOf(r), new Date());
  sendJsonText(
    req,
    res,
    200,
    tableText(printer, [row], { listMeta: { resourceVersion: object.metadata.resourceVersion } }),
  );
}

/** Where a list from the cache goes on: after which key, and the list's resourceVersion. */
interface Cursor {
  after: string;
  resourceVersion: string;
}

/**
 * The tenant's objects in key order (kube's order: namespace, then name), from just after the
 * cursor: one namespace's run of keys, or across all namespaces the run of keys that start with
 * the tenant's prefix. Pages are cut at `limit`; the continue token is sealed for the tenant.
 */
async function answerList(r: TenantRequest, store: ClusterResourceStore, cursor: Cursor | undefined): Promise<void> {
  const { t, req, res, ctx } = r;
  const options = parseCacheReadOptions(t.query, store.resource);
  const prefix = t.info.namespace ? `${addPrefix(ctx, t.info.namespace)}/` : ctx.prefix;
  const convert = tenantItemConverter(r, store);
  const elements: string[] = [];
  let lastKey = cursor?.after ?? '';
  let next: string | undefined;
  for (const [key, object] of store.withKeyPrefix(prefix, lastKey)) {
    if (!selects(options, object)) continue;
    if (options.limit > 0 && elements.length === options.limit) {
      next = lastKey;
      break;
    }
    const text = convert(object);
    if (text === null) continue;
    elements.push(withTypeMeta(store.type, text));
    lastKey = key;
  }
  const resourceVersion = cursor?.resourceVersion ?? store.resourceVersion;
  const metadata: Record<string, string> = { resourceVersion };
  if (next !== undefined) metadata.continue = sealCursor(r, { after: next, resourceVersion });
  if (wantsTable(req.headers.accept)) {
    const printer = printerFor(t.info.group, t.info.resource);
    const includeObject = includeObjectOf(r);
    const now = new Date();
    const rows = elements.map((text) => cachedTableRow(printer, text, includeObject, now));
    return sendJsonText(req, res, 200, tableText(printer, rows, { listMeta: metadata }));
  }
  const head = { kind: `${store.type.kind}List`, apiVersion: store.type.apiVersion, metadata };
  const answer = new JsonAnswerStream(req, res, 200);
  for (const piece of renderCollection({ head, key: 'items', elements })) await answer.write(piece);
  answer.end();
}

function sealCursor(r: TenantRequest, cursor: Cursor): string {
  const { continueKey } = r.services;
  return (
    CACHE_TOKEN + sealContinue(continueKey, r.ctx.tenantId, JSON.stringify([cursor.after, cursor.resourceVersion]))
  );
}

/** The cursor of a token the cache sealed; undefined for a forwarded list's token. */
function openCursor(r: TenantRequest, token: string): Cursor | undefined {
  if (!token.startsWith(CACHE_TOKEN)) return undefined;
  const opened: unknown = JSON.parse(openContinue(r.services.continueKey, r.ctx.tenantId, token.slice(1)));
  if (!Array.isArray(opened) || typeof opened[0] !== 'string' || typeof opened[1] !== 'string')
    throw new TranslationError(400, 'BadRequest', 'continue token is not valid');
  return { after: opened[0], resourceVersion: opened[1] };
}

/** kube-apiserver's answer to a continue token it can no longer follow. */
function expiredContinue(): TranslationError {
  return new TranslationError(
    410,
    'Expired',
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
  );
}

function isCachedVerb(verb: string): verb is CachedVerb {
  return verb === 'get' || verb === 'list' || verb === 'watch';
}
