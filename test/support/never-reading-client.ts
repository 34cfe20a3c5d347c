/**
 * A client that never reads what it asked for — the slow reader of the upstream-seats attack
 * (test/adversarial/upstream-seats.test.ts, `bench fair-share`): requests at once on as many
 * connections, each 200 answer left unread (Node stops reading its socket once its buffer is full), so
 * the server cannot send it on. A refusal's small body is read.
 */
import type { ClientRequest, IncomingHttpHeaders } from 'node:http';
import { Agent, request } from 'node:https';

export interface HeldAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The whole body of a refusal ('' for a 200, whose body is never read). */
  body: Promise<string>;
}

export class NeverReadingClient {
  private readonly agent: Agent;
  private readonly open = new Set<ClientRequest>();

  constructor(
    private readonly server: URL,
    tls: { ca?: string; cert?: string; key?: string },
  ) {
    // Kept alive: a refusal read whole leaves its connection for the next request, as client-go's would.
    this.agent = new Agent({ keepAlive: true, maxSockets: Infinity, ca: tls.ca, cert: tls.cert, key: tls.key });
  }

  /** Resolves with the answer's head; rejects when the request failed before one (or was hung up). */
  get(path: string): Promise<HeldAnswer> {
    return new Promise((resolve, reject) => {
      const req = request({
        host: this.server.hostname,
        port: this.server.port,
        path,
        headers: { Accept: 'application/json' },
        agent: this.agent,
      });
      this.open.add(req);
      req.once('close', () => this.open.delete(req));
      req.on('response', (res) => {
        res.on('error', () => undefined);
        const body =
          res.statusCode === 200
            ? Promise.resolve('')
            : new Promise<string>((done) => {
                let text = '';
                res.setEncoding('utf8');
                res.on('data', (chunk: string) => (text += chunk));
                res.on('end', () => done(text));
                res.on('close', () => done(text));
              });
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** Requests sent and not yet closed. */
  get pending(): number {
    return this.open.size;
  }

  /** Hangs up every request: the server sees its client gone. */
  close(): void {
    for (const req of this.open) req.destroy();
    this.agent.destroy();
  }
}
