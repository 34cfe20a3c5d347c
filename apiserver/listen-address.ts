/** The `--listen HOST:PORT` of the servers (gateway, devcluster): parsed, listened on, and as a URL. */
import type { Server } from 'node:net';

export function parseListen(listen: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(listen);
  if (!match) throw new Error(`--listen must be HOST:PORT, got ${JSON.stringify(listen)}`);
  return { host: match[1] ?? match[2], port: Number(match[3]) };
}

/** Resolves once the server listens; rejects when it cannot (the port is taken, say). */
export function listenOn(server: Server, host: string, port: number): Promise<void> {
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
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
