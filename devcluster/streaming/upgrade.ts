/**
 * The protocols' own handshakes, once upgrade-answers.ts has chosen the subprotocol: WebSocket
 * (RFC 6455) by ws, and SPDY/3.1's 101 answer. Loaded with the first stream, as the handlers are
 * (devcluster/pod-streams.ts).
 */
import type { Buffer } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { SpdySession } from './spdy-session.js';

/** Completes a WebSocket handshake with `protocol` (null: answer without a subprotocol). */
export function acceptWebSocket(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  protocol: string | null,
  onOpen: (ws: WebSocket) => void,
): void {
  const server = new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false });
  // ws refuses offers that are not RFC 7230 tokens, and kubectl's port-forward tunnel protocol
  // (`SPDY/3.1+portforward.k8s.io`) is not one. The protocol is already chosen, so ws never sees
  // the offer and the answer is added here.
  delete req.headers['sec-websocket-protocol'];
  if (protocol) server.on('headers', (headers) => headers.push(`Sec-WebSocket-Protocol: ${protocol}`));
  server.handleUpgrade(req, socket, head, onOpen);
}

/** Answers 101 with the negotiated protocol; the socket then carries SPDY frames. */
export function acceptSpdy(socket: Duplex, head: Buffer, protocol: string): SpdySession {
  socket.write(
    [
      'HTTP/1.1 101 Switching Protocols',
      'Connection: Upgrade',
      'Upgrade: SPDY/3.1',
      `X-Stream-Protocol-Version: ${protocol}`,
      '',
      '',
    ].join('\r\n'),
  );
  return new SpdySession(socket, head);
}
