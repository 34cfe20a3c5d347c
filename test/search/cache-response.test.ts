/**
 * The multi-cluster cache's answers over real HTTP on loopback: lists joined from cached texts
 * (gzipped when large), objects, Status errors, a watch streamed as JSON lines that ends when its
 * store goes, and a stale read that writes nothing so the caller can answer it from the cluster.
 */
import { expect } from 'chai';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { queryBool } from '../../apiserver/query-bool.js';
import { CACHE_SOURCE_ANNOTATION } from '../../search/cached-object-text.js';
import { serveCacheRead } from '../../search/cache-response.js';
import { MultiClusterCache } from '../../search/multi-cluster-cache.js';
import { MultiClusterResourceVersion } from '../../search/multi-cluster-resource-version.js';
import { PODS, pod } from '../support/cached-objects.js';
import { waitUntil } from '../support/eventually.js';

/** Serves `/api/v1[/namespaces/<ns>]/pods[/<name>]` from the cache; a stale read answers 503 "fallback". */
function serve(cache: MultiClusterCache) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, 'http://cache');
    const match = /^\/api\/v1(?:\/namespaces\/([^/]+))?\/pods(?:\/([^/]+))?$/.exec(url.pathname);
    if (!match) return void res.writeHead(404).end();
    const stale = await serveCacheRead(req, res, cache, {
      resource: PODS,
      namespace: match[1] ?? '',
      name: match[2],
      query: url.searchParams,
      watch: queryBool(url.searchParams, 'watch'),
    });
    if (stale) res.writeHead(503).end(`fallback: ${stale.reason}`);
  };
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const body = res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        resolve({ status: res.statusCode!, headers: res.headers, body: body.toString() });
      });
    })
      .on('error', reject)
      .end();
  });
}

describe('cache: HTTP answers of the multi-cluster cache', () => {
  let server: Server;
  let port: number;
  let cache: MultiClusterCache;

  beforeEach(async () => {
    cache = new MultiClusterCache({ freshnessTimeoutMs: 20 });
    cache.updateCache(
      new Map(['c1', 'c2'].map((cluster) => [cluster, [{ resource: PODS, namespaces: 'all' as const }]])),
      [PODS],
    );
    cache.storeOf('c1', PODS)!.replace([pod('a', { resourceVersion: '3' }), pod('b', { namespace: 'other' })], '5');
    cache.storeOf('c2', PODS)!.replace([pod('c', { resourceVersion: '8' })], '9');
    const handle = serve(cache);
    server = createServer((req, res) => {
      handle(req, res).catch((err: Error) => res.destroy(err));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    cache.stop();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('a list: kind, apiVersion, the multi-cluster resourceVersion, and the items as cached', async () => {
    const answer = await get(port, '/api/v1/pods?limit=2');
    expect(answer.status).to.equal(200);
    expect(answer.headers['content-type']).to.equal('application/json');
    const list = JSON.parse(answer.body);
    expect(Object.keys(list)).to.deep.equal(['kind', 'apiVersion', 'metadata', 'items']);
    expect(list.kind).to.equal('PodList');
    const version = MultiClusterResourceVersion.parse(list.metadata.resourceVersion);
    expect(version.entries()).to.deep.equal([
      ['c1', '5'],
      ['c2', '9'],
    ]);
    expect(list.items.map((item: any) => `${item.metadata.namespace}/${item.metadata.name}`)).to.deep.equal([
      'default/a',
      'other/b',
    ]);
    const rest = JSON.parse((await get(port, `/api/v1/pods?limit=2&continue=${list.metadata.continue}`)).body);
    expect(rest.items.map((item: any) => item.metadata.name)).to.deep.equal(['c']);
    expect(rest.metadata.continue).to.equal(undefined);
  });

  it('a large list is gzipped for a client that takes gzip, and reads the same', async () => {
    const many = Array.from({ length: 600 }, (_, i) =>
      pod(`pod-${String(i).padStart(4, '0')}`, { labels: { bulk: 'x'.repeat(200) } }),
    );
    cache.storeOf('c2', PODS)!.replace(many, '10');
    const zipped = await get(port, '/api/v1/namespaces/default/pods', { 'Accept-Encoding': 'gzip' });
    const plain = await get(port, '/api/v1/namespaces/default/pods');
    expect(zipped.headers['content-encoding']).to.equal('gzip');
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(zipped.body).to.equal(plain.body);
    expect(JSON.parse(plain.body).items).to.have.length(601);
  });

  it('a get answers the object; a missing one and a bad selector answer Status', async () => {
    const found = await get(port, '/api/v1/namespaces/default/pods/c');
    expect(found.status).to.equal(200);
    const object = JSON.parse(found.body);
    expect(object.metadata.annotations).to.deep.equal({ [CACHE_SOURCE_ANNOTATION]: 'c2' });
    expect(MultiClusterResourceVersion.parse(object.metadata.resourceVersion).entries()).to.deep.equal([['c2', '8']]);
    const missing = await get(port, '/api/v1/namespaces/default/pods/nope');
    expect(missing.status).to.equal(404);
    expect(JSON.parse(missing.body)).to.deep.include({
      kind: 'Status',
      reason: 'NotFound',
      message: 'pods "nope" not found',
    });
    const bad = await get(port, '/api/v1/pods?fieldSelector=spec.nope%3Dx');
    expect(bad.status).to.equal(400);
    expect(JSON.parse(bad.body)).to.deep.include({
      reason: 'BadRequest',
      message: 'field label not supported: spec.nope',
    });
  });

  it('a watch streams one JSON event a line, and ends when its store is removed', async () => {
    const lines: string[] = [];
    let ended = false;
    const started = new Promise<IncomingMessage>((resolve, reject) =>
      request({ host: '127.0.0.1', port, path: '/api/v1/namespaces/default/pods?watch=1&resourceVersion=0' }, resolve)
        .on('error', reject)
        .end(),
    );
    const res = await started;
    expect(res.statusCode).to.equal(200);
    let pending = '';
    res.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const complete = pending.split('\n');
      pending = complete.pop()!;
      lines.push(...complete);
    });
    res.on('end', () => (ended = true));
    await waitUntil('the initial events', () => lines.length === 2);
    cache.storeOf('c1', PODS)!.add(pod('d', { resourceVersion: '6' }), '6');
    await waitUntil('the new pod', () => lines.length === 3);
    const events = lines.map((line) => JSON.parse(line));
    expect(events.map((event) => `${event.type} ${event.object.metadata.name}`)).to.deep.equal([
      'ADDED a',
      'ADDED c',
      'ADDED d',
    ]);
    expect(MultiClusterResourceVersion.parse(events[2].object.metadata.resourceVersion).entries()).to.deep.equal([
      ['c1', '6'],
      ['c2', '8'],
    ]);
    cache.updateCache(new Map([['c2', [{ resource: PODS, namespaces: 'all' }]]]), [PODS]);
    await waitUntil('the end of the watch', () => ended);
  });

  it('a stale read writes nothing, for the caller to answer from the cluster', async () => {
    cache.updateCache(
      new Map(['c1', 'c2', 'c3'].map((cluster) => [cluster, [{ resource: PODS, namespaces: 'all' as const }]])),
      [PODS],
    );
    for (const path of ['/api/v1/pods', '/api/v1/namespaces/default/pods/a', '/api/v1/pods?watch=true']) {
      const answer = await get(port, path);
      expect(answer.status, path).to.equal(503);
      expect(answer.body).to.equal('fallback: cluster c3: /v1/pods: its cache has not listed the resource yet');
    }
  });
});
