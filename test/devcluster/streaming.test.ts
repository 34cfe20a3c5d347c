import { expect } from 'chai';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, get as httpsGet, type Server } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { WebSocket } from 'ws';
import { createCertificateAuthority, renderKubeconfig, type IssuedCertificate } from '../../certs/index.js';
import { servePodLog } from '../../devcluster/streaming/pod-log.js';
import { servePortForward } from '../../devcluster/streaming/port-forward.js';
import { serveRemoteCommand } from '../../devcluster/streaming/remote-command.js';
import { ContainerFilesystems } from '../../devcluster/container-files/container-filesystems.js';
import { sleep, waitUntil } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { KUBECTL_1_32, Kubectl } from '../support/kubectl.js';
import { testSeed } from '../support/seed.js';
import { makeTempDir } from '../support/temp-dir.js';

const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'p',
    namespace: 'default',
    uid: '7d4b1f0e-0000-4000-8000-000000000001',
    resourceVersion: '7',
    creationTimestamp: '2026-01-02T03:04:05Z',
  },
  spec: {
    containers: [
      {
        name: 'main',
        image: 'nginx:1.27',
        ports: [{ containerPort: 80 }],
        env: [
          { name: 'GREETING', value: 'hello' },
          { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
        ],
      },
    ],
  },
  status: { phase: 'Running', startTime: '2026-01-02T03:04:06Z' },
};

const RESOURCE_LIST = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'v1',
  resources: [
    { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list'], shortNames: ['po'] },
    { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
    { name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] },
    { name: 'pods/attach', singularName: '', namespaced: true, kind: 'PodAttachOptions', verbs: ['create', 'get'] },
    {
      name: 'pods/portforward',
      singularName: '',
      namespaced: true,
      kind: 'PodPortForwardOptions',
      verbs: ['create', 'get'],
    },
  ],
};

const VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0',
  gitCommit: '0',
  gitTreeState: 'clean',
  buildDate: '2025-01-01T00:00:00Z',
  goVersion: 'go1.23.4',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const SUCCESS = { metadata: {}, status: 'Success' };

/** One upgrade request as it reached the server: how kubectl chose to stream. */
interface UpgradeSeen {
  method: string;
  subresource: string;
  upgrade: string;
  /** Sec-WebSocket-Protocol or X-Stream-Protocol-Version, as sent. */
  protocols: string;
}

interface PodServer {
  port: number;
  ca: string;
  client: IssuedCertificate;
  upgrades: UpgradeSeen[];
  /** Writes to a log response after its client went away (a follow that never stops). */
  logWritesAfterClose: () => number;
  close: () => Promise<void>;
}

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * A tiny kube-apiserver with one pod `p`: /version, legacy discovery, GET pods/p, and the
 * streaming handlers under test on pods/p/log, exec, attach and portforward.
 */
