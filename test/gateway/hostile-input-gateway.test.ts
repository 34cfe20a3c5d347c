import { expect } from 'chai';
import fc from 'fast-check';
import { ApiClient } from '../support/api-client.js';
import { testSeed } from '../support/seed.js';
import { envelope, lenField, message } from '../support/protobuf-wire.js';
import { startStage, type Stage } from '../support/stage.js';

const RUNS = Number(process.env.GATEWAY_FUZZ_RUNS ?? 10_000);
/** The seed this fuzz has always run with; PADDOCK_TEST_SEED replaces it (test/support/seed.ts). */
const PINNED_SEED = 777;

/**
 * At least 10,000 generated requests from one tenant — malformed bodies, wrong content types,
 * path tricks, names carrying the other tenant's prefix, impersonation headers, deep JSON — and
 * every answer must be a success or a 4xx Kubernetes Status, with nothing of the other tenant in
 * it, and the gateway serving afterwards.
 */
describe('gateway: hostile input from a tenant (fuzz)', function () {
  this.timeout(180_000);
  let attacker: ApiClient;
  let stage: Stage;
  const victimSecret = 'vicsecret';

  before(async () => {
    stage = await startStage('fuzz');
    const clients: ApiClient[] = [];
    for (const id of ['fuzzer', 'victim']) clients.push(await ApiClient.load((await stage.tenant(id)).kubeconfigPath));
    const [fuzzer, victim] = clients as [ApiClient, ApiClient];
    attacker = fuzzer;
    await victim.request('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: victimSecret },
    });
    await victim.request('POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${victimSecret}-cm` },
      data: { k: victimSecret },
    });
    await victim.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `${victimSecret}-role` },
      rules: [],
    });
    victim.close();
  });
  after(async () => {
    attacker?.close();
    await stage?.stop();
  });

  const segment = fc.oneof(
    fc.constantFrom(
      'api',
      'apis',
      'v1',
      'apps',
      'rbac.authorization.k8s.io',
      'namespaces',
      'default',
      'victim-default',
      `victim-${victimSecret}`,
      'pods',
      'configmaps',
      'clusterroles',
      'nodes',
      'status',
      'log',
      'watch',
      '..',
      '.',
      '',
      '%2F',
      '%2e%2e',
      '%00',
      'tenant.kubezoo.io',
      'x'.repeat(300),
    ),
    fc.string({ maxLength: 10 }).map(encodeURIComponent),
  );
  const randomPath = fc.array(segment, { maxLength: 8 }).map((parts) => `/${parts.join('/')}`);
  const collection = fc.constantFrom(
    '/api/v1/namespaces',
    '/api/v1/namespaces/default/configmaps',
    '/api/v1/namespaces/victim-default/configmaps',
    '/api/v1/configmaps',
    '/api/v1/nodes',
    '/api/v1/persistentvolumes',
    '/apis/apps/v1/namespaces/default/deployments',
    '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
    '/apis/tenant.kubezoo.io/v1alpha1/tenants',
    '/api/v1/namespaces/default/pods',
  );
  const name = fc.constantFrom(
    '',
    '/x',
    '/victim-x',
    `/${victimSecret}`,
    `/victim-${victimSecret}`,
    '/default',
    '/..',
    '/%2F',
    '/a%2Fb',
    `/${'n'.repeat(300)}`,
    '/x/status',
    '/x/log',
    '/x/exec',
  );
  const structuredPath = fc.tuple(collection, name).map(([c, n]) => c + n);
  const path = fc.oneof({ arbitrary: structuredPath, weight: 4 }, { arbitrary: randomPath, weight: 1 });
  // Watches are left out: each would hold a request open for its whole timeout.
  const query = fc.constantFrom(
    '',
    '?labelSelector=a%20in%20(',
    '?fieldSelector=metadata.name%3Dvictim-x',
    '?fieldSelector=metadata.namespace%3Dvictim-default',
    '?limit=2',
    '?continue=garbage',
    '?continue=eyJyIjoxfQ',
    '?resourceVersion=abc',
    '?includeObject=None',
  );
  const metadataValue = fc.oneof(
    fc.constant(null),
    fc.integer(),
    fc.string({ maxLength: 12 }),
    fc.constantFrom('victim-x', 'default', 'n'.repeat(70)),
    fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 2 }),
  );
  const objectBody = fc.record(
    {
      apiVersion: fc.constantFrom(
        'v1',
        'apps/v1',
        'rbac.authorization.k8s.io/v1',
        'stable.example.com/v1',
        'tenant.kubezoo.io/v1alpha1',
        7,
      ),
      kind: fc.constantFrom('ConfigMap', 'Namespace', 'ClusterRole', 'RoleBinding', 'Node', 'Tenant', ''),
      metadata: fc.oneof(
        fc.record(
          {
            name: metadataValue,
            namespace: metadataValue,
            labels: metadataValue,
            ownerReferences: fc.constant([{ apiVersion: 'v1', kind: 'Namespace', name: 'victim-default', uid: 'x' }]),
          },
          { requiredKeys: [] },
        ),
        metadataValue,
      ),
      subjects: fc.constant([{ kind: 'User', name: 'victim-admin', apiGroup: 'rbac.authorization.k8s.io' }]),
      roleRef: fc.constant({ kind: 'ClusterRole', name: 'victim-x', apiGroup: 'rbac.authorization.k8s.io' }),
      data: metadataValue,
    },
    { requiredKeys: [] },
  );
  /** Well-formed protobuf bodies that aim at the other tenant (ASCII only, so the string carries the bytes as they are). */
  const protobufName = fc.constantFrom(
    'x',
    'default',
    'victim-default',
    'victim-x',
    `victim-${victimSecret}`,
    '../victim',
    'n'.repeat(70),
    '',
  );
  const protobufBody = fc
    .tuple(
      fc.constantFrom(
        ['v1', 'ConfigMap'],
        ['v1', 'Namespace'],
        ['rbac.authorization.k8s.io/v1', 'RoleBinding'],
        ['rbac.authorization.k8s.io/v1', 'ClusterRole'],
        ['v1', 'Pod'],
        ['stable.example.com/v1', 'CronTab'],
      ),
      protobufName,
      protobufName,
      protobufName,
    )
    .map(([[apiVersion, kind], name, namespace, target]) => {
      const meta = lenField(
        1,
        message(
          lenField(1, name),
          lenField(3, namespace),
          lenField(13, message(lenField(1, 'Namespace'), lenField(3, target), lenField(5, 'v1'))),
        ),
      );
      const extra =
        kind === 'RoleBinding'
          ? [
              lenField(2, message(lenField(1, 'User'), lenField(3, target))),
              lenField(
                3,
                message(lenField(1, 'rbac.authorization.k8s.io'), lenField(2, 'ClusterRole'), lenField(3, target)),
              ),
            ]
          : [];
      return envelope(apiVersion, kind, message(meta, ...extra)).toString('latin1');
    });
  const body = fc.oneof(
    objectBody.map((o) => JSON.stringify(o)),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 30 }),
    fc.constant('['.repeat(10_000) + ']'.repeat(10_000)),
    fc.constant('k8s\u0000garbage'),
    protobufBody,
  );
  const contentType = fc.constantFrom(
    'application/json',
    'application/merge-patch+json',
    'application/json-patch+json',
    'application/strategic-merge-patch+json',
    'application/apply-patch+yaml',
    'application/yaml',
    'text/plain',
    'application/vnd.kubernetes.protobuf',
  );
  const extraHeaders = fc.constantFrom<Record<string, string>>(
    {},
    { 'Impersonate-User': 'admin' },
    { 'Impersonate-Group': 'system:masters' },
    { 'Impersonate-User': 'victim-admin', 'Impersonate-Group': 'system:masters' },
    { Authorization: 'Bearer nothing' },
  );

  /** The victim's names in an answer, other than those the attacker itself sent. */
  function leaks(answer: string, sent: string): boolean {
    const decoded = (() => {
      try {
        return decodeURIComponent(sent);
      } catch {
        return sent;
      }
    })();
    return [victimSecret, 'victim-'].some(
      (marker) => answer.includes(marker) && !sent.includes(marker) && !decoded.includes(marker),
    );
  }

  it("the leak detector flags the victim's names unless the attacker sent them itself", () => {
    expect(leaks(`{"items":[{"metadata":{"name":"${victimSecret}-cm"}}]}`, '/api/v1/configmaps')).to.equal(true);
    expect(leaks('{"message":"namespaces \\"victim-default\\" not found"}', '/api/v1/namespaces/x')).to.equal(true);
    expect(
      leaks('{"message":"namespaces \\"victim-default\\" not found"}', '/api/v1/namespaces/victim-default'),
    ).to.equal(false);
  });

  it(`answers ${RUNS} generated requests with a success or a 4xx Status, leaking nothing of the other tenant`, async () => {
    const { seed, note } = testSeed(import.meta.url, PINNED_SEED);
    const failures: string[] = [];
    const codes = new Map<number, number>();
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
        path,
        query,
        body,
        contentType,
        extraHeaders,
        async (method, p, q, b, ct, headers) => {
          requests++;
          const res = await attacker.request(method, p + q, method === 'GET' ? undefined : b, {
            'Content-Type': ct,
            ...headers,
          });
          codes.set(res.status, (codes.get(res.status) ?? 0) + 1);
          const described = `${method} ${p}${q} [${ct}] ${JSON.stringify(headers)} ${b.slice(0, 80)} → ${res.status} ${res.text.slice(0, 160)}`;
          if (res.status >= 500 || res.status === 0) failures.push(`5xx: ${described}`);
          if (res.status >= 400 && (res.body?.kind !== 'Status' || res.body.code !== res.status))
            failures.push(`not a Status: ${described}`);
          if (leaks(res.text + JSON.stringify(res.headers), `${p}${q}${b}`)) failures.push(`leak: ${described}`);
          return true;
        },
      ),
      { numRuns: RUNS, seed },
    );
    expect(requests).to.equal(RUNS);
    // The generator must reach the API, not only miss it: successes and several kinds of refusal.
    expect((codes.get(200) ?? 0) + (codes.get(201) ?? 0), `${note}: ${JSON.stringify([...codes])}`).to.be.greaterThan(
      0,
    );
    expect([...codes.keys()].filter((c) => c >= 400).length, `${note}: ${JSON.stringify([...codes])}`).to.be.at.least(
      4,
    );
    expect(failures, `${note}:\n${failures.slice(0, 5).join('\n')}`).to.deep.equal([]);
    // Still serving (the fuzzer may well have deleted its own RBAC, as a cluster admin can).
    expect((await attacker.request('GET', '/version')).body.minor).to.equal('32');
  });
});
