import { JsonAnswerStream, sendJson } from '../../apiserver/handlers/http-io.js';
import { TranslationError } from '../../translate/context.js';
import { renderCollection, type CollectionPage } from '../../translate/list-text.js';
import { sealContinue } from '../../translate/sealed-continue.js';
import { parseJson, rawDown, responseDown, warningsDown } from './answer-down.js';
import { pageDown, streamPage } from './list-page.js';
import { sendAsTenant } from '../auth/tenant-credentials.js';
import { namespacedPath, tenantNamespaceNames } from './tenant-namespaces.js';
import { pathWithQuery, type TenantRequest } from '../server/tenant-request.js';
import { upstreamErrorStatus } from '../upstream/upstream-failure.js';

/** Upstream pages read at most per tenant page, so a sparse list cannot hold a request forever. */
const MAX_UPSTREAM_PAGES = 1000;
/** Namespaces of a cross-namespace list read at once. */
const FAN_OUT_WIDTH = 8;

/**
 * A list in full pages: upstream pages are read until the tenant's page is full or the list
 * ends. A list of a namespaced kind across all namespaces (`get -A`) fans out over the tenant's
 * own namespaces (found by their `kubezoo.io/tenant` label) a few at a time, so it never
 * reads the other tenants' objects; the continue token (sealed) records which namespace and
 * which upstream page come next.
 */
export async function listInPages(r: TenantRequest): Promise<void> {
  const { req, res, ctx, t, upstream, metrics } = r;
  const { continueKey } = r.services;
  const limit = Number(t.query.get('limit') ?? 0);
  const cursor = parseCursor(t.query.get('continue'));
  const paths =
    t.namespaced && !t.info.namespace
      ? (await tenantNamespaceNames(ctx, r.cluster, metrics)).map((name) => namespacedPath(t.path, name))
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
        continueKey,
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
    const response = await sendAsTenant(r, (as) => r.upstreamRequest('list', 'GET', pathWithQuery(path, query), as));
    const whole = streams && response.status === 200 ? await streamPage(r, response, headDown) : undefined;
    if (whole === null) return null;
    const text = whole ?? (await response.body.text());
    const translated = response.status === 200 ? metrics.time('down', () => pageDown(r, text)) : null;
    if (translated) metrics.objectsRead.inc({ cluster: upstream.name }, translated.read);
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
        if (!parsed) return rawDown(r, response, text);
        const body =
          response.status !== 200 || parsed.kind === 'Status'
            ? upstreamErrorStatus(ctx, response.status, text, 'listing failed')
            : responseDown(ctx, parsed, r.rowKind, r.wantsNoObject);
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
      continueKey,
      ctx.tenantId,
      JSON.stringify({ p: paths[index], c: upstreamContinue ?? '' }),
    );
  const answer = new JsonAnswerStream(req, res, 200);
  for (const piece of renderCollection({ ...combined, head: { ...combined.head, metadata } }))
    await answer.write(piece);
  answer.end();
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
