/**
 * Open streams do not outlive the identity that opened them. A tenant's watch, followed log,
 * exec, attach, port-forward and proxy streams are authenticated when they start; each test
 * opens one with a tenant certificate, then rotates the certificate away or deletes the tenant,
 * and expects the stream to end (deadlines are generous: what is asserted is that it ends at
 * all, and that nothing written after the change reaches it).
 */
import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { ClientRequest } from 'node:http';
import { createConnection, type Socket } from 'node:net';
import WebSocket from 'ws';
import { parseKubeconfig } from '../../certs/index.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { startEtcd, type EtcdServer } from '../support/etcd-server.js';
import { waitUntil, type WaitOptions } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { Kubectl } from '../support/kubectl.js';
import { createActiveTenant } from '../support/tenants.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startStage, type Stage } from '../support/stage.js';

const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';
const ROTATE_ANNOTATION = 'kubezoo.io/tenant.rotate';
/** How long a stream may take to end: far above the one second promised, so that only "never" fails. */
const ENDS_WITHIN_MS = 10_000;

/** How the waits here poll: often, and as long as a stream may take to end. */
const STREAM_WAIT: WaitOptions = { timeout: ENDS_WITHIN_MS, interval: 20 };

/** A long GET (a watch, a followed log) read as raw text; `ended` once the connection is over, whichever way. */
class OpenRequest {
  text = '';
  status = 0;
  ended = false;
  private readonly req: ClientRequest;

  constructor(client: ApiClient, path: string) {
    this.req = client.open('GET', path, { Accept: 'application/json' });
    this.req.on('response', (res) => {
      this.status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (this.text += chunk));
      res.on('error', () => undefined);
      res.on('close', () => (this.ended = true));
    });
    this.req.on('error', () => (this.ended = true));
    this.req.end();
  }

  /**
   * The names in the watch events read so far, but for each namespace's `kube-root-ca.crt`
   * (kube-controller-manager writes it there, whenever its pass comes): what the test wrote.
   */
  get names(): string[] {
    return this.text
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line).object?.metadata?.name)
      .filter((name) => name !== 'kube-root-ca.crt');
  }

  close(): void {
    this.req.destroy();
  }
}

/** A WebSocket to the gateway with a tenant's certificate; what it received, and whether it closed. */
function openWebSocket(
  url: string,
  tls: { ca: string; cert: string; key: string },
  protocols: string[] = [],
): Promise<{ ws: WebSocket; received: Buffer[]; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { ca: tls.ca, cert: tls.cert, key: tls.key });
    const received: Buffer[] = [];
    let closed = false;
    ws.on('message', (data: Buffer) => received.push(data));
    ws.on('close', () => (closed = true));
    ws.on('error', (err) => (closed ? undefined : reject(err)));
    ws.on('open', () => resolve({ ws, received, closed: () => closed }));
  });
}

/** A tenant's kubeconfig, its client, its certificate, and the same kubeconfig pointed at another replica. */
interface TenantCredentials {
  id: string;
  kubeconfigPath: string;
  kubeconfig: string;
  client: ApiClient;
  tls: { ca: string; cert: string; key: string };
  server: string;
}

async function credentials(id: string, kubeconfig: string, dir: string, server?: string): Promise<TenantCredentials> {
  const text = server ? kubeconfig.replace(/server: .*/, `server: ${server}`) : kubeconfig;
  const kubeconfigPath = `${dir}/${id}-${Math.random().toString(36).slice(2, 8)}.kubeconfig`;
  await writeFile(kubeconfigPath, text, { mode: 0o600 });
  const parsed = parseKubeconfig(text);
  return {
    id,
    kubeconfigPath,
    kubeconfig: text,
    client: await ApiClient.load(kubeconfigPath),
    tls: { ca: parsed.caPem, cert: parsed.certPem, key: parsed.keyPem },
    server: parsed.server,
  };
}

/** Asks for a new certificate (as `paddock tenant rotate` does) and waits until it is issued; returns the new kubeconfig. */
async function rotate(admin: ApiClient, id: string): Promise<string> {
  const request = `rotation-${Date.now()}`;
  const patched = await admin.request(
    'PATCH',
    `${TENANTS}/${id}`,
    { metadata: { annotations: { [ROTATE_ANNOTATION]: request } } },
    { 'Content-Type': 'application/merge-patch+json' },
  );
  expect(patched.status, patched.text).to.equal(200);
  let tenant: any;
  await waitUntil(
    `tenant ${id} rotated`,
    async () => (tenant = (await admin.request('GET', `${TENANTS}/${id}`)).body)?.status?.rotation === request,
    STREAM_WAIT,
  );
  return Buffer.from(tenant.metadata.annotations['kubezoo.io/tenant.kubeconfig.base64'], 'base64').toString('utf8');
}

