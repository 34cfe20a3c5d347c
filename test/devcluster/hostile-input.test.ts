import { expect } from 'chai';
import fc from 'fast-check';
import { decodeTypeError } from '../../apiserver/validation/decode-types.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { ApiClient } from '../support/api-client.js';
import { testSeed } from '../support/seed.js';
import { makeTempDir } from '../support/temp-dir.js';

/**
 * Randomized bad input: whatever arrives, the answer is a Kubernetes Status with a 4xx code (or
 * a success), never a 5xx or a dropped connection, and the server keeps serving. The failures are
 * collected rather than failing the property, so each message carries the seed to replay them with.
 */
describe('devcluster: hostile input', function () {
  let cluster: DevCluster;
  let api: ApiClient;
  let remove: () => Promise<void>;

  before(async () => {
    const temp = await makeTempDir('hostile');
    remove = temp.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: temp.dir });
    api = await ApiClient.load(cluster.kubeconfigPath);
  });
  after(async () => {
    await cluster?.stop();
    await remove?.();
  });

  const segment = fc.oneof(
    fc.constantFrom(
      'api',
      'apis',
      'v1',
      'apps',
      'namespaces',
      'default',
      'pods',
      'configmaps',
      'deployments',
      'status',
      'scale',
      'log',
      'watch',
      '..',
      '%2F',
      '%00',
      'x'.repeat(300),
    ),
    fc.string({ maxLength: 12 }).map(encodeURIComponent),
  );
  const path = fc.array(segment, { minLength: 0, maxLength: 8 }).map((parts) => `/${parts.join('/')}`);
  const query = fc.constantFrom(
    '',
    '?watch=true&timeoutSeconds=1',
    '?labelSelector=a%20in%20(',
    '?fieldSelector=x%3D%3D%3D',
    '?limit=-1',
    '?resourceVersion=abc',
    '?continue=%7B',
    '?fieldValidation=Nope',
    '?dryRun=Some',
    '?resourceVersionMatch=Exact',
  );
  const metadataValue = fc.oneof(
    fc.constant(null),
    fc.integer(),
    fc.string({ maxLength: 20 }),
    fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null)), {
      maxKeys: 3,
    }),
  );
  const objectBody = fc.record(
    {
      apiVersion: fc.constantFrom('v1', 'apps/v1', 'nope/v9', 7),
      kind: fc.constantFrom('ConfigMap', 'Pod', 'Deployment', 'Namespace', '', 5),
      metadata: fc.oneof(
        fc.record(
          {
            name: metadataValue,
            namespace: metadataValue,
            labels: metadataValue,
            annotations: metadataValue,
            finalizers: metadataValue,
            ownerReferences: metadataValue,
            generateName: metadataValue,
            resourceVersion: metadataValue,
          },
          { requiredKeys: [] },
        ),
        metadataValue,
      ),
      spec: fc.jsonValue({ maxDepth: 3 }),
      data: metadataValue,
    },
    { requiredKeys: [] },
  );
  const body = fc.oneof(
    objectBody.map((o) => JSON.stringify(o)),
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 40 }),
    fc.constant('{"metadata":' + '['.repeat(5000) + ']'.repeat(5000) + '}'),
  );
  const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE');
  const contentType = fc.constantFrom(
    'application/json',
    'application/merge-patch+json',
    'application/json-patch+json',
    'application/strategic-merge-patch+json',
    'application/yaml',
    'text/plain',
    'application/vnd.kubernetes.protobuf',
  );

  it('answers every random request with a success or a 4xx Status and keeps serving', async () => {
    const { seed, note } = testSeed(import.meta.url);
    const failures: string[] = [];
    await fc.assert(
      fc.asyncProperty(method, path, query, body, contentType, async (m, p, q, b, ct) => {
        const res = await api.request(m, p + q, m === 'GET' ? undefined : b, { 'Content-Type': ct });
        const described = `${m} ${p}${q} [${ct}] ${b.slice(0, 120)} → ${res.status} ${res.text.slice(0, 200)}`;
        if (res.status >= 500 || res.status === 0) failures.push(described);
        if (res.status >= 400 && (res.body?.kind !== 'Status' || res.body.code !== res.status))
          failures.push(`not a Status: ${described}`);
        return true;
      }),
      { numRuns: 400, seed },
    );
    expect(failures, `${note}:\n${failures.slice(0, 5).join('\n')}`).to.deep.equal([]);
    expect((await api.request('GET', '/healthz')).text).to.equal('ok');
  });

  it('keeps stored objects well-typed under random patches of every type', async () => {
    const { seed, note } = testSeed(import.meta.url);
    const failures: string[] = [];
    const path = '/api/v1/namespaces/default/configmaps/patched';
    await api.request('POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'patched', labels: { a: 'b' } },
      data: { k: 'v' },
    });
    const patchBody = fc.oneof(
      objectBody.map((o) => JSON.stringify(o)),
      fc
        .array(
          fc.record(
            {
              op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'),
              path: fc.constantFrom(
                '/metadata/labels/x',
                '/metadata/labels',
                '/metadata',
                '/data/k',
                '/metadata/finalizers/-',
                '/kind',
                '',
                '/metadata/name',
              ),
              value: fc.jsonValue({ maxDepth: 2 }),
              from: fc.constantFrom('/data', '/metadata/labels'),
            },
            { requiredKeys: ['op', 'path'] },
          ),
          { maxLength: 3 },
        )
        .map((ops) => JSON.stringify(ops)),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(contentType, patchBody, async (ct, b) => {
        const res = await api.request('PATCH', path, b, { 'Content-Type': ct });
        if (res.status >= 500) failures.push(`${ct} ${b.slice(0, 150)} → ${res.status} ${res.text.slice(0, 200)}`);
        const live = await api.request('GET', path);
        if (live.status === 200) {
          const error = decodeTypeError('', 'ConfigMap', live.body);
          if (error) failures.push(`stored a mistyped object after ${ct} ${b.slice(0, 150)}: ${error}`);
        } else if (live.status === 404) {
          await api.request('POST', '/api/v1/namespaces/default/configmaps', {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'patched' },
          });
        } else {
          failures.push(`GET after patch → ${live.status}`);
        }
        return true;
      }),
      { numRuns: 300, seed },
    );
    expect(failures, `${note}:\n${failures.slice(0, 5).join('\n')}`).to.deep.equal([]);
  });

  it('answers random metadata on create in existing resources with 201 or a 4xx Status', async () => {
    const { seed, note } = testSeed(import.meta.url);
    const failures: string[] = [];
    const target = fc.constantFrom(
      '/api/v1/namespaces/default/configmaps',
      '/api/v1/namespaces',
      '/apis/apps/v1/namespaces/default/deployments',
      '/api/v1/namespaces/default/pods',
    );
    await fc.assert(
      fc.asyncProperty(target, objectBody, async (t, o) => {
        const res = await api.request('POST', `${t}?fieldValidation=Strict`, JSON.stringify(o));
        if (res.status >= 500)
          failures.push(`${t} ${JSON.stringify(o).slice(0, 200)} → ${res.status} ${res.text.slice(0, 200)}`);
        else if (res.status >= 400 && res.body?.kind !== 'Status')
          failures.push(`not a Status: ${res.status} ${res.text.slice(0, 100)}`);
        return true;
      }),
      { numRuns: 300, seed },
    );
    expect(failures, `${note}:\n${failures.slice(0, 5).join('\n')}`).to.deep.equal([]);
  });
});
