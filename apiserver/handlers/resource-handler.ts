import { noteRequestObjectName } from '../request-object-name.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import type { Store } from '../../store/index.js';
import type { PatchType } from '../patch/index.js';
import type { DeleteOptions, GenericRegistry, WriteOptions } from '../registry/generic-registry.js';
import { listObjects } from '../registry/list-objects.js';
import { ObjectFilter } from '../registry/object-filter.js';
import { getScale, patchScale, updateScale } from '../registry/scale.js';
import type { ApiObject } from '../registry/object-store.js';
import type { ResourceRequestInfo } from '../request-info.js';
import type { ResourceInfo } from '../resources/resource-info.js';
import { ApiError, badRequest, methodNotAllowed, pathNotFound, unsupportedMediaType } from '../status.js';
import { queryBool } from '../query-bool.js';
import { buildTable } from '../table/build-table.js';
import type { Printer } from '../table/printers-by-resource.js';
import { decodeObjectBody, mediaType, parseJson, readBody, sendJson } from './http-io.js';
import { parseListOptions, type ListOptions } from './list-options.js';
import { wantsTable } from './negotiation.js';
import { serveWatch } from './watch-stream.js';

export interface ResourceHandlerContext {
  store: Store;
  registry: GenericRegistry;
  printer: Printer;
  bookmarkIntervalMs: number;
}

const PATCH_TYPES: PatchType[] = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];
const APPLY_PATCH = 'application/apply-patch+yaml';
const SERVED_SUBRESOURCES = new Set(['', 'status', 'scale', 'ephemeralcontainers']);

/** Serves one resource request (the verb, group, resource and name are already parsed). */
export async function handleResource(
  req: IncomingMessage,
  res: ServerResponse,
  info: ResourceRequestInfo,
  query: URLSearchParams,
  ctx: ResourceHandlerContext,
): Promise<void> {
  const resource = ctx.registry.info;
  checkScope(info, resource);
  if (
    !SERVED_SUBRESOURCES.has(info.subresource) ||
    (info.subresource && !resource.subresources.some((s) => s.name === info.subresource))
  ) {
    throw pathNotFound();
  }
  if (info.subresource && !['get', 'update', 'patch'].includes(info.verb))
    throw methodNotAllowed(info.verb, ctx.registry.gr);
  if (info.subresource === 'scale') return handleScale(req, res, info, query, ctx);
  if (!info.subresource && !resource.verbs.includes(info.verb)) throw methodNotAllowed(info.verb, ctx.registry.gr);
  const { registry } = ctx;
  switch (info.verb) {
    case 'get': {
      const object = await registry.get(info.namespace, info.name);
      return respondObjects(
        req,
        res,
        200,
        ctx,
        [object],
        { resourceVersion: object.metadata.resourceVersion },
        query,
        true,
      );
    }
    case 'list': {
      const options = parseListOptions(query, false);
      const filter = new ObjectFilter(resource, options.labelSelector, options.fieldSelector);
      const list = await listObjects(ctx.store, registry, info.namespace, filter, options);
      const metadata: Record<string, string> = { resourceVersion: String(list.revision) };
      if (list.continue) metadata.continue = list.continue;
      return respondObjects(req, res, 200, ctx, list.objects, metadata, query, false, options);
    }
    case 'watch': {
      const options = parseListOptions(query, true);
      const filter = new ObjectFilter(resource, options.labelSelector, options.fieldSelector);
      const table = wantsTable(req.headers.accept);
      const render = table
        ? (object: ApiObject, first: boolean) =>
            buildTable(ctx.printer, [object], {
              includeObject: options.includeObject,
              listMeta: {},
              now: new Date(),
              omitHeaders: !first,
            })
        : (object: ApiObject) => object;
      return serveWatch({
        req,
        res,
        store: ctx.store,
        registry,
        namespace: info.namespace,
        name: info.name,
        filter,
        options,
        render,
        bookmarkIntervalMs: ctx.bookmarkIntervalMs,
      });
    }
    case 'create': {
      if (info.name) throw methodNotAllowed('create', ctx.registry.gr);
      const body = decodeObjectBody(await readBody(req), req.headers['content-type']);
      noteRequestObjectName(req, body);
      const options = writeOptions(query, req);
      const created = await registry.create(info.namespace, body, options);
      warn(res, options);
      return respondObjects(req, res, 201, ctx, [created], {}, query, true);
    }
    case 'update': {
      const body = decodeObjectBody(await readBody(req), req.headers['content-type']);
      const options = writeOptions(query, req);
      const updated = await registry.update(info.namespace, info.name, body, info.subresource, options);
      warn(res, options);
      return respondObjects(req, res, 200, ctx, [updated], {}, query, true);
    }
    case 'patch': {
      const contentType = mediaType(req.headers['content-type']);
      if (contentType === APPLY_PATCH && !info.subresource) return serveApply(req, res, info, query, ctx);
      const type = contentType as PatchType;
      if (!PATCH_TYPES.includes(type) || (type === 'application/strategic-merge-patch+json' && !resource.builtin)) {
        throw unsupportedMediaType([
          ...(resource.builtin
            ? PATCH_TYPES
            : PATCH_TYPES.filter((t) => t !== 'application/strategic-merge-patch+json')),
          APPLY_PATCH,
        ]);
      }
      const patch = parseJson(await readBody(req));
      const options = writeOptions(query, req);
      const patched = await registry.patch(info.namespace, info.name, type, patch, info.subresource, options);
      warn(res, options);
      return respondObjects(req, res, 200, ctx, [patched], {}, query, true);
    }
    case 'delete': {
      const deleted = await registry.delete(info.namespace, info.name, await deleteOptions(req, query));
      // A Status goes as it is, also to a client that asked for a Table (kube's transformObject).
      if (deleted.kind === 'Status') return sendJson(req, res, 200, deleted);
      return respondObjects(req, res, 200, ctx, [deleted], {}, query, true);
    }
    case 'deletecollection': {
      // As kube-apiserver: deleting a collection spans one namespace at most.
      if (resource.namespaced && !info.namespace) throw methodNotAllowed('deletecollection', ctx.registry.gr);
      const options = parseListOptions(query, false);
      const filter = new ObjectFilter(resource, options.labelSelector, options.fieldSelector);
      const deleteOpts = await deleteOptions(req, query);
      const list = await listObjects(ctx.store, registry, info.namespace, filter, {
        ...options,
        limit: 0,
        continue: '',
      });
      // kube answers the list of what it set out to delete, as listed; one deleted meanwhile is no error.
      for (const object of list.objects) {
        await registry.delete(object.metadata.namespace ?? '', object.metadata.name, deleteOpts).catch((err) => {
          if (!(err instanceof ApiError && err.code === 404)) throw err;
        });
      }
      return respondObjects(
        req,
        res,
        200,
        ctx,
        list.objects,
        { resourceVersion: String(await ctx.store.currentRevision()) },
        query,
        false,
      );
    }
  }
}

