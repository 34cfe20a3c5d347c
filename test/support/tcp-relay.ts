import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP relay in front of a server (TLS passes through end to end), that a test can make stall:
 * connections stop relaying the server's answers, as an overloaded or hung cluster would. Or hold
 * them: kept, and relayed on release, as a slow cluster's answers come late but whole.
 */
export class TcpRelay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private stalled = false;
  /** While held, each connection's answers wait here, in order; `end` is the server's hang-up, which waits too. */
  private held: { client: Socket; chunk: Buffer | 'end' }[] | undefined;
  port = 0;

  constructor(private readonly targetPort: number) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.targetPort, '127.0.0.1');
      this.sockets.add(client).add(upstream);
      client.on('data', (chunk) => upstream.write(chunk));
      upstream.on('data', (chunk: Buffer) => {
        if (this.held) this.held.push({ client, chunk });
        else if (!this.stalled) client.write(chunk);
      });
      const close = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on('close', close).on('error', close);
      // A server that answered and then closed (its keep-alive timeout) while held: the client gets both on release.
      const serverClosed = () => (this.held ? this.held.push({ client, chunk: 'end' }) : close());
      upstream.on('close', serverClosed).on('error', serverClosed);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  stall(): void {
    this.stalled = true;
  }

  resume(): void {
    this.stalled = false;
  }

  hold(): void {
    this.held ??= [];
  }

  /** Relays what was held, and from now on everything as it comes. */
  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const { client, chunk } of held)
      if (client.destroyed) continue;
      else if (chunk === 'end') client.end();
      else client.write(chunk);
  }

  /** Cuts every open connection (the answers a stall swallowed are gone): clients see a reset and connect again. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
