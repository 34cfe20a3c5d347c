/**
 * The HTTP server every simulated pod runs on each port it declares (devcluster/proxy-locations.ts
 * decides which ports answer): an echo that says which pod and port a request reached and what
 * arrived there. WebSocket upgrades are accepted and echo every message.
 */
import type { Buffer } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { acceptWebSocket, offeredProtocols } from './streaming/upgrade.js';
import type { PodPort } from './proxy-locations.js';

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
  return {
    status: 200,
    headers: { 'Content-Type': 'application/json' },
    body: `${JSON.stringify(echoOf(target, request))}\n`,
  };
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
  acceptWebSocket(req, socket, head, offeredProtocols(req, 'websocket')[0] ?? null, (ws) => {
    // A connection that breaks just ends; there is nothing to clean up.
    ws.on('error', () => {});
    ws.send(JSON.stringify(echoOf(target, request)));
    ws.on('message', (data: Buffer, isBinary: boolean) => ws.send(data, { binary: isBinary }));
  });
}