async function startPodServer(): Promise<PodServer> {
  const authority = await createCertificateAuthority({ commonName: 'streaming-test-ca' });
  const serving = await authority.issueServingCertificate({ hosts: ['127.0.0.1'] });
  const client = await authority.issueClientCertificate({ commonName: 'alice', organizations: ['system:masters'] });
  // The test pod mounts no volume from the API: nothing is ever read from it.
  const filesystems = new ContainerFilesystems({
    configMap: () => Promise.resolve(null),
    secret: () => Promise.resolve(null),
    token: () => Promise.resolve(null),
  });
  const upgrades: UpgradeSeen[] = [];
  const upgraded = new Set<Duplex>();
  let logWritesAfterClose = 0;
  const podPath = /^\/api\/v1\/namespaces\/default\/pods\/([^/]+)(?:\/([a-z]+))?$/;

  const server: Server = createServer(
    { cert: serving.certPem, key: serving.keyPem, ca: authority.certPem, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const url = new URL(req.url ?? '/', 'https://localhost');
      const match = podPath.exec(url.pathname);
      if (url.pathname === '/version') return sendJson(res, 200, VERSION);
      if (url.pathname === '/api')
        return sendJson(res, 200, {
          kind: 'APIVersions',
          versions: ['v1'],
          serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }],
        });
      if (url.pathname === '/apis') return sendJson(res, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [] });
      if (url.pathname === '/api/v1') return sendJson(res, 200, RESOURCE_LIST);
      if (match && match[1] !== 'p') {
        return sendJson(res, 404, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `pods "${match[1]}" not found`,
          reason: 'NotFound',
          details: { name: match[1], kind: 'pods' },
          code: 404,
        });
      }
      if (match && !match[2]) return sendJson(res, 200, POD);
      if (match && match[2] === 'log') {
        const write = res.write.bind(res) as (...args: unknown[]) => boolean;
        res.write = ((...args: unknown[]) => {
          if (res.destroyed) logWritesAfterClose++;
          return write(...args);
        }) as typeof res.write;
        return servePodLog(req, res, POD, url.searchParams);
      }
      sendJson(res, 404, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server could not find the requested resource',
        reason: 'NotFound',
        code: 404,
      });
    },
  );
  server.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    upgraded.add(socket);
    socket.on('close', () => upgraded.delete(socket));
    const url = new URL(req.url ?? '/', 'https://localhost');
    const subresource = podPath.exec(url.pathname)?.[2] ?? '';
    const protocols = String(req.headers['sec-websocket-protocol'] ?? req.headers['x-stream-protocol-version'] ?? '');
    upgrades.push({ method: req.method ?? '', subresource, upgrade: String(req.headers.upgrade ?? ''), protocols });
    if (subresource === 'exec' || subresource === 'attach')
      serveRemoteCommand(req, socket, head, POD, url.searchParams, subresource, filesystems);
    else if (subresource === 'portforward') servePortForward(req, socket, head, url.searchParams, greeterOn9000);
    else socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    ca: authority.certPem,
    client,
    upgrades,
    logWritesAfterClose: () => logWritesAfterClose,
    close: async () => {
      for (const socket of upgraded) socket.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** What listens on port 9000 of the test's pod: each chunk is answered `9000 got <chunk>`; other ports echo. */
const greeterOn9000 = (port: number) =>
  port === 9000
    ? (connection: Duplex) => connection.on('data', (chunk) => connection.write(`9000 got ${chunk}`))
    : null;

/** Sends `payload` through a TCP connection, half-closes, and returns everything read back. */
async function tcpRoundTrip(port: number, payload: Buffer): Promise<Buffer> {
  const socket: Socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  const ended = once(socket, 'end');
  socket.end(payload);
  await ended;
  socket.destroy();
  return Buffer.concat(received);
}

/** A GET with the test's client certificate: the status code and the body, parsed when it is JSON. */
async function getWithClient(server: PodServer, pathAndQuery: string): Promise<{ code: number; body: any }> {
  const request = httpsGet(`https://127.0.0.1:${server.port}${pathAndQuery}`, {
    ca: server.ca,
    cert: server.client.certPem,
    key: server.client.keyPem,
  });
  const [response] = (await once(request, 'response')) as [IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString();
  const json = String(response.headers['content-type']).startsWith('application/json');
  return { code: response.statusCode ?? 0, body: json ? JSON.parse(text) : text };
}

interface ChannelMessage {
  channel: number;
  text: string;
}

/** A WebSocket client with the test's client certificate, collecting channel messages until close. */
function openChannels(server: PodServer, pathAndQuery: string, protocol: string) {
  const ws = new WebSocket(`wss://127.0.0.1:${server.port}${pathAndQuery}`, [protocol], {
    ca: server.ca,
    cert: server.client.certPem,
    key: server.client.keyPem,
  });
  const messages: ChannelMessage[] = [];
  const raw: Buffer[] = [];
  ws.on('message', (data: Buffer) => {
    raw.push(data);
    messages.push({ channel: data[0], text: data.subarray(1).toString() });
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  const opened = once(ws, 'open');
  const waitForMessages = (count: number) =>
    waitUntil(`${count} messages`, () => raw.length >= count, {
      timeout: 5000,
      interval: 10,
      message: () => `expected ${count} messages, got ${JSON.stringify(messages)}`,
    });
  return { ws, messages, raw, opened, closed, waitForMessages };
}

describe('devcluster streaming subresources', function () {
  let server: PodServer;
  let kubectl: Kubectl;
  let removeHome: () => Promise<void>;

  before(async () => {
    server = await startPodServer();
    const { dir, remove } = await makeTempDir('streaming');
    removeHome = remove;
    const kubeconfig = path.join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      renderKubeconfig({
        clusterName: 'pods',
        server: `https://127.0.0.1:${server.port}`,
        caPem: server.ca,
        userName: 'alice',
        certPem: server.client.certPem,
        keyPem: server.client.keyPem,
        contextName: 'pods',
        namespace: 'default',
      }),
    );
    kubectl = await Kubectl.create(kubeconfig, KUBECTL_1_32);
  });
  after(async () => {
    await server?.close();
    await kubectl?.dispose();
    await removeHome?.();
  });
  beforeEach(() => {
    server.upgrades.length = 0;
  });

  describe('exec with the real kubectl over WebSocket (v5.channel.k8s.io, its default)', () => {
    it('runs echo and exits 0, having upgraded with a GET to v5.channel.k8s.io only', async () => {
      const result = await kubectl.run(['exec', 'p', '--', 'echo', 'hello', 'world']);
      expect(result, result.stderr).to.include({ code: 0, stdout: 'hello world\n' });
      expect(server.upgrades).to.deep.equal([
        { method: 'GET', subresource: 'exec', upgrade: 'websocket', protocols: 'v5.channel.k8s.io' },
      ]);
    });

    it('makes kubectl exit with the command’s exit code', async () => {
      const result = await kubectl.run(['exec', 'p', '--', 'exit', '3']);
      expect(result.code).to.equal(3);
      expect(result.stderr).to.include('command terminated with exit code 3');
    });

    it('echoes stdin through cat until kubectl closes it (v5’s close signal)', async () => {
      const result = await kubectl.run(['exec', '-i', 'p', '--', 'cat'], 'first line\nsecond line\n');
      expect(result, result.stderr).to.include({ code: 0, stdout: 'first line\nsecond line\n' });
    });

    it('prints a missing command’s error on stderr and exits 127', async () => {
      const result = await kubectl.run(['exec', 'p', '--', 'frobnicate', '--now']);
      expect(result.code).to.equal(127);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.include('sh: frobnicate: not found\n');
    });

    it('prints the pod’s name, a listing, and the container’s env with the kubernetes Service’s', async () => {
      expect((await kubectl.run(['exec', 'p', '--', 'hostname'])).stdout).to.equal('p\n');
      expect((await kubectl.run(['exec', 'p', '--', 'ls', '/'])).stdout).to.equal(
        'bin\ndev\netc\nhome\nlib\nproc\nroot\nsys\ntmp\nusr\nvar\n',
      );
      const env = await kubectl.run(['exec', 'p', '-c', 'main', '--', 'env']);
      expect(env.stdout.split('\n')).to.deep.equal([
        'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        'HOSTNAME=p',
        'GREETING=hello',
        'KUBERNETES_SERVICE_HOST=10.96.0.1',
        'KUBERNETES_SERVICE_PORT=443',
        'KUBERNETES_SERVICE_PORT_HTTPS=443',
        'KUBERNETES_PORT=tcp://10.96.0.1:443',
        'KUBERNETES_PORT_443_TCP=tcp://10.96.0.1:443',
        'KUBERNETES_PORT_443_TCP_PROTO=tcp',
        'KUBERNETES_PORT_443_TCP_PORT=443',
        'KUBERNETES_PORT_443_TCP_ADDR=10.96.0.1',
        'HOME=/root',
        '',
      ]);
    });

    it('refuses a container the pod does not have, in kube’s words', async () => {
      const result = await kubectl.run(['exec', 'p', '-c', 'nope', '--', 'echo', 'x']);
      expect(result.code).to.equal(1);
      expect(result.stderr).to.include('container nope is not valid for pod p');
    });
  });

  describe('exec and attach with the real kubectl over SPDY/3.1 (KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false)', () => {
    const spdy = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' };

    it('runs echo over a POST upgraded to SPDY/3.1, negotiating from v5 down', async () => {
      const result = await kubectl.run(['exec', 'p', '--', 'echo', 'hello', 'world'], undefined, spdy);
      expect(result, result.stderr).to.include({ code: 0, stdout: 'hello world\n' });
      expect(server.upgrades).to.have.length(1);
      expect(server.upgrades[0]).to.include({ method: 'POST', subresource: 'exec', upgrade: 'SPDY/3.1' });
      expect(server.upgrades[0].protocols.split(/,\s*/)[0]).to.equal('v5.channel.k8s.io');
    });

    it('makes kubectl exit with the command’s exit code', async () => {
      const result = await kubectl.run(['exec', 'p', '--', 'exit', '3'], undefined, spdy);
      expect(result.code).to.equal(3);
      expect(result.stderr).to.include('command terminated with exit code 3');
    });

    it('echoes stdin through cat until the stdin stream’s FIN, and stderr on its own stream', async () => {
      const cat = await kubectl.run(['exec', '-i', 'p', '--', 'cat'], 'over spdy\n', spdy);
      expect(cat, cat.stderr).to.include({ code: 0, stdout: 'over spdy\n' });
      const missing = await kubectl.run(['exec', 'p', '--', 'cat', '/etc/motd'], undefined, spdy);
      expect(missing).to.include({ code: 1, stdout: '' });
      expect(missing.stderr).to.include('cat: /etc/motd: No such file or directory');
    });

    it('attaches like cat, over both protocols', async () => {
      const overSpdy = await kubectl.run(['attach', '-i', 'p'], 'attached\n', spdy);
      expect(overSpdy, overSpdy.stderr).to.include({ code: 0, stdout: 'attached\n' });
      const overWebSocket = await kubectl.run(['attach', '-i', 'p'], 'attached again\n');
      expect(overWebSocket, overWebSocket.stderr).to.include({ code: 0, stdout: 'attached again\n' });
      expect(server.upgrades.map((u) => `${u.subresource} ${u.upgrade}`)).to.deep.equal([
        'attach SPDY/3.1',
        'attach websocket',
      ]);
    });
  });

  describe('remotecommand channels from a plain WebSocket client', () => {
    it('sends stdout on channel 1, then the exit Status on channel 3, then a normal close', async () => {
      const client = openChannels(
        server,
        '/api/v1/namespaces/default/pods/p/exec?command=echo&command=hi&stdout=true&stderr=true',
        'v4.channel.k8s.io',
      );
      await client.opened;
      expect(client.ws.protocol).to.equal('v4.channel.k8s.io');
      expect(await client.closed).to.equal(1000);
      expect(client.messages).to.deep.equal([
        { channel: 1, text: 'hi\n' },
        { channel: 3, text: JSON.stringify(SUCCESS) },
      ]);
    });

    it('starts the process a moment after the upgrade, so a client that registers its channels late (kubectl < 1.33) loses nothing', async () => {
      const client = openChannels(
        server,
        '/api/v1/namespaces/default/pods/p/exec?command=echo&command=hi&stdout=true',
        'v5.channel.k8s.io',
      );
      const [response] = (await once(client.ws, 'upgrade')) as [IncomingMessage];
      expect(response.statusCode).to.equal(101);
      // What kubectl 1.32 would have discarded: anything before its channels exist.
      const registering = 50;
      await sleep(registering);
      const early = client.messages.length;
      await client.closed;
      expect(early, `messages within ${registering} ms of the upgrade`).to.equal(0);
      expect(client.messages.map((m) => m.channel)).to.deep.equal([1, 3]);
    });

    it('reports a non-zero exit as kube’s NonZeroExitCode Status', async () => {
      const client = openChannels(
        server,
        '/api/v1/namespaces/default/pods/p/exec?command=exit&command=42&stdout=true',
        'v4.channel.k8s.io',
      );
      await client.closed;
      expect(client.messages).to.have.length(1);
      expect(client.messages[0].channel).to.equal(3);
      expect(JSON.parse(client.messages[0].text)).to.deep.equal({
        metadata: {},
        status: 'Failure',
        message: 'command terminated with non-zero exit code: error executing command [exit 42], exit code 42',
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: '42' }] },
      });
    });

    it('sends stderr on the stdout channel when there is a terminal (tty=true)', async () => {
      const client = openChannels(
        server,
        '/api/v1/namespaces/default/pods/p/exec?command=nope&stdout=true&tty=true',
        'v5.channel.k8s.io',
      );
      await client.closed;
      expect(client.messages[0]).to.deep.equal({ channel: 1, text: 'sh: nope: not found\n' });
      expect(client.messages.map((m) => m.channel)).to.deep.equal([1, 3]);
    });

    it('refuses a subprotocol it does not speak before upgrading', async () => {
      const ws = new WebSocket(
        `wss://127.0.0.1:${server.port}/api/v1/namespaces/default/pods/p/exec?command=ls&stdout=true`,
        ['v3.channel.k8s.io'],
        {
          ca: server.ca,
          cert: server.client.certPem,
          key: server.client.keyPem,
        },
      );
      const [, response] = (await once(ws, 'unexpected-response')) as [unknown, IncomingMessage];
      expect(response.statusCode).to.equal(400);
      ws.on('error', () => {});
      response.destroy();
    });
  });

  describe('SPDY/3.1 from a raw client', () => {
    function upgradeRequest(protocol: string): string {
      return [
        'POST /api/v1/namespaces/default/pods/p/exec?command=ls&stdout=true HTTP/1.1',
        'Host: 127.0.0.1',
        'Connection: Upgrade',
        'Upgrade: SPDY/3.1',
        `X-Stream-Protocol-Version: ${protocol}`,
        'Content-Length: 0',
        '',
        '',
      ].join('\r\n');
    }

    /** Writes `request` (then `after`, once the response head is in) and returns all bytes until the server closes. */
    async function exchange(request: string, after?: Buffer): Promise<{ head: string; rest: Buffer }> {
      const socket = tlsConnect({
        host: '127.0.0.1',
        port: server.port,
        ca: server.ca,
        cert: server.client.certPem,
        key: server.client.keyPem,
      });
      await once(socket, 'secureConnect');
      let received = Buffer.alloc(0);
      let sentAfter = false;
      socket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        if (after && !sentAfter && received.includes('\r\n\r\n')) {
          sentAfter = true;
          socket.write(after);
        }
      });
      socket.write(request);
      await once(socket, 'close');
      const split = received.indexOf('\r\n\r\n') + 4;
      return { head: received.subarray(0, split).toString(), rest: received.subarray(split) };
    }

    it('answers an unsupported stream protocol with 403 and the versions it accepts', async () => {
      const { head } = await exchange(upgradeRequest('v3.channel.k8s.io, channel.k8s.io'));
      expect(head).to.match(/^HTTP\/1\.1 403 Forbidden\r\n/);
      expect(head).to.include(
        'X-Accepted-Stream-Protocol-Versions: v5.channel.k8s.io\r\nX-Accepted-Stream-Protocol-Versions: v4.channel.k8s.io\r\n',
      );
    });

    const malformed = {
      // SETTINGS with no entries, but SPDY/2.
      'a frame of another SPDY version': Buffer.from([0x80, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00, 0x04, 0, 0, 0, 0]),
      // SYN_STREAM for stream 1 whose header block is not zlib.
      'a header block that does not decompress': Buffer.concat([
        Buffer.from([0x80, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x11, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]),
        Buffer.from('notzlib'),
      ]),
    };
    for (const [title, frame] of Object.entries(malformed)) {
      it(`answers ${title} with GOAWAY(PROTOCOL_ERROR) and closes`, async () => {
        const { head, rest } = await exchange(upgradeRequest('v4.channel.k8s.io'), frame);
        expect(head).to.match(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
        expect(head).to.include('X-Stream-Protocol-Version: v4.channel.k8s.io\r\n');
        // Control bit + version 3, type 7 (GOAWAY), 8 bytes: last stream 0, status 1.
        expect([...rest]).to.deep.equal([0x80, 0x03, 0x00, 0x07, 0x00, 0x00, 0x00, 0x08, 0, 0, 0, 0, 0, 0, 0, 1]);
      });
    }
  });

  describe('logs with the real kubectl', () => {
    it('prints the container’s lines, the last N with --tail, stamped with --timestamps', async () => {
      const all = await kubectl.run(['logs', 'p']);
      expect(all, all.stderr).to.include({
        code: 0,
        stdout: 'p main started\np main image nginx:1.27\np main ready\n',
      });
      expect((await kubectl.run(['logs', 'p', '--tail=1'])).stdout).to.equal('p main ready\n');
      expect((await kubectl.run(['logs', 'p', '--tail=2', '--timestamps'])).stdout).to.equal(
        '2026-01-02T03:04:06.000000000Z p main image nginx:1.27\n2026-01-02T03:04:06.000000000Z p main ready\n',
      );
    });

    it('follows with a tick a second and stops writing when kubectl goes away', async function () {
      this.timeout(20_000);
      const follow = kubectl.start(['logs', '-f', 'p']);
      await follow.waitFor(/tick 2\n/);
      await follow.stop();
      expect(follow.output()).to.match(/^p main started\np main image nginx:1\.27\np main ready\ntick 1\ntick 2\n/);
      const writesBefore = server.logWritesAfterClose();
      await sleep(2200);
      expect(server.logWritesAfterClose()).to.equal(writesBefore);
      expect(writesBefore).to.equal(0);
    });

    // The pod started at 2026-01-02T03:04:06Z, long before the test runs.
    const LINES = 'p main started\np main image nginx:1.27\np main ready\n';

    it('--since and --since-time skip the lines stamped before, with and without -f', async function () {
      this.timeout(20_000);
      const since = async (...args: string[]) => (await kubectl.ok(['logs', 'p', ...args])).toString();
      expect(await since('--since-time=2026-01-02T03:04:06Z')).to.equal(LINES);
      expect(await since('--since-time=2026-01-02T03:04:07Z')).to.equal('');
      expect(await since('--since=1h')).to.equal('');
      expect(await since('--since=87600h')).to.equal(LINES);

      const recent = kubectl.start(['logs', '-f', 'p', '--since=3s']);
      try {
        await recent.waitFor(/tick 1\n/);
      } finally {
        await recent.stop();
      }
      expect(recent.output()).to.match(/^tick 1\n/);
      const all = kubectl.start(['logs', '-f', 'p', '--since-time=2026-01-02T03:04:06Z']);
      try {
        await all.waitFor(/tick 1\n/);
      } finally {
        await all.stop();
      }
      expect(all.output()).to.match(/^p main started\np main image nginx:1\.27\np main ready\ntick 1\n/);
    });

    it('--tail with -f prints the last N lines, then follows', async function () {
      this.timeout(20_000);
      expect(await kubectl.ok(['logs', 'p', '--tail=0'])).to.equal('');
      for (const [tail, first] of [
        ['1', /^p main ready\ntick 1\n/],
        ['0', /^tick 1\n/],
      ] as const) {
        const follow = kubectl.start(['logs', '-f', 'p', `--tail=${tail}`]);
        try {
          await follow.waitFor(/tick 1\n/);
        } finally {
          await follow.stop();
        }
        expect(follow.output(), `--tail=${tail}`).to.match(first);
      }
    });

    it('--limit-bytes cuts the log after N bytes, mid-line, and ends a followed one', async function () {
      this.timeout(20_000);
      expect(await kubectl.ok(['logs', 'p', '--limit-bytes=10'])).to.equal('p main sta');
      expect(await kubectl.ok(['logs', 'p', '--limit-bytes=1000'])).to.equal(LINES);
      const stamped = await kubectl.ok(['logs', 'p', '--timestamps']);
      expect(await kubectl.ok(['logs', 'p', '--timestamps', '--limit-bytes=40'])).to.equal(stamped.slice(0, 40));
      const followed = await kubectl.run(['logs', '-f', 'p', `--limit-bytes=${LINES.length + 9}`]);
      expect(followed).to.deep.equal({ code: 0, stdout: `${LINES}tick 1\nti`, stderr: '' });
    });

    it('refuses the options kube-apiserver refuses, with its Status', async () => {
      // kubectl checks its flags before it asks (`--limit-bytes must be greater than 0`); other clients do not.
      const log = '/api/v1/namespaces/default/pods/p/log';
      const invalid = (message: string, causes: object[]) => ({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `PodLogOptions "p" is invalid: ${message}`,
        reason: 'Invalid',
        details: { name: 'p', group: '', kind: 'PodLogOptions', causes },
        code: 422,
      });
      const cause = (field: string, message: string, reason = 'FieldValueInvalid') => ({ reason, message, field });
      const negativeTail = 'Invalid value: -1: must be greater than or equal to 0';
      const zeroLimit = 'Invalid value: 0: must be greater than 0';
      const both = 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified';
      const cases: [string, number, object][] = [
        ['tailLines=-1', 422, invalid(`tailLines: ${negativeTail}`, [cause('tailLines', negativeTail)])],
        [
          'tailLines=-1&limitBytes=0&container=nope',
          422,
          invalid(`[tailLines: ${negativeTail}, limitBytes: ${zeroLimit}]`, [
            cause('tailLines', negativeTail),
            cause('limitBytes', zeroLimit),
          ]),
        ],
        [
          'sinceSeconds=0',
          422,
          invalid('sinceSeconds: Invalid value: 0: must be greater than 0', [
            cause('sinceSeconds', 'Invalid value: 0: must be greater than 0'),
          ]),
        ],
        [
          'sinceSeconds=0&sinceTime=2026-01-02T03:04:06Z',
          422,
          invalid(`: ${both}`, [cause('', both, 'FieldValueForbidden')]),
        ],
      ];
      const badRequest = (message: string) => ({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message,
        reason: 'BadRequest',
        code: 400,
      });
      cases.push(
        ['tailLines=abc', 400, badRequest('strconv.ParseInt: parsing "abc": invalid syntax')],
        ['limitBytes=', 400, badRequest('strconv.ParseInt: parsing "": invalid syntax')],
        [
          'sinceSeconds=9223372036854775808',
          400,
          badRequest('strconv.ParseInt: parsing "9223372036854775808": value out of range'),
        ],
        [
          'sinceTime=yesterday',
          400,
          badRequest('parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'),
        ],
        ['sinceTime=2026-13-01T00:00:00Z', 400, badRequest('parsing time "2026-13-01T00:00:00Z": month out of range')],
      );
      for (const [query, code, body] of cases) {
        expect(await getWithClient(server, `${log}?${query}`), query).to.deep.equal({ code, body });
      }
      // What decodes and validates is answered: a whole int64, Go's zero time, a one-digit hour.
      for (const query of ['tailLines=9223372036854775807', 'sinceTime=', 'sinceTime=2026-01-02T3:04:06%2B00:00']) {
        expect(await getWithClient(server, `${log}?${query}`), query).to.deep.equal({ code: 200, body: LINES });
      }
    });

    it('refuses a container the pod does not have, and previous logs that do not exist', async () => {
      const wrong = await kubectl.run(['logs', 'p', '-c', 'nope']);
      expect(wrong.code).to.equal(1);
      expect(wrong.stderr).to.include('container nope is not valid for pod p');
      const previous = await kubectl.run(['logs', 'p', '--previous']);
      expect(previous.code).to.equal(1);
      expect(previous.stderr).to.include('previous terminated container "main" in pod "p" not found');
    });
  });

  describe('port-forward with the real kubectl', () => {
    const modes: { title: string; env: Record<string, string>; upgrade: string; protocols: string }[] = [
      { title: 'by default', env: {}, upgrade: 'websocket', protocols: 'SPDY/3.1+portforward.k8s.io' },
      {
        title: 'with KUBECTL_PORT_FORWARD_WEBSOCKETS=true',
        env: { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'true' },
        upgrade: 'websocket',
        protocols: 'SPDY/3.1+portforward.k8s.io',
      },
      {
        title: 'with KUBECTL_PORT_FORWARD_WEBSOCKETS=false',
        env: { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' },
        upgrade: 'SPDY/3.1',
        protocols: 'portforward.k8s.io',
      },
    ];
    for (const mode of modes) {
      it(`echoes every connection’s bytes ${mode.title} (${mode.upgrade})`, async () => {
        const local = await freePort();
        const forward = kubectl.start(['port-forward', 'pod/p', `${local}:80`], mode.env);
        try {
          await forward.waitFor(new RegExp(`Forwarding from 127\\.0\\.0\\.1:${local} -> 80`));
          const greeting = Buffer.from('hello through the pod\n');
          expect((await tcpRoundTrip(local, greeting)).toString()).to.equal(greeting.toString());
          // More than SPDY's 64 KiB default window, which neither end enforces. Random (so
          // incompressible) bytes, drawn from the test seed so that a failure can be replayed.
          const { note, random } = testSeed(import.meta.url);
          const next = random();
          const bulk = Buffer.from(Array.from({ length: 300 * 1024 }, () => Math.floor(next() * 256)));
          expect((await tcpRoundTrip(local, bulk)).equals(bulk), note).to.equal(true);
          const [a, b] = await Promise.all([
            tcpRoundTrip(local, Buffer.from('first')),
            tcpRoundTrip(local, Buffer.from('second')),
          ]);
          expect([a.toString(), b.toString()]).to.deep.equal(['first', 'second']);
          expect(forward.output()).not.to.match(/error|unable/i);
        } finally {
          await forward.stop();
        }
        expect(server.upgrades.map((u) => ({ upgrade: u.upgrade, protocols: u.protocols }))).to.deep.equal([
          { upgrade: mode.upgrade, protocols: mode.protocols },
        ]);
      });
    }
  });

  describe('port-forward over the v4.channel.k8s.io WebSocket protocol', () => {
    it('announces each port on its data and error channels, then echoes each data channel', async () => {
      const client = openChannels(
        server,
        '/api/v1/namespaces/default/pods/p/portforward?ports=80,8080',
        'v4.channel.k8s.io',
      );
      await client.opened;
      await client.waitForMessages(4);
      expect(client.raw.map((m) => [...m])).to.deep.equal([
        [0, 80, 0],
        [1, 80, 0],
        [2, 0x90, 0x1f],
        [3, 0x90, 0x1f],
      ]);
      client.ws.send(Buffer.concat([Buffer.of(2), Buffer.from('to 8080')]));
      client.ws.send(Buffer.concat([Buffer.of(0), Buffer.from('to 80')]));
      await client.waitForMessages(6);
      expect(client.messages.slice(4)).to.deep.equal([
        { channel: 2, text: 'to 8080' },
        { channel: 0, text: 'to 80' },
      ]);
      client.ws.close();
      await client.closed;
    });

    it('hands a port its listener serves to that listener, on its data channel', async () => {
      const client = openChannels(
        server,
        '/api/v1/namespaces/default/pods/p/portforward?ports=80,9000',
        'v4.channel.k8s.io',
      );
      await client.opened;
      await client.waitForMessages(4);
      client.ws.send(Buffer.concat([Buffer.of(2), Buffer.from('hello')]));
      client.ws.send(Buffer.concat([Buffer.of(0), Buffer.from('to 80')]));
      await client.waitForMessages(6);
      expect(client.messages.slice(4)).to.have.deep.members([
        { channel: 2, text: '9000 got hello' },
        { channel: 0, text: 'to 80' },
      ]);
      client.ws.close();
      await client.closed;
    });

    it('refuses a request without ports before upgrading', async () => {
      const ws = new WebSocket(
        `wss://127.0.0.1:${server.port}/api/v1/namespaces/default/pods/p/portforward`,
        ['v4.channel.k8s.io'],
        {
          ca: server.ca,
          cert: server.client.certPem,
          key: server.client.keyPem,
        },
      );
      ws.on('error', () => {});
      const [, response] = (await once(ws, 'unexpected-response')) as [unknown, IncomingMessage];
      let body = '';
      for await (const chunk of response) body += String(chunk);
      expect(response.statusCode).to.equal(400);
      expect(JSON.parse(body)).to.include({
        kind: 'Status',
        reason: 'BadRequest',
        message: 'query parameter "ports" is required',
      });
    });
  });
});