async function handleScale(
  req: IncomingMessage,
  res: ServerResponse,
  info: ResourceRequestInfo,
  query: URLSearchParams,
  ctx: ResourceHandlerContext,
): Promise<void> {
  const { registry } = ctx;
  if (info.verb === 'get') return sendJson(req, res, 200, await getScale(registry, info.namespace, info.name));
  const options: WriteOptions = { ...writeOptions(query, req), managerSubresource: 'scale' };
  if (info.verb === 'update') {
    const body = decodeObjectBody(await readBody(req), req.headers['content-type']);
    return sendJson(req, res, 200, await updateScale(registry, info.namespace, info.name, body, options));
  }
  const type = mediaType(req.headers['content-type']) as PatchType;
  if (!PATCH_TYPES.includes(type)) throw unsupportedMediaType(PATCH_TYPES);
  sendJson(
    req,
    res,
    200,
    await patchScale(registry, info.namespace, info.name, type, parseJson(await readBody(req)), options),
  );
}

/** Server-side apply: the body is YAML (or JSON, which YAML includes); 201 when it created the object. */
async function serveApply(
  req: IncomingMessage,
  res: ServerResponse,
  info: ResourceRequestInfo,
  query: URLSearchParams,
  ctx: ResourceHandlerContext,
): Promise<void> {
  const manager = query.get('fieldManager');
  if (!manager) throw badRequest('fieldManager is required for apply requests');
  const text = (await readBody(req)).toString('utf8');
  let body: unknown;
  try {
    body = parseYaml(text);
  } catch (err) {
    throw badRequest(`error decoding YAML: ${(err as Error).message}`);
  }
  const options = { ...writeOptions(query, req), manager, force: queryBool(query, 'force') };
  const { object, created } = await ctx.registry.apply(info.namespace, info.name, body, options);
  warn(res, options);
  return respondObjects(req, res, created ? 201 : 200, ctx, [object], {}, query, true);
}