async function deleteTenant(admin: ApiClient, id: string): Promise<void> {
  const deleted = await admin.request('DELETE', `${TENANTS}/${id}`);
  expect(deleted.status, deleted.text).to.be.oneOf([200, 202]);
}

async function createPod(client: ApiClient, name: string, namespace = 'default'): Promise<void> {
  const created = await client.request('POST', `/api/v1/namespaces/${namespace}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'main', image: 'busybox', ports: [{ name: 'http', containerPort: 8080 }] }] },
  });
  expect(created.status, created.text).to.equal(201);
}

async function createConfigMap(client: ApiClient, name: string, namespace = 'default'): Promise<void> {
  const created = await client.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name },
  });
  expect(created.status, created.text).to.equal(201);
}

describe('adversarial: open streams outlive the identity that opened them', function () {
  this.timeout(120_000);
  let stage: Stage;
  let admin: ApiClient;
  let dir: string;
  const cleanups: (() => unknown)[] = [];
  let counter = 0;
  const nextId = () => `strm${String(++counter).padStart(2, '0')}`;

  before(async () => {
    stage = await startStage('adv-streams');
    ({ admin, dir } = stage);
  });
  after(async () => {
    await stage?.stop();
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function activeTenant(): Promise<TenantCredentials> {
    const id = nextId();
    const { kubeconfig } = await stage.tenant(id);
    const tenant = await credentials(id, kubeconfig, dir);
    cleanups.push(() => tenant.client.close());
    return tenant;
  }

  it('a watch in one namespace ends when its certificate is rotated away, and shows nothing written after', async () => {
    const old = await activeTenant();
    await createConfigMap(old.client, 'before');
    const watch = new OpenRequest(old.client, '/api/v1/namespaces/default/configmaps?watch=1');
    cleanups.push(() => watch.close());
    await waitUntil('the watch shows what was there', () => watch.names.includes('before'), STREAM_WAIT);

    const fresh = await credentials(old.id, await rotate(admin, old.id), dir);
    cleanups.push(() => fresh.client.close());
    await waitUntil("the old certificate's watch ends", () => watch.ended, STREAM_WAIT);
    await createConfigMap(fresh.client, 'after');
    const renewed = new OpenRequest(fresh.client, '/api/v1/namespaces/default/configmaps?watch=1');
    cleanups.push(() => renewed.close());
    await waitUntil("the new certificate's watch works", () => renewed.names.includes('after'), STREAM_WAIT);
    expect(watch.names).to.deep.equal(['before']);
    expect((await old.client.request('GET', '/api/v1/namespaces/default/configmaps')).status).to.equal(401);
  });

  it('a watch across all namespaces (-A) ends when its tenant is deleted', async () => {
    const tenant = await activeTenant();
    const created = await tenant.client.request('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'shop' },
    });
    expect(created.status, created.text).to.equal(201);
    await createConfigMap(tenant.client, 'in-default');
    await createConfigMap(tenant.client, 'in-shop', 'shop');
    const watch = new OpenRequest(tenant.client, '/api/v1/configmaps?watch=1');
    cleanups.push(() => watch.close());
    await waitUntil(
      'the watch shows both namespaces',
      () => watch.names.includes('in-default') && watch.names.includes('in-shop'),
      STREAM_WAIT,
    );

    await deleteTenant(admin, tenant.id);
    await waitUntil("the deleted tenant's watch ends", () => watch.ended, STREAM_WAIT);
    expect(watch.names.sort()).to.deep.equal(['in-default', 'in-shop']);
  });

  it('kubectl logs -f ends when its certificate is rotated away', async () => {
    const old = await activeTenant();
    await createPod(old.client, 'box');
    const kubectl = await Kubectl.create(old.kubeconfigPath);
    cleanups.push(() => kubectl.dispose());
    const follow = kubectl.start(['logs', '-f', 'box']);
    cleanups.push(() => follow.stop());
    await follow.waitFor(/tick 1/);

    await rotate(admin, old.id);
    await waitUntil(
      'kubectl logs -f exits',
      () => follow.child.exitCode !== null || follow.child.signalCode !== null,
      STREAM_WAIT,
    );
    expect(follow.child.exitCode, follow.output()).to.not.equal(0);
  });

  it('exec and attach sessions (WebSocket) end when their certificate is rotated away', async () => {
    const old = await activeTenant();
    await createPod(old.client, 'box');
    const base = `${old.server.replace(/^https/, 'wss')}/api/v1/namespaces/default/pods/box`;
    const exec = await openWebSocket(`${base}/exec?command=cat&stdin=true&stdout=true`, old.tls, ['v5.channel.k8s.io']);
    const attach = await openWebSocket(`${base}/attach?stdin=true&stdout=true`, old.tls, ['v5.channel.k8s.io']);
    cleanups.push(
      () => exec.ws.terminate(),
      () => attach.ws.terminate(),
    );
    for (const session of [exec, attach]) {
      session.ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('before\n')]));
      await waitUntil(
        'the session echoes',
        () => session.received.some((m) => m[0] === 1 && m.subarray(1).toString().includes('before')),
        STREAM_WAIT,
      );
    }

    await rotate(admin, old.id);
    await waitUntil('the exec session ends', exec.closed, STREAM_WAIT);
    await waitUntil('the attach session ends', attach.closed, STREAM_WAIT);
    const stdout = (session: typeof exec) =>
      session.received
        .filter((m) => m[0] === 1)
        .map((m) => m.subarray(1).toString())
        .join('');
    expect([stdout(exec), stdout(attach)]).to.deep.equal(['before\n', 'before\n']);
  });

  it('kubectl port-forward loses its tunnel when its certificate is rotated away', async () => {
    const old = await activeTenant();
    await createPod(old.client, 'box');
    const kubectl = await Kubectl.create(old.kubeconfigPath);
    cleanups.push(() => kubectl.dispose());
    const port = await freePort();
    const forward = kubectl.start(['port-forward', 'pod/box', `${port}:80`]);
    cleanups.push(() => forward.stop());
    await forward.waitFor(/Forwarding from 127\.0\.0\.1/);
    let echoed = '';
    let connectionClosed = false;
    const connection: Socket = createConnection(port, '127.0.0.1', () => connection.write('before'));
    connection.on('data', (chunk) => (echoed += chunk.toString()));
    connection.on('error', () => undefined);
    connection.on('close', () => (connectionClosed = true));
    cleanups.push(() => connection.destroy());
    await waitUntil('the tunnel echoes', () => echoed === 'before', STREAM_WAIT);

    await rotate(admin, old.id);
    await waitUntil(
      'kubectl port-forward exits',
      () => forward.child.exitCode !== null || forward.child.signalCode !== null,
      STREAM_WAIT,
    );
    await waitUntil('the forwarded connection closes', () => connectionClosed, STREAM_WAIT);
    expect(forward.output()).to.match(/lost connection to pod/);
    expect(echoed).to.equal('before');
  });

  it('a WebSocket through pods/proxy ends when its tenant is deleted', async () => {
    const tenant = await activeTenant();
    await createPod(tenant.client, 'web');
    const proxied = await openWebSocket(
      `${tenant.server.replace(/^https/, 'wss')}/api/v1/namespaces/default/pods/web:8080/proxy/socket`,
      tenant.tls,
    );
    cleanups.push(() => proxied.ws.terminate());
    proxied.ws.send('before');
    await waitUntil('the workload echoes', () => proxied.received.some((m) => m.toString() === 'before'), STREAM_WAIT);

    await deleteTenant(admin, tenant.id);
    await waitUntil('the proxied WebSocket ends', proxied.closed, STREAM_WAIT);
    expect(proxied.received.slice(1).map(String)).to.deep.equal(['before']);
  });

  it("a tenant deleted and created again with the same id: the old certificate's open watches get none of the new tenant's objects", async () => {
    const old = await activeTenant();
    const secret = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name },
      stringData: { password: name },
    });
    expect(
      (await old.client.request('POST', '/api/v1/namespaces/default/secrets', secret('old-owner'))).status,
    ).to.equal(201);
    const inNamespace = new OpenRequest(old.client, '/api/v1/namespaces/default/secrets?watch=1');
    const everywhere = new OpenRequest(old.client, '/api/v1/secrets?watch=1');
    cleanups.push(
      () => inNamespace.close(),
      () => everywhere.close(),
    );
    await waitUntil(
      "the watches show the old owner's secret",
      () => inNamespace.names.includes('old-owner') && everywhere.names.includes('old-owner'),
      STREAM_WAIT,
    );

    await deleteTenant(admin, old.id);
    await waitUntil(
      `tenant ${old.id} gone`,
      async () => (await admin.request('GET', `${TENANTS}/${old.id}`)).status === 404,
      { ...STREAM_WAIT, timeout: 60_000 },
    );
    const { kubeconfig } = await stage.tenant(old.id);
    const owner = await credentials(old.id, kubeconfig, dir);
    cleanups.push(() => owner.client.close());
    expect(new X509Certificate(owner.tls.cert).serialNumber).to.not.equal(
      new X509Certificate(old.tls.cert).serialNumber,
    );
    await waitUntil(
      'the new owner can write',
      async () =>
        (await owner.client.request('POST', '/api/v1/namespaces/default/secrets', secret('new-owner'))).status === 201,
      STREAM_WAIT,
    );
    // The new owner's own watch sees its secret: by then the old watches would have too.
    const own = new OpenRequest(owner.client, '/api/v1/secrets?watch=1');
    cleanups.push(() => own.close());
    await waitUntil("the new owner's watch sees its secret", () => own.names.includes('new-owner'), STREAM_WAIT);

    expect(inNamespace.text + everywhere.text, "what the old certificate's watches received").to.not.contain(
      'new-owner',
    );
    expect(inNamespace.ended && everywhere.ended, "the old certificate's watches ended").to.equal(true);
    expect(
      (await old.client.request('GET', '/api/v1/namespaces/default/secrets')).status,
      'the old certificate against the new tenant',
    ).to.equal(401);
  });
});

describe('adversarial: a stream on the replica that did not take the change ends too', function () {
  this.timeout(120_000);
  let etcd: EtcdServer;
  let upstream: DevCluster;
  let replicas: Gateway[] = [];
  const cleanups: (() => unknown)[] = [];

  before(async () => {
    etcd = await startEtcd();
    const upstreamDir = await makeTempDir('adv-replicas-upstream');
    cleanups.push(upstreamDir.remove);
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: upstreamDir.dir });
    const kubeconfig = await readFile(upstream.kubeconfigPath, 'utf8');
    for (const name of ['a', 'b']) {
      const replicaDir = await makeTempDir(`adv-replica-${name}`);
      cleanups.push(replicaDir.remove);
      replicas.push(
        await startGateway({
          listen: '127.0.0.1:0',
          dataDir: replicaDir.dir,
          etcdEndpoints: [etcd.endpoint],
          etcdPrefix: '/adv-streams',
          upstreams: [{ name: 'member1', kubeconfig }],
        }),
      );
    }
  });
  after(async () => {
    // One stop that fails must not leave etcd running or a tenant's key in a temp directory.
    const stops = [...replicas.map((replica) => () => replica.stop()), () => upstream?.stop(), () => etcd?.stop()];
    replicas = [];
    const failures: unknown[] = [];
    for (const stop of [...stops, ...cleanups.reverse()])
      await (async () => stop())().catch((err) => failures.push(err));
    if (failures.length > 0) throw failures[0];
  });

  it('rotation through replica A ends the watch and the exec session open on replica B', async () => {
    const [a, b] = replicas as [Gateway, Gateway];
    const admin = await ApiClient.load(a.adminKubeconfigPath);
    cleanups.push(() => admin.close());
    const { dir, remove } = await makeTempDir('adv-replica-tenant');
    cleanups.push(remove);
    const { kubeconfig } = await createActiveTenant(admin, 'repl01', dir);
    const onB = await credentials('repl01', kubeconfig, dir, b.url);
    cleanups.push(() => onB.client.close());
    await createPod(onB.client, 'box');
    await createConfigMap(onB.client, 'before');
    const watch = new OpenRequest(onB.client, '/api/v1/namespaces/default/configmaps?watch=1');
    cleanups.push(() => watch.close());
    await waitUntil('the watch on B shows what was there', () => watch.names.includes('before'), STREAM_WAIT);
    const exec = await openWebSocket(
      `${b.url.replace(/^https/, 'wss')}/api/v1/namespaces/default/pods/box/exec?command=cat&stdin=true&stdout=true`,
      onB.tls,
      ['v5.channel.k8s.io'],
    );
    cleanups.push(() => exec.ws.terminate());

    const fresh = await credentials('repl01', await rotate(admin, 'repl01'), dir, b.url);
    cleanups.push(() => fresh.client.close());
    await waitUntil('the watch on B ends', () => watch.ended, STREAM_WAIT);
    await waitUntil('the exec session on B ends', exec.closed, STREAM_WAIT);
    await createConfigMap(fresh.client, 'after');
    expect(watch.names).to.deep.equal(['before']);
  });
});
