import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { WebSocket } from 'ws';
import {
  parseRequestInfo,
  splitSchemeNamePort,
  subresourcePath,
  type ResourceRequestInfo,
} from '../../apiserver/request-info.js';
import { parseKubeconfig } from '../../certs/index.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { ApiClient } from '../support/api-client.js';
import { waitUntil } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

function resourceInfo(method: string, path: string): ResourceRequestInfo {
  const info = parseRequestInfo(method, path, new URLSearchParams());
  if (!info.isResourceRequest) throw new Error(`${path} parsed as a non-resource request`);
  return info;
}

describe('proxy subresource paths, parsed as kube-apiserver parses them', () => {
  it('takes the verb from the method and keeps the whole name segment (port included) as the name', () => {
    const path = '/api/v1/namespaces/default/pods/web:8080/proxy/a/b';
    const verbs = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].map((method) => resourceInfo(method, path).verb);
    expect(verbs).to.deep.equal(['get', 'get', 'create', 'update', 'patch', 'delete']);
    expect(resourceInfo('GET', path)).to.deep.include({
      namespace: 'default',
      resource: 'pods',
      name: 'web:8080',
      subresource: 'proxy',
      rest: ['a', 'b'],
    });
    expect(resourceInfo('GET', '/api/v1/nodes/n1:10250/proxy/healthz')).to.deep.include({
      namespace: '',
      resource: 'nodes',
      name: 'n1:10250',
      subresource: 'proxy',
    });
    expect(resourceInfo('GET', '/api/v1/namespaces/ns/services/https:web:443/proxy')).to.deep.include({
      resource: 'services',
      name: 'https:web:443',
      subresource: 'proxy',
    });
  });

  it('hands on the path after /proxy with kube’s slashes', () => {
    const pathOf = (path: string) => subresourcePath(path, resourceInfo('GET', path));
    expect(pathOf('/api/v1/namespaces/default/pods/web/proxy')).to.equal('');
    expect(pathOf('/api/v1/namespaces/default/pods/web/proxy/')).to.equal('/');
    expect(pathOf('/api/v1/namespaces/default/pods/web/proxy/a//b/')).to.equal('/a//b/');
    expect(pathOf('/api/v1/namespaces/default/pods/web:80/proxy/hello%20world')).to.equal('/hello world');
    expect(pathOf('/api/v1/nodes/n1/proxy/stats/summary')).to.equal('/stats/summary');
  });

  it('splits [scheme:]name[:port] as apimachinery does', () => {
    expect(splitSchemeNamePort('web')).to.deep.equal({ scheme: '', name: 'web', port: '' });
    expect(splitSchemeNamePort('web:http')).to.deep.equal({ scheme: '', name: 'web', port: 'http' });
    expect(splitSchemeNamePort('https:web:8443')).to.deep.equal({ scheme: 'https', name: 'web', port: '8443' });
    expect(splitSchemeNamePort('https:web:')).to.deep.equal({ scheme: 'https', name: 'web', port: '' });
    expect([
      splitSchemeNamePort('ftp:web:21'),
      splitSchemeNamePort('a:b:c:d'),
      splitSchemeNamePort(':80'),
    ]).to.deep.equal([null, null, null]);
  });
});

