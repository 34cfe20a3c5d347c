import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceCatalog } from '../catalog.js';
import { openapiV3Document, openapiV3DocumentHash, openapiV3Index } from '../openapi/v3.js';
import { sendJson } from './http-io.js';

/**
 * `/openapi/v3` and its group-version documents, rebuilt only when the catalog changes (a CRD
 * added, changed or removed). A document fetched by its current hash is immutable (kubectl's disk
 * cache reuses it without asking again), so the hash changes whenever the document does.
 * `/openapi/v2` is requested only as protobuf, by nothing kubectl 1.32 does when v3 is served; an
 * empty body is a valid empty document (see docs/devcluster.md).
 */
export class OpenApiHandler {
  private cachedVersion = '';
  private index: unknown;
  private documents = new Map<string, { doc: unknown; hash: string }>();

  constructor(private readonly catalog: ResourceCatalog) {}

  handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): boolean {
    if (path === '/openapi/v2') {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': '0' });
      res.end();
      return true;
    }
    if (path !== '/openapi/v3' && !path.startsWith('/openapi/v3/')) return false;
    this.refresh();
    if (path === '/openapi/v3') {
      sendJson(req, res, 200, this.index, { 'Cache-Control': 'no-cache, private' });
      return true;
    }
    const groupVersion = path.slice('/openapi/v3/'.length);
    const entry = this.documents.get(groupVersion);
    if (!entry) return false;
    const immutable = query.get('hash') === entry.hash;
    sendJson(req, res, 200, entry.doc, {
      'Cache-Control': immutable ? 'public, immutable' : 'no-cache, private',
      Etag: `"${entry.hash}"`,
    });
    return true;
  }

  private refresh(): void {
    if (this.cachedVersion === this.catalog.version) return;
    const resources = this.catalog.resources();
    this.index = openapiV3Index(resources);
    this.documents = new Map();
    const groupVersions = new Set(
      resources.map((r) => (r.group ? `apis/${r.group}/${r.version}` : `api/${r.version}`)),
    );
    for (const gv of groupVersions) {
      const doc = openapiV3Document(gv, resources);
      this.documents.set(gv, { doc, hash: openapiV3DocumentHash(doc) });
    }
    this.cachedVersion = this.catalog.version;
  }
}
