/**
 * pods/portforward: each forwarded connection goes to what listens on its port (a PortListener the
 * caller gives), and every other port is an echo server. Three framings:
 *
 * - SPDY/3.1, X-Stream-Protocol-Version portforward.k8s.io (kubectl's classic path): for each
 *   local connection the client opens an `error` and a `data` stream sharing a `requestID` and a
 *   `port` header. The server echoes the data stream, FIN follows FIN, then it ends the error
 *   stream empty (anything written there is an error kubectl prints).
 * - WebSocket, subprotocol SPDY/3.1+portforward.k8s.io (kubectl 1.31+): the same SPDY session
 *   tunnelled through binary WebSocket messages.
 * - WebSocket, subprotocol v4.channel.k8s.io or none (the kubelet's channel protocol, for other
 *   clients): ports come from `?ports=`; port i has data channel 2i and error channel 2i+1, and
 *   the server first writes the port (uint16, little-endian) on both.
 */
import { Buffer } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { Duplex } from 'node:stream';
import { createWebSocketStream, type WebSocket } from 'ws';
import { ApiError, badRequest } from '../../apiserver/status.js';
import { SpdySession, type SpdyStream } from './spdy-session.js';
import { acceptSpdy, acceptWebSocket } from './upgrade.js';
import { chooseProtocol, offeredProtocols, refuseProtocols, refuseUpgrade, upgradeKind } from './upgrade-answers.js';
import { sendOnChannel } from './websocket-channels.js';

const SPDY_PROTOCOLS = ['portforward.k8s.io'] as const;
const TUNNEL_PROTOCOL = 'SPDY/3.1+portforward.k8s.io';
const CHANNEL_PROTOCOL = 'v4.channel.k8s.io';
const WEBSOCKET_PROTOCOLS = [TUNNEL_PROTOCOL, CHANNEL_PROTOCOL] as const;

/**
 * What listens on a port of the pod, given each connection forwarded there (its readable side ends
 * when the client ends, and ending it ends the forwarded connection), or null for an echo.
 */
export type PortListener = (port: number) => ((connection: Duplex) => void) | null;

const echoEverywhere: PortListener = () => null;

/** pods/portforward over WebSocket (tunnelled SPDY or channels) and SPDY. */
export function servePortForward(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  query: URLSearchParams,
  listen: PortListener = echoEverywhere,
): void {
  const kind = upgradeKind(req);
  if (!kind) {
    refuseUpgrade(socket, badRequest('Upgrade request required').status);
    return;
  }
  const offered = offeredProtocols(req, kind);
  const supported = kind === 'spdy' ? SPDY_PROTOCOLS : WEBSOCKET_PROTOCOLS;
  const protocol = chooseProtocol(offered, supported);
  // The kubelet also serves a WebSocket client that names no subprotocol, with binary channels.
  if (!protocol && (kind === 'spdy' || offered.length > 0)) {
    refuseProtocols(socket, kind, offered, supported);
    return;
  }
  if (kind === 'spdy') {
    forwardSpdyStreams(acceptSpdy(socket, head, protocol!), listen);
    return;
  }
  if (protocol === TUNNEL_PROTOCOL) {
    acceptWebSocket(req, socket, head, protocol, (ws) =>
      forwardSpdyStreams(new SpdySession(createWebSocketStream(ws)), listen),
    );
    return;
  }
  let ports: number[];
  try {
    ports = requestedPorts(query);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    refuseUpgrade(socket, err.status);
    return;
  }
  acceptWebSocket(req, socket, head, protocol ?? null, (ws) => forwardChannels(ws, ports, listen));
}

/** A TCP port, or null for anything else. */
function parsePort(text: string | undefined): number | null {
  if (!text || !/^\d+$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

function requestedPorts(query: URLSearchParams): number[] {
  const values = query.getAll('ports').flatMap((value) => value.split(','));
  if (values.length === 0) throw badRequest('query parameter "ports" is required');
  return values.map((value) => {
    const port = parsePort(value);
    if (port === null) throw badRequest(`unable to parse "${value}" as a port`);
    return port;
  });
}

function forwardSpdyStreams(session: SpdySession, listen: PortListener): void {
  const unpaired = new Map<string, { error?: SpdyStream; data?: SpdyStream }>();
  session.on('stream', (stream) => {
    const type = stream.headers.streamtype;
    const requestId = stream.headers.requestid;
    const pair = requestId === undefined ? undefined : (unpaired.get(requestId) ?? {});
    if ((type !== 'error' && type !== 'data') || !pair || pair[type]) {
      stream.reset();
      return;
    }
    // A stream dies with its connection; nothing else depends on it.
    stream.on('error', () => {});
    pair[type] = stream;
    unpaired.set(requestId, pair);
    if (pair.error && pair.data) {
      unpaired.delete(requestId);
      forward(pair.data, pair.error, listen);
    }
  });
}

function forward(data: SpdyStream, error: SpdyStream, listen: PortListener): void {
  // The client only half-closes the error stream; reading lets its FIN through.
  error.resume();
  const port = parsePort(data.headers.port);
  if (port === null) {
    error.end(`unable to parse "${data.headers.port ?? ''}" as a port`);
    data.end();
    return;
  }
  data.once('finish', () => error.end());
  (listen(port) ?? echo)(data);
}

function echo(connection: Duplex): void {
  connection.pipe(connection);
}

function forwardChannels(ws: WebSocket, ports: number[], listen: PortListener): void {
  const connections = ports.map((port, i) => {
    const portBytes = Buffer.alloc(2);
    portBytes.writeUInt16LE(port);
    sendOnChannel(ws, 2 * i, portBytes);
    sendOnChannel(ws, 2 * i + 1, portBytes);
    const listener = listen(port);
    if (!listener) return null;
    // The channel protocol has no half-close: a connection lasts as long as the WebSocket.
    const connection = new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, callback) {
        sendOnChannel(ws, 2 * i, chunk);
        callback();
      },
    });
    ws.once('close', () => connection.destroy());
    listener(connection);
    return connection;
  });
  ws.on('message', (message: Buffer) => {
    const channel = message[0];
    if (channel % 2 !== 0 || channel / 2 >= ports.length) return;
    const connection = connections[channel / 2];
    if (connection) connection.push(message.subarray(1));
    else sendOnChannel(ws, channel, message.subarray(1));
  });
  ws.on('error', () => ws.terminate());
}