const OBJECTS = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        containers: [
          { name: 'main', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] },
          { name: 'exporter', image: 'exporter', ports: [{ containerPort: 9090 }] },
        ],
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'bare' },
      spec: { containers: [{ name: 'main', image: 'busybox' }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'done' },
      spec: { containers: [{ name: 'main', image: 'busybox', ports: [{ containerPort: 80 }] }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'unready', labels: { app: 'lonely' } },
      spec: { containers: [{ name: 'main', image: 'nginx', ports: [{ containerPort: 80 }] }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'bound' },
      spec: {
        nodeName: 'node-1',
        containers: [
          { name: 'a', image: 'a' },
          { name: 'b', image: 'b' },
        ],
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: {
        selector: { app: 'web' },
        ports: [
          { name: 'http', port: 80, targetPort: 'http' },
          { name: 'metrics', port: 9100, targetPort: 9090 },
        ],
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'plain' },
      spec: { selector: { app: 'web' }, ports: [{ port: 8000, targetPort: 8080 }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'empty' },
      spec: { selector: { app: 'nothing' }, ports: [{ port: 80 }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'lonely' },
      spec: { selector: { app: 'lonely' }, ports: [{ port: 80 }] },
    },
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } },
  ],
};

const POD = '/api/v1/namespaces/default/pods';
const SERVICE = '/api/v1/namespaces/default/services';

describe('devcluster proxy subresources (pods, services, nodes) with the real kubectl', function () {
  let cluster: DevCluster;
  let dir: string;
  let remove: () => Promise<void>;
  let kubectl: Kubectl;
  let client: ApiClient;
  let webIp: string;

  /** kubectl's stdout parsed as JSON, failing with kubectl's words when it fails. */
  const rawJson = async (path: string, ...flags: string[]) =>
    JSON.parse(await kubectl.ok(['get', '--raw', path, ...flags]));
  /** kubectl's error line for a request it fails. */
  const rawError = async (args: string[]) => {
    const result = await kubectl.run(args);
    expect(result.code, `kubectl ${args.join(' ')} should fail; it printed ${result.stdout}`).to.equal(1);
    return result.stderr.trim();
  };

  before(async () => {
    ({ dir, remove } = await makeTempDir('proxy'));
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: dir });
    kubectl = await Kubectl.create(cluster.kubeconfigPath);
    client = await ApiClient.load(cluster.kubeconfigPath);
    await kubectl.ok(['apply', '-f', '-'], JSON.stringify(OBJECTS));
    await kubectl.ok([
      'patch',
      'pod',
      'done',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"phase":"Succeeded"}}',
    ]);
    await kubectl.ok([
      'patch',
      'pod',
      'unready',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"conditions":[{"type":"Ready","status":"False"}]}}',
    ]);
    await kubectl.ok([
      'patch',
      'node',
      'node-1',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.5"}]}}',
    ]);
    webIp = await kubectl.ok(['get', 'pod', 'web', '-o', 'jsonpath={.status.podIP}']);
  });
  after(async () => {
    client?.close();
    await kubectl?.dispose();
    await cluster?.stop();
    await remove?.();
  });

  it('a pod answers on a declared port with the echo of what reached it', async () => {
    expect(await rawJson(`${POD}/web:8080/proxy/hello?x=1`)).to.deep.equal({
      pod: 'web',
      namespace: 'default',
      port: 8080,
      scheme: 'http',
      method: 'GET',
      path: '/hello',
      query: 'x=1',
      body: '',
    });
    expect(await rawJson(`${POD}/web:9090/proxy/metrics/`)).to.deep.include({ port: 9090, path: '/metrics/' });
    expect(await rawJson(`${POD}/https:web:8080/proxy/`)).to.deep.include({ port: 8080, scheme: 'https', path: '/' });
    // Without a port kube goes to the first port a container declares; without any, to port 80.
    expect(await rawJson(`${POD}/web/proxy/x`)).to.deep.include({ port: 8080, path: '/x' });
    expect(await rawJson(`${POD}/bare/proxy/x`)).to.deep.include({ pod: 'bare', port: 80 });
  });

  it('a web server image answers on its own port, declared or not: its welcome page, 404, 405, HEAD', async () => {
    // `web` runs nginx and declares only 8080; nginx listens on 80 all the same.
    const page = await kubectl.ok(['get', '--raw', `${POD}/web:80/proxy/`]);
    expect(page).to.include('<title>Welcome to nginx!</title>');
    const answers = await Promise.all([
      client.request('HEAD', `${POD}/web:80/proxy/index.html`),
      client.request('GET', `${POD}/web:80/proxy/missing`),
      client.request('POST', `${POD}/web:80/proxy/`, 'x'),
    ]);
    expect(answers.map((a) => [a.status, a.headers.server, a.headers['content-type']])).to.deep.equal([
      [200, 'nginx', 'text/html'],
      [404, 'nginx', 'text/html'],
      [405, 'nginx', 'text/html'],
    ]);
    expect(answers[0].headers['content-length']).to.equal(String(Buffer.byteLength(page)));
    expect(answers[1].text).to.include('<title>404 Not Found</title>');
    expect(answers[2].text).to.include('<title>405 Not Allowed</title>');
    // Its other ports are the echo's (a declared one) or nobody's.
    expect(await rawJson(`${POD}/web:8080/proxy/`)).to.deep.include({ pod: 'web', port: 8080 });
    expect(await rawError(['get', '--raw', `${POD}/web:81/proxy/`])).to.include('connection refused');
  });

  it('redirects …/proxy to …/proxy/ for GET (kubectl follows it)', async () => {
    const redirect = await client.request('GET', `${POD}/web/proxy?a=b`);
    expect([redirect.status, redirect.headers.location]).to.deep.equal([301, `${POD}/web/proxy/?a=b`]);
    expect(await rawJson(`${POD}/web/proxy`)).to.deep.include({ path: '/', port: 8080 });
    const posted = await client.request('POST', `${POD}/web/proxy`, 'x');
    expect([posted.status, posted.body.method, posted.body.path]).to.deep.equal([200, 'POST', '/']);
  });

  it('passes every method and its body on: kubectl create/replace/delete --raw, PATCH and HEAD', async () => {
    await writeFile(`${dir}/body.json`, '{"order":42}');
    expect(
      await kubectl
        .ok(['create', '--raw', `${POD}/web:8080/proxy/orders?dry=1`, '-f', `${dir}/body.json`])
        .then(JSON.parse),
    ).to.deep.include({ method: 'POST', path: '/orders', query: 'dry=1', body: '{"order":42}' });
    expect(
      await kubectl
        .ok(['replace', '--raw', `${POD}/web:8080/proxy/orders/1`, '-f', `${dir}/body.json`])
        .then(JSON.parse),
    ).to.deep.include({ method: 'PUT', body: '{"order":42}' });
    expect(await kubectl.ok(['delete', '--raw', `${POD}/web:8080/proxy/orders/1`]).then(JSON.parse)).to.deep.include({
      method: 'DELETE',
      path: '/orders/1',
      body: '',
    });
    const patched = await client.request('PATCH', `${POD}/web:8080/proxy/orders/1`, 'patch-body', {
      'Content-Type': 'text/plain',
    });
    expect([patched.status, patched.headers['content-type'], patched.body.method, patched.body.body]).to.deep.equal([
      200,
      'application/json',
      'PATCH',
      'patch-body',
    ]);
    const head = await client.request('HEAD', `${POD}/web:8080/proxy/`);
    expect([head.status, head.text]).to.deep.equal([200, '']);
  });

  it('answers like kube when nothing can answer: unknown pod, undeclared port, pod not Running, no address, bad name', async () => {
    expect(await rawError(['get', '--raw', `${POD}/ghost/proxy/`])).to.equal(
      'Error from server (NotFound): pods "ghost" not found',
    );
    expect(await rawError(['get', '--raw', `${POD}/web:8081/proxy/`])).to.equal(
      `Error from server (ServiceUnavailable): error trying to reach service: dial tcp ${webIp}:8081: connect: connection refused`,
    );
    expect(await rawError(['get', '--raw', `${POD}/done/proxy/`])).to.match(
      /^Error from server \(ServiceUnavailable\): error trying to reach service: dial tcp 10\.244\.\d+\.\d+:80: connect: connection refused$/,
    );
    expect(await rawError(['get', '--raw', `${POD}/ftp:web:80/proxy/`])).to.equal(
      'Error from server (BadRequest): invalid pod request "ftp:web:80"',
    );
    const refused = await client.request('GET', `${POD}/web:8081/proxy/`);
    expect(refused.body).to.deep.equal({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `error trying to reach service: dial tcp ${webIp}:8081: connect: connection refused`,
      reason: 'ServiceUnavailable',
      code: 503,
    });
    await kubectl.ok([
      'patch',
      'pod',
      'bare',
      '--subresource=status',
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/status/podIPs"}]',
    ]);
    expect(await rawError(['get', '--raw', `${POD}/bare/proxy/`])).to.equal(
      'Error from server (BadRequest): address not allowed',
    );
  });

  it('a service goes to a ready pod it selects, its port mapped through targetPort', async () => {
    expect(await rawJson(`${SERVICE}/web:80/proxy/a?b=c`)).to.deep.equal({
      pod: 'web',
      namespace: 'default',
      port: 8080,
      scheme: 'http',
      method: 'GET',
      path: '/a',
      query: 'b=c',
      body: '',
    });
    expect(await rawJson(`${SERVICE}/web:http/proxy/`)).to.deep.include({ pod: 'web', port: 8080 });
    expect(await rawJson(`${SERVICE}/web:metrics/proxy/`)).to.deep.include({ pod: 'web', port: 9090 });
    expect(await rawJson(`${SERVICE}/https:web:80/proxy/`)).to.deep.include({ scheme: 'https', port: 8080 });
    // An unnamed port is the one reached without a port.
    expect(await rawJson(`${SERVICE}/plain/proxy/p`)).to.deep.include({ pod: 'web', port: 8080, path: '/p' });
    const posted = await kubectl.ok(
      ['create', '--raw', `${SERVICE}/plain:8000/proxy/submit`, '-f', '-'],
      'through the service',
    );
    expect(JSON.parse(posted)).to.deep.include({ method: 'POST', body: 'through the service' });
  });

  it('a service without a ready endpoint on the port answers 503 with kube’s messages', async () => {
    expect(await rawError(['get', '--raw', `${SERVICE}/empty/proxy/`])).to.equal(
      'Error from server (ServiceUnavailable): no endpoints available for service "empty"',
    );
    // Named ports only: no port asks for the unnamed one, which no endpoint has.
    expect(await rawError(['get', '--raw', `${SERVICE}/web/proxy/`])).to.equal(
      'Error from server (ServiceUnavailable): no endpoints available for service "web"',
    );
    // The only pod is not ready; kube then names the service as the request did.
    expect(await rawError(['get', '--raw', `${SERVICE}/lonely:80/proxy/`])).to.equal(
      'Error from server (ServiceUnavailable): no endpoints available for service "lonely:80"',
    );
    expect(await rawError(['get', '--raw', `${SERVICE}/web:81/proxy/`])).to.equal(
      'Error from server (ServiceUnavailable): no service port 81 found for service "web"',
    );
    expect(await rawError(['get', '--raw', `${SERVICE}/ghost/proxy/`])).to.equal(
      'Error from server (NotFound): endpoints "ghost" not found',
    );
    expect(await rawError(['get', '--raw', `${SERVICE}/ghost:80/proxy/`])).to.equal(
      'Error from server (NotFound): services "ghost" not found',
    );
  });

  it('a node answers as a kubelet: healthz, configz, stats/summary, 404 elsewhere', async () => {
    expect(await kubectl.ok(['get', '--raw', '/api/v1/nodes/node-1/proxy/healthz'])).to.equal('ok');
    expect(await kubectl.ok(['get', '--raw', '/api/v1/nodes/node-1:10250/proxy/healthz'])).to.equal('ok');
    const configz = await rawJson('/api/v1/nodes/node-1/proxy/configz');
    expect(configz.kubeletconfig).to.deep.include({
      kind: 'KubeletConfiguration',
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      port: 10250,
    });
    const summary = await rawJson('/api/v1/nodes/node-1/proxy/stats/summary');
    expect(summary.node.nodeName).to.equal('node-1');
    expect(
      summary.pods.map((p: any) => [p.podRef.namespace, p.podRef.name, p.containers.map((c: any) => c.name)]),
    ).to.deep.equal([['default', 'bound', ['a', 'b']]]);
    expect(summary.pods[0].memory.workingSetBytes)
      .to.equal(summary.node.memory.workingSetBytes)
      .and.to.be.greaterThan(0);
    const missing = await client.request('GET', '/api/v1/nodes/node-1/proxy/pods/nope');
    expect([missing.status, missing.headers['content-type'], missing.text]).to.deep.equal([
      404,
      'text/plain; charset=utf-8',
      '404 page not found\n',
    ]);
    expect(await rawError(['get', '--raw', '/api/v1/nodes/node-1/proxy/nope'])).to.equal(
      'Error from server (NotFound): the server could not find the requested resource',
    );
    expect(await rawError(['get', '--raw', '/api/v1/nodes/ghost/proxy/healthz'])).to.equal(
      'Error from server (NotFound): nodes "ghost" not found',
    );
    expect(await rawError(['get', '--raw', '/api/v1/nodes/node-1:22/proxy/'])).to.equal(
      'Error from server (ServiceUnavailable): error trying to reach service: dial tcp 10.0.0.5:22: connect: connection refused',
    );
  });

  it('authorizes <resource>/proxy with the verb of the method and the name as written, port included', async () => {
    await kubectl.ok(['create', 'role', 'pod-reader', '--verb=get', '--resource=pods,services']);
    await kubectl.ok(['create', 'rolebinding', 'bob-reads', '--role=pod-reader', '--user=bob']);
    await kubectl.ok(['create', 'role', 'web-proxy', '--verb=get', '--resource=pods/proxy', '--resource-name=web']);
    await kubectl.ok(['create', 'rolebinding', 'carl-proxies', '--role=web-proxy', '--user=carl']);
    // The authorizer sees new bindings through a watch: wait until both are in.
    await waitUntil(
      'bob may get the pod and carl its proxy (the authorizer saw both bindings)',
      async () =>
        (await kubectl.run(['get', 'pod', 'web', '--as', 'bob'])).code === 0 &&
        (await kubectl.run(['get', '--raw', `${POD}/web/proxy/`, '--as', 'carl'])).code === 0,
    );

    expect(await rawError(['get', '--raw', `${POD}/web:8080/proxy/`, '--as', 'bob'])).to.equal(
      'Error from server (Forbidden): pods "web:8080" is forbidden: User "bob" cannot get resource "pods/proxy" in API group "" in the namespace "default"',
    );
    expect(await rawError(['get', '--raw', `${SERVICE}/web:80/proxy/`, '--as', 'bob'])).to.equal(
      'Error from server (Forbidden): services "web:80" is forbidden: User "bob" cannot get resource "services/proxy" in API group "" in the namespace "default"',
    );
    expect(await rawError(['get', '--raw', '/api/v1/nodes/node-1/proxy/healthz', '--as', 'bob'])).to.equal(
      'Error from server (Forbidden): nodes "node-1" is forbidden: User "bob" cannot get resource "nodes/proxy" in API group "" at the cluster scope',
    );
    // resourceNames: ["web"] matches `web`, not `web:8080`, and `get` does not allow POST.
    expect(await rawJson(`${POD}/web/proxy/`, '--as', 'carl')).to.deep.include({ pod: 'web' });
    expect(await rawError(['get', '--raw', `${POD}/web:8080/proxy/`, '--as', 'carl'])).to.contain(
      'User "carl" cannot get resource "pods/proxy"',
    );
    expect(await rawError(['create', '--raw', `${POD}/web/proxy/`, '-f', `${dir}/body.json`, '--as', 'carl'])).to.equal(
      'Error from server (Forbidden): pods "web" is forbidden: User "carl" cannot create resource "pods/proxy" in API group "" in the namespace "default"',
    );
  });

  describe('WebSocket through the proxy', () => {
    let tls: { ca: string; cert: string; key: string };
    let server: string;

    before(async () => {
      const parsed = parseKubeconfig(await readFile(cluster.kubeconfigPath, 'utf8'));
      tls = { ca: parsed.caPem, cert: parsed.certPem, key: parsed.keyPem };
      server = parsed.server.replace(/^https:/, 'wss:');
    });

    it('reaches the pod (or a service’s pod), says so first, then echoes text and binary messages', async () => {
      for (const [path, pod] of [
        [`${POD}/web:8080/proxy/socket?room=1`, 'web'],
        [`${SERVICE}/web:80/proxy/socket?room=1`, 'web'],
      ] as const) {
        const session = await connect(server + path, tls, ['chat.v1', 'chat.v0']);
        if (session.kind !== 'open') throw new Error(`refused ${session.status}: ${session.body}`);
        try {
          expect(session.ws.protocol).to.equal('chat.v1');
          session.ws.send('hello');
          session.ws.send(Buffer.from([0, 1, 2, 255]));
          await waitUntil('three messages back', () => session.messages.length >= 3);
          expect(JSON.parse(session.messages[0].data.toString())).to.deep.equal({
            pod,
            namespace: 'default',
            port: 8080,
            scheme: 'http',
            method: 'GET',
            path: '/socket',
            query: 'room=1',
            body: '',
          });
          expect(
            session.messages.slice(1).map((m) => [m.binary, m.binary ? [...m.data] : m.data.toString()]),
          ).to.deep.equal([
            [false, 'hello'],
            [true, [0, 1, 2, 255]],
          ]);
        } finally {
          session.ws.close();
        }
      }
    });

    it('refuses as kube does: 403 without get on pods/proxy, 404 for no pod, the bare dial error on a closed port', async () => {
      const message = (refused: { status: number; body: string }) => [refused.status, JSON.parse(refused.body).message];
      expect(
        message(await refusal(`${server}${POD}/web:8080/proxy/`, { ...tls, headers: { 'Impersonate-User': 'bob' } })),
      ).to.deep.equal([
        403,
        'pods "web:8080" is forbidden: User "bob" cannot get resource "pods/proxy" in API group "" in the namespace "default"',
      ]);
      expect(message(await refusal(`${server}${POD}/ghost/proxy/`, tls))).to.deep.equal([
        404,
        'pods "ghost" not found',
      ]);
      expect(message(await refusal(`${server}${POD}/web:8081/proxy/`, tls))).to.deep.equal([
        500,
        `dial tcp ${webIp}:8081: connect: connection refused`,
      ]);
      // A kubelet path that does not switch protocols: kube refuses a success, passes an error on.
      expect(message(await refusal(`${server}/api/v1/nodes/node-1/proxy/healthz`, tls))).to.deep.equal([
        500,
        'invalid upgrade response: status code 200',
      ]);
      // A web server answers an upgrade as a plain request.
      expect(message(await refusal(`${server}${POD}/web:80/proxy/`, tls))).to.deep.equal([
        500,
        'invalid upgrade response: status code 200',
      ]);
      const nope = await refusal(`${server}/api/v1/nodes/node-1/proxy/nope`, tls);
      expect([nope.status, nope.body]).to.deep.equal([404, '404 page not found\n']);
    });
  });
});

type Session =
  | { kind: 'open'; ws: WebSocket; messages: { data: Buffer; binary: boolean }[] }
  | { kind: 'refused'; status: number; body: string };

/** Opens a WebSocket, or reads the plain HTTP answer that refused it. */
function connect(
  url: string,
  options: { ca: string; cert: string; key: string; headers?: Record<string, string> },
  protocols: string[] = [],
): Promise<Session> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, options);
    const messages: { data: Buffer; binary: boolean }[] = [];
    ws.on('message', (data, binary) => messages.push({ data: data as Buffer, binary }));
    ws.once('open', () => resolve({ kind: 'open', ws, messages }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ kind: 'refused', status: res.statusCode ?? 0, body }));
    });
    ws.once('error', reject);
  });
}

/** The answer that refused a WebSocket; one that opens is closed (so the cluster can stop) and fails the test. */
async function refusal(
  url: string,
  options: { ca: string; cert: string; key: string; headers?: Record<string, string> },
): Promise<{ status: number; body: string }> {
  const session = await connect(url, options);
  if (session.kind === 'refused') return session;
  session.ws.terminate();
  throw new Error(`${url} opened a WebSocket; it should have been refused`);
}
