/**
 * The HTTP server every simulated pod runs on each port it listens on (devcluster/proxy-locations.ts
 * decides which ports answer), reached alike through the pods/services proxy and port-forward: a
 * web server image (web-server-images.ts) serves its welcome page on its port; every other port is
 * an echo that says which pod and port a request reached and what arrived there. WebSocket
 * upgrades to an echo are accepted and echo every message.
 */
import { Buffer } from 'node:buffer';
import { createServer, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { readBody } from '../apiserver/handlers/http-io.js';
import { detach } from '../apiserver/process-faults.js';
import { offeredProtocols } from './streaming/upgrade-answers.js';
import { podListensOn, type PodPort } from './proxy-locations.js';
import type { PortListener } from './streaming/port-forward.js';
import { webServerOn, type WebServer } from './web-server-images.js';

/** A request as it reaches the workload behind the proxy. */
export interface ProxiedRequest {
  method: string;
  /** The path after `/proxy`, `/` at least. */
  path: string;
  /** The raw query string, without `?`. */
  query: string;
  body: string;
}

/** A simulated workload's whole answer. */
export interface SimulatedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What the echo reports (docs/devcluster.md documents the shape). */
export function echoOf(target: PodPort, request: ProxiedRequest): Record<string, unknown> {
  return {
    pod: target.pod.metadata.name,
    namespace: target.pod.metadata.namespace,
    port: target.port,
    scheme: target.scheme,
    method: request.method,
    path: request.path,
    query: request.query,
    body: request.body,
  };
}

export function podHttpAnswer(target: PodPort, request: ProxiedRequest): SimulatedAnswer {
  const webServer = webServerOn(target.pod, target.port);
  if (webServer) return webServerAnswer(webServer, request);
  return {
    status: 200,
    headers: { 'Content-Type': 'application/json' },
    body: `${JSON.stringify(echoOf(target, request))}\n`,
  };
}

/** Whether an upgrade on this port reaches the echo (a web server answers it as a plain request). */
export function acceptsWebSocket(target: PodPort): boolean {
  return webServerOn(target.pod, target.port) === null;
}

/** How each web server words its pages: the welcome page, and an error page with its status line. */
const WEB_SERVER_PAGES: Readonly<
  Record<
    WebServer['kind'],
    { server: string; index: string; error: (status: number, method: string) => SimulatedAnswer }
  >
> = {
  nginx: {
    server: 'nginx',
    index: `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>The nginx web server is running in this pod (simulated by the devcluster).</p>
</body>
</html>
`,
    error: (status) => {
      const line = `${status} ${status === 404 ? 'Not Found' : 'Not Allowed'}`;
      return {
        status,
        headers: { 'Content-Type': 'text/html', Server: 'nginx' },
        body: `<html>\n<head><title>${line}</title></head>\n<body>\n<center><h1>${line}</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n`,
      };
    },
  },
  httpd: {
    server: 'Apache',
    index: '<html><body><h1>It works!</h1></body></html>\n',
    error: (status, method) => {
      const [title, text] =
        status === 404
          ? ['Not Found', 'The requested URL was not found on this server.']
          : ['Method Not Allowed', `The requested method ${method} is not allowed for this URL.`];
      return {
        status,
        headers: { 'Content-Type': 'text/html; charset=iso-8859-1', Server: 'Apache' },
        body: `<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>${status} ${title}</title>\n</head><body>\n<h1>${title}</h1>\n<p>${text}</p>\n</body></html>\n`,
      };
    },
  },
};

/** A static site: its index at `/` and `/index.html`, 404 elsewhere, 405 for methods other than GET and HEAD. */
function webServerAnswer(server: WebServer, request: ProxiedRequest): SimulatedAnswer {
  const pages = WEB_SERVER_PAGES[server.kind];
  const answer =
    request.method !== 'GET' && request.method !== 'HEAD'
      ? pages.error(405, request.method)
      : request.path !== '/' && request.path !== '/index.html'
        ? pages.error(404, request.method)
        : { status: 200, headers: { 'Content-Type': 'text/html', Server: pages.server }, body: pages.index };
  // A static file's length is known, so a web server sends it rather than chunks (HEAD included).
  answer.headers['Content-Length'] = String(Buffer.byteLength(answer.body));
  return answer;
}

/** What port-forward reaches on a pod: HTTP on every port the proxy reaches (podListensOn), else the echo. */
export function podPortListener(pod: PodPort['pod']): PortListener {
  return (port) => (podListensOn(pod, port) ? (connection) => servePodHttpConnection(connection, pod, port) : null);
}

/**
 * Serves HTTP/1.1 on one forwarded connection with the answers the proxy gives for the same pod
 * and port: keep-alive, HEAD without a body, the connection's end when the client ends it, and
 * 400 for bytes that are not HTTP.
 */
function servePodHttpConnection(connection: Duplex, pod: PodPort['pod'], port: number): void {
  const target: PodPort = { kind: 'pod', pod, port, scheme: 'http' };
  const server = createServer((req: IncomingMessage, res) => {
    detach(
      (async () => {
        const body = await readBody(req).then(
          (bytes) => bytes.toString('utf8'),
          () => null,
        );
        // Larger than the proxy takes (apiserver/handlers/http-io.ts), or cut off.
        if (body === null) return void res.writeHead(413).end();
        const url = req.url ?? '/';
        const mark = url.indexOf('?');
        const answer = podHttpAnswer(target, {
          method: req.method ?? 'GET',
          path: mark < 0 ? url : url.slice(0, mark),
          query: mark < 0 ? '' : url.slice(mark + 1),
          body,
        });
        res.writeHead(answer.status, answer.headers).end(answer.body);
      })(),
      'a forwarded HTTP request',
    );
  });
  // Node would destroy the connection, which port-forward cannot pass on; ending it sends FIN.
  server.on('clientError', (_err, socket: Duplex) =>
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n'),
  );
  server.emit('connection', connection);
}

/**
 * Completes the handshake (with the client's first subprotocol, as an echo server has no
 * preference), sends the echo of the upgrade request as one text message, then sends every
 * message back as it came, text or binary.
 */
export function serveEchoWebSocket(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  target: PodPort,
  request: ProxiedRequest,
): void {
  // ws loads with the first stream (streaming/upgrade.ts).
  const accepted = import('./streaming/upgrade.js').then(({ acceptWebSocket }) =>
    acceptWebSocket(req, socket, head, offeredProtocols(req, 'websocket')[0] ?? null, (ws) => {
      // A connection that breaks just ends; there is nothing to clean up.
      ws.on('error', () => {});
      ws.send(JSON.stringify(echoOf(target, request)));
      ws.on('message', (data: Buffer, isBinary: boolean) => ws.send(data, { binary: isBinary }));
    }),
  );
  detach(accepted, 'echo WebSocket');
}
