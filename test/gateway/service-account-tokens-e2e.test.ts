import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { connect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { RestClient, type RequestHeaders } from '../../apiserver/client/rest-client.js';
import { parseKubeconfig } from '../../certs/index.js';
import { GATEWAY_AUDIENCE } from '../../translate/kinds/token-request.js';
import { ApiClient } from '../support/api-client.js';
import { waitUntil } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { startStage, type Stage } from '../support/stage.js';
import { makeTempDir } from '../support/temp-dir.js';

const A = 'satokn';
const B = 'satokb';
const CONFIGMAPS_OF_DEV = '/api/v1/namespaces/dev/configmaps';
const PYTHON = '/usr/bin/python3';
/** The Python client's program (test/support/python-client.py); the compiled test runs from dist/test/gateway. */
const PYTHON_SCRIPT = fileURLToPath(new URL('../../../test/support/python-client.py', import.meta.url));

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));

/** The same token with its claims rewritten (its signature then no longer holds). */
function withClaims(token: string, change: (claims: any) => void): string {
  const [header, , signature] = token.split('.');
  const claims = claimsOf(token);
  change(claims);
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}

describe('gateway: ServiceAccount tokens of a tenant, with the real kubectl', function () {
  let stage: Stage;
  let alice: Kubectl;
  let bob: Kubectl;
  let caPem: string;
  let dir: string;
  let removeDir: () => Promise<void>;
  let upstreamAdmin: RestClient;
  const clients: RestClient[] = [];
  /** How far ahead of the real one the cluster's clock for tokens runs: a test sets it to see tokens expire. */
  let tokenClockAheadMs = 0;

  /** A client of the gateway that presents only `token`. */
  const asToken = (token: string) => {
    const client = new RestClient(new URL(stage.gateway.url), { ca: caPem, token });
    clients.push(client);
    return client;
  };

  /** kubectl with a kubeconfig holding only the gateway, its CA and `token`, as a CI job would have it. */
  async function kubectlWithToken(name: string, token: string): Promise<Kubectl> {
    const file = path.join(dir, `${name}.kubeconfig`);
    await writeFile(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: paddock, cluster: {server: "${stage.gateway.url}", certificate-authority-data: ${Buffer.from(caPem).toString('base64')}}}]`,
        `users: [{name: ${name}, user: {token: "${token}"}}]`,
        `contexts: [{name: ${name}, context: {cluster: paddock, user: ${name}}}]`,
        `current-context: ${name}`,
        '',
      ].join('\n'),
    );
    return Kubectl.create(file);
  }

  /** A ServiceAccount `name` in `namespace` of `tenant` that may read (only) ConfigMaps there, and its token through the gateway. */
  async function readerToken(tenant: Kubectl, namespace: string, name: string): Promise<string> {
    await tenant.ok(['create', 'serviceaccount', name, '-n', namespace]);
    await tenant.ok([
      'create',
      'role',
      `${name}-reads`,
      '--verb=get,list,watch',
      '--resource=configmaps',
      '-n',
      namespace,
    ]);
    await tenant.ok([
      'create',
      'rolebinding',
      `${name}-reads`,
      `--role=${name}-reads`,
      `--serviceaccount=${namespace}:${name}`,
      '-n',
      namespace,
    ]);
    return (await tenant.ok(['create', 'token', name, '-n', namespace])).trim();
  }

  /** Runs the tenant's kubectl `deletion`; `client`'s token is then refused (401) within a second of its answer. */
  async function refusedWithinASecondOf(client: RestClient, deletion: string[]): Promise<void> {
    await alice.ok(deletion);
    const deleted = performance.now();
    await waitUntil('token refused', async () => (await client.request('GET', CONFIGMAPS_OF_DEV)).status === 401, {
      timeout: 2000,
      interval: 10,
    });
    expect(performance.now() - deleted).to.be.lessThan(1000);
  }

  before(async () => {
    stage = await startStage('sa-tokens', {
      devcluster: { tokenClock: () => new Date(Date.now() + tokenClockAheadMs) },
    });
    ({ dir, remove: removeDir } = await makeTempDir('sa-tokens'));
    upstreamAdmin = RestClient.fromKubeconfig(stage.upstreamKubeconfig);
    const aliceConfig = await stage.tenant(A);
    caPem = parseKubeconfig(aliceConfig.kubeconfig).caPem;
    alice = await Kubectl.create(aliceConfig.kubeconfigPath);
    bob = await Kubectl.create((await stage.tenant(B)).kubeconfigPath);
    for (const tenant of [alice, bob]) {
      await tenant.ok(['create', 'namespace', 'dev']);
      await tenant.ok(['create', 'namespace', 'other']);
      await tenant.ok(['create', 'configmap', 'settings', '-n', 'dev', '--from-literal=owner=tenant']);
      await tenant.ok(['create', 'configmap', 'elsewhere', '-n', 'other']);
    }
  });
  after(async () => {
    for (const client of clients) client.close();
    upstreamAdmin?.close();
    for (const k of [alice, bob]) await k?.dispose();
    await removeDir?.();
    await stage?.stop();
  });

  it('kubectl create token gives a token for the gateway’s audience, which a kubeconfig uses: the account reads in its namespace, in the tenant’s names', async () => {
    const token = await readerToken(alice, 'dev', 'ci');
    const claims = claimsOf(token);
    expect(claims.aud).to.deep.equal([GATEWAY_AUDIENCE]);
    expect(claims['kubernetes.io'].namespace).to.equal(`${A}-dev`);
    const ci = await kubectlWithToken('ci', token);
    try {
      const whoami = JSON.parse(await ci.ok(['auth', 'whoami', '-o', 'json']));
      expect(whoami.status.userInfo.username).to.equal('system:serviceaccount:dev:ci');
      expect(whoami.status.userInfo.groups).to.have.members([
        'system:serviceaccounts',
        'system:serviceaccounts:dev',
        'system:authenticated',
      ]);
      expect(whoami.status.userInfo.extra['paddock.io/tenant']).to.deep.equal([A]);
      await waitUntil('the grant in force', async () => (await ci.run(['get', 'configmaps', '-n', 'dev'])).code === 0);
      const listed = JSON.parse(await ci.ok(['get', 'configmaps', '-n', 'dev', '-o', 'json']));
      expect(listed.items.map((c: any) => `${c.metadata.namespace}/${c.metadata.name}`)).to.include('dev/settings');
      expect(JSON.stringify(listed)).not.to.contain(`${A}-`);
      const one = JSON.parse(await ci.ok(['get', 'configmap', 'settings', '-n', 'dev', '-o', 'json']));
      expect([one.metadata.namespace, one.data]).to.deep.equal(['dev', { owner: 'tenant' }]);
    } finally {
      await ci.dispose();
    }
  });

  it('the official Python client, @kubernetes/client-node and kubectl exec work with a token kubeconfig, in the tenant’s names', async () => {
    await alice.ok(['create', 'serviceaccount', 'clients', '-n', 'dev']);
    await alice.ok([
      'create',
      'clusterrolebinding',
      'clients-admin',
      '--clusterrole=cluster-admin',
      '--serviceaccount=dev:clients',
    ]);
    const token = (await alice.ok(['create', 'token', 'clients', '-n', 'dev'])).trim();
    const kubectl = await kubectlWithToken('clients', token);
    try {
      await waitUntil('the binding in force', async () => (await kubectl.run(['get', 'configmaps', '-A'])).code === 0);
      const { stdout } = await promisify(execFile)(
        PYTHON,
        [PYTHON_SCRIPT, kubectl.kubeconfig, 'dev', 'from-python', 'py-token'],
        {
          timeout: 90_000,
          env: { PATH: process.env.PATH, HOME: '/nonexistent' },
        },
      );
      const python = JSON.parse(stdout);
      expect(python.created).to.deep.equal({ name: 'from-python', namespace: 'dev' });
      expect(python.read).to.deep.equal({ uid: true, data: { colour: 'blue' } });
      expect(python.selected).to.deep.equal([['dev', 'from-python']]);
      expect(python.deleted).to.deep.include({ status: 'Success', name: 'from-python' });
      expect(python.listed).to.include('settings');
      expect(stdout).not.to.contain(`${A}-`);

      const config = new KubeConfig();
      config.loadFromFile(kubectl.kubeconfig);
      const core = config.makeApiClient(CoreV1Api);
      const made = await core.createNamespacedConfigMap({
        namespace: 'dev',
        body: { metadata: { name: 'from-node' }, data: { colour: 'red' } },
      });
      expect(made.metadata?.namespace).to.equal('dev');
      const listed = await core.listConfigMapForAllNamespaces();
      expect(listed.items.map((c) => `${c.metadata?.namespace}/${c.metadata?.name}`)).to.include.members([
        'dev/settings',
        'dev/from-node',
        'other/elsewhere',
      ]);
      expect(JSON.stringify(listed)).not.to.contain(`${A}-`);

      // An upgrade (exec over WebSocket) waits for the token's review like any request.
      await kubectl.ok(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'box', namespace: 'dev' },
          spec: { containers: [{ name: 'main', image: 'busybox' }] },
        }),
      );
      await waitUntil(
        'the pod running',
        async () =>
          (await kubectl.ok(['get', 'pod', 'box', '-n', 'dev', '-o', 'jsonpath={.status.phase}'])) === 'Running',
      );
      expect(await kubectl.ok(['exec', 'box', '-n', 'dev', '--', 'echo', 'as', 'the', 'account'])).to.equal(
        'as the account\n',
      );
      expect(await kubectl.ok(['exec', '-i', 'box', '-n', 'dev', '--', 'cat'], 'stdin with a token\n')).to.equal(
        'stdin with a token\n',
      );
    } finally {
      await kubectl.dispose();
    }
  });

  it('is forbidden to write, in another namespace and at the cluster scope, as kube words it for the account; auth can-i says so', async () => {
    const ci = await kubectlWithToken('ci-forbidden', await readerToken(alice, 'dev', 'ci2'));
    try {
      await waitUntil('the grant in force', async () => (await ci.run(['get', 'configmaps', '-n', 'dev'])).code === 0);
      // Access reviews answer for the account, as the requests themselves are decided.
      expect(await ci.ok(['auth', 'can-i', 'list', 'configmaps', '-n', 'dev'])).to.equal('yes\n');
      expect((await ci.run(['auth', 'can-i', 'create', 'configmaps', '-n', 'dev'])).stdout).to.equal('no\n');
      expect((await ci.run(['auth', 'can-i', 'list', 'configmaps', '-n', 'other'])).stdout).to.equal('no\n');
      const write = await ci.run(['create', 'configmap', 'mine', '-n', 'dev']);
      expect(write.stderr).to.contain(
        'User "system:serviceaccount:dev:ci2" cannot create resource "configmaps" in API group "" in the namespace "dev"',
      );
      const other = await ci.run(['get', 'configmaps', '-n', 'other']);
      expect(other.stderr).to.contain(
        'User "system:serviceaccount:dev:ci2" cannot list resource "configmaps" in API group "" in the namespace "other"',
      );
      const all = await ci.run(['get', 'namespaces']);
      expect(all.stderr).to.contain('User "system:serviceaccount:dev:ci2" cannot list resource "namespaces"');
      expect(all.stderr + other.stderr + write.stderr).not.to.contain(`${A}-`);
    } finally {
      await ci.dispose();
    }
  });

  it('deleting the ServiceAccount makes its token 401 within a second of the delete’s answer', async () => {
    const token = await readerToken(alice, 'dev', 'gone');
    const client = asToken(token);
    await waitUntil('the grant in force', async () => (await client.request('GET', CONFIGMAPS_OF_DEV)).status === 200);
    await refusedWithinASecondOf(client, ['delete', 'serviceaccount', 'gone', '-n', 'dev', '--wait=false']);
  });

  it('a token bound to a pod names the pod, and is refused within a second of the pod’s deletion', async () => {
    await readerToken(alice, 'dev', 'podbound');
    await alice.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'holder', namespace: 'dev' },
        spec: { serviceAccountName: 'podbound', containers: [{ name: 'main', image: 'busybox' }] },
      }),
    );
    const token = (
      await alice.ok([
        'create',
        'token',
        'podbound',
        '-n',
        'dev',
        '--bound-object-kind=Pod',
        '--bound-object-name=holder',
      ])
    ).trim();
    const client = asToken(token);
    await waitUntil('the grant in force', async () => (await client.request('GET', CONFIGMAPS_OF_DEV)).status === 200);
    const whoami = await client.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    expect(whoami.body.status.userInfo.username).to.equal('system:serviceaccount:dev:podbound');
    expect(whoami.body.status.userInfo.extra['authentication.kubernetes.io/pod-name']).to.deep.equal(['holder']);
    await refusedWithinASecondOf(client, ['delete', 'pod', 'holder', '-n', 'dev', '--wait=false']);
  });

  it('a watch the token opened ends once its account is deleted', async () => {
    const token = await readerToken(alice, 'dev', 'watcher');
    const client = asToken(token);
    await waitUntil('the grant in force', async () => (await client.request('GET', CONFIGMAPS_OF_DEV)).status === 200);
    const watching = new ApiClient(new URL(stage.gateway.url), { ca: caPem, token });
    clients.push(watching);
    const watch = watching.watch(`${CONFIGMAPS_OF_DEV}?watch=1`);
    try {
      await watch.waitFor((events) => events.some((e) => e.object?.metadata?.name === 'settings'));
      expect(watch.ended).to.equal(false);
      await alice.ok(['delete', 'serviceaccount', 'watcher', '-n', 'dev', '--wait=false']);
      await waitUntil('the watch ended', () => watch.ended, { timeout: 5000, interval: 20 });
    } finally {
      watch.close();
    }
  });

  it('a ServiceAccount deleted and made again under its name does not revive the old token', async () => {
    const old = await readerToken(alice, 'dev', 'again');
    await alice.ok(['delete', 'serviceaccount', 'again', '-n', 'dev']);
    await alice.ok(['create', 'serviceaccount', 'again', '-n', 'dev']);
    const client = asToken(old);
    await waitUntil('old token refused', async () => (await client.request('GET', CONFIGMAPS_OF_DEV)).status === 401);
    const fresh = asToken((await alice.ok(['create', 'token', 'again', '-n', 'dev'])).trim());
    expect((await fresh.request('GET', CONFIGMAPS_OF_DEV)).status).to.equal(200);
  });

  it('a TokenReview through the gateway answers in the tenant’s names, for the tenant’s API audience; another tenant’s token is no one it knows', async () => {
    const token = await readerToken(alice, 'dev', 'reviewed');
    const review = async (tenant: Kubectl, reviewedToken: string) =>
      JSON.parse(
        await tenant.ok(
          ['create', '--raw', '/apis/authentication.k8s.io/v1/tokenreviews', '-f', '-'],
          JSON.stringify({
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'TokenReview',
            spec: { token: reviewedToken },
          }),
        ),
      ).status;
    const own = await review(alice, token);
    expect(own.authenticated).to.equal(true);
    expect(own.user.username).to.equal('system:serviceaccount:dev:reviewed');
    expect(own.user.groups).to.include.members(['system:serviceaccounts', 'system:serviceaccounts:dev']);
    expect(own.audiences ?? []).to.deep.equal([]);
    expect(JSON.stringify(own)).not.to.contain(`${A}-`);
    const foreign = await review(bob, token);
    expect(foreign.authenticated).to.equal(false);
    expect(JSON.stringify(foreign)).not.to.contain('reviewed');
  });

  it('the gateway’s serving certificate names kubernetes.default.svc and its shorter forms, as a cluster’s does', async () => {
    const { port } = new URL(stage.gateway.url);
    for (const servername of [
      'kubernetes',
      'kubernetes.default',
      'kubernetes.default.svc',
      'kubernetes.default.svc.cluster.local',
    ]) {
      const socket = connect({ host: '127.0.0.1', port: Number(port), servername, ca: caPem });
      try {
        await once(socket, 'secureConnect');
        expect(socket.authorized, servername).to.equal(true);
      } finally {
        socket.destroy();
      }
    }
    const elsewhere = connect({ host: '127.0.0.1', port: Number(port), servername: 'kubernetes.example', ca: caPem });
    const [error] = (await once(elsewhere, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).to.equal('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  describe('adversarial', () => {
    it('another tenant’s token is that tenant’s account: it reads the other tenant’s own namespace, never this one’s objects', async () => {
      const bobs = asToken(await readerToken(bob, 'dev', 'spy'));
      await waitUntil('the grant in force', async () => (await bobs.request('GET', CONFIGMAPS_OF_DEV)).status === 200);
      const seen = await bobs.request('GET', CONFIGMAPS_OF_DEV);
      const whoami = await bobs.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'SelfSubjectReview',
      });
      expect(whoami.body.status.userInfo.extra['paddock.io/tenant']).to.deep.equal([B]);
      expect(seen.text).not.to.contain(A);
      await alice.ok(['create', 'configmap', 'alices-only', '-n', 'dev']);
      expect((await bobs.request('GET', `${CONFIGMAPS_OF_DEV}/alices-only`)).status).to.equal(404);
    });

    it('a token whose claims were edited to name another tenant’s namespace is refused (its review fails)', async () => {
      const token = await readerToken(bob, 'dev', 'forger');
      const forged = withClaims(token, (claims) => {
        claims['kubernetes.io'].namespace = `${A}-dev`;
        claims.sub = `system:serviceaccount:${A}-dev:ci`;
      });
      expect((await asToken(forged).request('GET', CONFIGMAPS_OF_DEV)).status).to.equal(401);
    });

    it('a token of the cluster’s own account, even for the gateway’s audience, is refused', async () => {
      const minted = await upstreamAdmin.request(
        'POST',
        '/api/v1/namespaces/kube-system/serviceaccounts/default/token',
        {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: { audiences: [GATEWAY_AUDIENCE] },
        },
      );
      expect(minted.status, minted.text).to.equal(201);
      const answer = await asToken(minted.body.status.token).request('GET', '/api/v1/namespaces');
      expect(answer.status).to.equal(401);
      expect(answer.body).to.include({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    });

    it('the tenant’s account’s own upstream token (the upstream API’s audience) is refused', async () => {
      await readerToken(alice, 'dev', 'podtoken');
      const minted = await upstreamAdmin.request('POST', `/api/v1/namespaces/${A}-dev/serviceaccounts/podtoken/token`, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: {},
      });
      expect(minted.status, minted.text).to.equal(201);
      expect((await asToken(minted.body.status.token).request('GET', CONFIGMAPS_OF_DEV)).status).to.equal(401);
    });

    it('an expired token is refused once its cluster says so, however recently it was reviewed', async () => {
      const token = (await alice.ok(['create', 'token', 'default', '-n', 'dev', '--duration=10m'])).trim();
      const client = asToken(token);
      expect((await client.request('GET', '/api/v1/namespaces/dev/serviceaccounts/default')).status).to.equal(403);
      try {
        tokenClockAheadMs = 11 * 60_000;
        await waitUntil(
          'the expired token refused',
          async () => (await client.request('GET', '/api/v1/namespaces/dev/serviceaccounts/default')).status === 401,
          { timeout: 2000, interval: 20 },
        );
      } finally {
        tokenClockAheadMs = 0;
      }
    });

    it('a token with Impersonate-* headers is refused, as a tenant certificate’s are', async () => {
      const client = asToken(await readerToken(alice, 'dev', 'impostor'));
      await waitUntil(
        'the grant in force',
        async () => (await client.request('GET', CONFIGMAPS_OF_DEV)).status === 200,
      );
      for (const headers of [
        { 'Impersonate-User': `${A}-admin` },
        { 'Impersonate-Group': 'system:masters' },
      ] as RequestHeaders[]) {
        const answer = await client.request('GET', CONFIGMAPS_OF_DEV, undefined, headers);
        expect(answer.status, JSON.stringify(headers)).to.be.oneOf([400, 403]);
        expect(answer.text).not.to.contain('settings');
      }
    });

    it('a token that names no tenant, or is not a token at all, is 401', async () => {
      for (const token of [
        'not-a-token',
        'a.b.c',
        withClaims(await readerToken(alice, 'dev', 'plain'), (c) => delete c['kubernetes.io']),
      ])
        expect((await asToken(token).request('GET', CONFIGMAPS_OF_DEV)).status, token).to.equal(401);
    });
  });
});
