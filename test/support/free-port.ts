import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Where a picked port starts: above the well-known and most registered services' ports. */
const LOWEST = 20_000;

/**
 * The first port the OS hands out for an outgoing connection (ip_local_port_range), or 32768
 * where that cannot be read.
 */
function firstEphemeralPort(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

/** Whether a loopback listener can bind `port` now (0: any; answers the port bound). */
function bind(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(undefined) : reject(err),
    );
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : undefined));
    });
  });
}

/**
 * A loopback port that was free a moment ago, for a server started later (etcd, haproxy). It is
 * picked below the ephemeral range: a port the OS picked (listen on 0) comes from that range, and
 * any outgoing connection of the parallel tests could take it before the server binds it
 * (`bind: address already in use`).
 */
export async function freePort(): Promise<number> {
  const highest = firstEphemeralPort() - 1;
  for (let attempt = 0; highest > LOWEST && attempt < 50; attempt++) {
    const port = await bind(LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1)));
    if (port !== undefined) return port;
  }
  const port = await bind(0);
  if (port === undefined) throw new Error('no free loopback port');
  return port;
}
