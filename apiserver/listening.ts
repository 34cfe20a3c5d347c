/**
 * How the servers (gateway, devcluster) listen: the `--listen HOST:PORT` address, its URL, and a
 * stop that closes every connection.
 */
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { hostPort, parseHostPort, type HostPort } from './host-port.js';

export function parseListen(listen: string): HostPort {
  const parsed = parseHostPort(listen);
  if (!parsed) throw new Error(`--listen must be HOST:PORT, got ${JSON.stringify(listen)}`);
  return parsed;
}

/**
 * How long a kept-alive connection may sit idle: kube-apiserver's (its secure serving's
 * IdleTimeout, 90 s, matching Go's default transport, client-go's). Node's default, 5 s, closed
 * connections under clients that were about to reuse them: a request sent as the server closed
 * its connection fails with ECONNRESET, and clients send a POST again only when they know it
 * was not read.
 */
export const IDLE_CONNECTION_TIMEOUT_MS = 90_000;

/** Resolves once the server listens; rejects when it cannot (the port is taken, say). */
export function listenOn(server: HttpServer, host: string, port: number): Promise<void> {
  server.keepAliveTimeout = IDLE_CONNECTION_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** `https://host:port`, an IPv6 host in brackets. */
export function httpsUrl(host: string, port: number): string {
  return `https://${hostPort(host, port)}`;
}

/**
 * Closes the server and every connection to it. A socket handed to an 'upgrade' listener (exec,
 * attach, port-forward, a WebSocket proxy) leaves the HTTP server's bookkeeping:
 * `closeAllConnections()` does not see it, yet `close()` waits for it. So upgraded sockets are
 * tracked from the start and destroyed here too; otherwise one open exec session holds a stop
 * forever.
 */
export function closer(server: HttpServer): () => Promise<void> {
  const upgraded = new Set<Duplex>();
  server.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
  });
  return async () => {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    for (const socket of upgraded) socket.destroy();
    await closed;
  };
}