function writeOptions(query: URLSearchParams, req: IncomingMessage): WriteOptions {
  const fieldValidation = query.get('fieldValidation') ?? 'Warn';
  if (!['Strict', 'Warn', 'Ignore'].includes(fieldValidation)) {
    throw badRequest(
      `fieldValidation: Unsupported value: "${fieldValidation}": supported values: "Ignore", "Strict", "Warn"`,
    );
  }
  const options: WriteOptions = {
    fieldValidation: fieldValidation as WriteOptions['fieldValidation'],
    dryRun: dryRun(query),
    warnings: [],
  };
  const manager = query.get('fieldManager') || userAgentPrefix(req.headers['user-agent']);
  if (manager) options.manager = manager;
  return options;
}

/** kube's default field manager: the User-Agent up to its first slash (`kubectl/v1.32.5 …` → `kubectl`), printable only. */
function userAgentPrefix(userAgent: string | undefined): string {
  return [...(userAgent ?? '').split('/')[0]]
    .filter((ch) => !/\p{C}/u.test(ch))
    .join('')
    .slice(0, 128);
}

function dryRun(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  if (values.some((v) => v !== 'All'))
    throw badRequest(`dryRun: Unsupported value: "${values.find((v) => v !== 'All')}": supported values: "All"`);
  return values.length > 0;
}

/** One `Warning: 299 - "<text>"` header per warning, as kubectl prints them. */
function warn(res: ServerResponse, options: WriteOptions): void {
  if (options.warnings?.length)
    res.setHeader(
      'Warning',
      options.warnings.map((w) => `299 - ${JSON.stringify(w)}`),
    );
}

function checkScope(info: ResourceRequestInfo, resource: ResourceInfo): void {
  if (!resource.namespaced && info.namespace) throw pathNotFound();
  if (resource.namespaced && !info.namespace && info.name) throw pathNotFound();
  if (resource.namespaced && !info.namespace && info.verb === 'create') throw pathNotFound();
}

/** One object or a list, as JSON or — when kubectl asks for it — as a Table. */
function respondObjects(
  req: IncomingMessage,
  res: ServerResponse,
  code: number,
  ctx: ResourceHandlerContext,
  objects: ApiObject[],
  listMeta: Record<string, string>,
  query: URLSearchParams,
  single: boolean,
  options?: ListOptions,
): void {
  if (wantsTable(req.headers.accept)) {
    const includeObject = options?.includeObject ?? includeObjectOf(query);
    return sendJson(req, res, code, buildTable(ctx.printer, objects, { includeObject, listMeta, now: new Date() }));
  }
  if (single) return sendJson(req, res, code, objects[0]);
  const { registry } = ctx;
  sendJson(req, res, code, {
    kind: registry.info.listKind,
    apiVersion: registry.apiVersion(),
    metadata: listMeta,
    items: objects,
  });
}

function includeObjectOf(query: URLSearchParams): 'None' | 'Metadata' | 'Object' {
  const value = query.get('includeObject');
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}

/**
 * DeleteOptions from the body (kubectl sends `{"propagationPolicy":"Background"}`; its typed
 * clients, as `drain --disable-eviction`, send protobuf) or the query.
 */
async function deleteOptions(req: IncomingMessage, query: URLSearchParams): Promise<DeleteOptions> {
  const body = await readBody(req);
  const options: DeleteOptions = {};
  let parsed: Record<string, any> = {};
  if (body.length > 0) {
    const decoded = decodeObjectBody(body, req.headers['content-type']);
    if (!decoded || typeof decoded !== 'object') throw badRequest('DeleteOptions must be a JSON object');
    parsed = decoded as Record<string, any>;
  }
  const policy = parsed.propagationPolicy ?? query.get('propagationPolicy') ?? undefined;
  if (policy !== undefined) {
    if (!['Background', 'Foreground', 'Orphan'].includes(policy)) {
      throw badRequest(
        `propagationPolicy: Unsupported value: "${String(policy)}": supported values: "Foreground", "Background", "Orphan"`,
      );
    }
    options.propagationPolicy = policy;
  } else if (parsed.orphanDependents === true || queryBool(query, 'orphanDependents')) {
    options.propagationPolicy = 'Orphan';
  }
  if (parsed.preconditions && typeof parsed.preconditions === 'object') options.preconditions = parsed.preconditions;
  options.dryRun = dryRun(query) || (Array.isArray(parsed.dryRun) && parsed.dryRun.includes('All'));
  return options;
}
