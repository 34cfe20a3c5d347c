/**
 * A replica's graceful stop (SIGTERM), in kube-apiserver's order:
 *
 * 1. `/readyz` fails at once (its `shutdown` check), so load balancers and endpoints take the
 *    replica out; requests still come in for `--shutdown-delay` while they notice, and are served.
 * 2. The listener closes: a new connection is refused and goes to another replica (HAProxy's
 *    `option redispatch`), and every response from now on says `Connection: close`, so a client's
 *    next request opens a connection elsewhere. Idle keep-alive connections are closed only
 *    IDLE_GRACE_MS later: closed at once, a client sending its next request just then (a writer
 *    between two creates) got a hang-up for a request the replica never read, and a POST is not
 *    sent again. In the grace its request is answered, and its connection closed after it.
 * 3. Watches and followed logs end cleanly (the chunked body ends, and so does the connection):
 *    a client re-watches from its last resourceVersion, on another replica. Other requests in
 *    flight run to their end.
 * 4. Whatever is still open at `--shutdown-timeout` after the signal (an exec session, a request
 *    that does not end) is cut, and the replica stops.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import type { Duplex } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { onClose } from '../../apiserver/handlers/http-io.js';

export interface DrainOptions {
  /** How long requests are still served after `/readyz` fails (`--shutdown-delay`). */
  delayMs: number;
  /** From the signal to the end, whatever is still open (`--shutdown-timeout`). */
  timeoutMs: number;
}

/** How often, while draining, streams whose headers went out since are ended. */
const SWEEP_MS = 50;
/** How long an idle keep-alive connection may still send a request once the listener closed. */
const IDLE_GRACE_MS = 1000;

export class ServerDrain {
  private draining = false;
  private readonly inFlight = new Set<ServerResponse>();
  /** Responses that run until the client or the server ends them: watches, followed logs. */
  private readonly streams = new Set<ServerResponse>();
  private readonly upgraded = new Set<Duplex>();

  get isDraining(): boolean {
    return this.draining;
  }

  /** Follows a request until its response closes; a stream is ended by the drain. */
  track(req: IncomingMessage, res: ServerResponse): void {
    this.inFlight.add(res);
    const stream = isStream(req);
    if (stream) this.streams.add(res);
    if (this.draining) res.setHeader('Connection', 'close');
    onClose(res, () => {
      this.inFlight.delete(res);
      this.streams.delete(res);
    });
  }

  /** An upgraded connection (exec, attach, port-forward): cut at the timeout. */
  trackUpgrade(socket: Duplex): void {
    this.upgraded.add(socket);
    socket.once('close', () => this.upgraded.delete(socket));
  }

  /** Drains `server` as above; resolves once nothing is left open, at `timeoutMs` at the latest. */
  async drain(server: Server, options: DrainOptions): Promise<void> {
    const deadline = Date.now() + options.timeoutMs;
    this.draining = true;
    if (options.delayMs > 0) await delay(Math.min(options.delayMs, options.timeoutMs));
    // The listener only: http's own close() would close the idle connections with it (Node 19+).
    const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    const idleUntil = Math.min(Date.now() + IDLE_GRACE_MS, deadline);
    let idleClosed = false;
    while ((this.inFlight.size > 0 || !idleClosed) && Date.now() < deadline) {
      for (const res of this.streams) endStream(res);
      if (!idleClosed && Date.now() >= idleUntil) {
        server.closeIdleConnections();
        idleClosed = true;
      }
      await delay(Math.min(SWEEP_MS, Math.max(0, deadline - Date.now())));
    }
    server.closeAllConnections();
    for (const socket of this.upgraded) socket.destroy();
    await closed;
  }
}

/** A watch, or a followed log: a response with no end of its own. */
function isStream(req: IncomingMessage): boolean {
  // Every request passes here: only one that can be a stream is parsed.
  if (!/watch|follow/.test(req.url ?? '')) return false;
  const query = (req.url ?? '').split('?')[1] ?? '';
  const params = new URLSearchParams(query);
  const yes = (name: string) => params.get(name) === 'true' || params.get(name) === '1';
  const path = (req.url ?? '').split('?')[0];
  return (
    yes('watch') ||
    /^\/(api\/[^/]+|apis\/[^/]+\/[^/]+)\/watch\//.test(path) ||
    (yes('follow') && /\/log\/?$/.test(path))
  );
}

/** Ends a stream whose headers went out: the body's end, then the connection's, so the client comes back elsewhere. */
function endStream(res: ServerResponse): void {
  if (!res.headersSent || res.writableEnded) return;
  // Whatever writes the stream may have one more write under way: the stream is over, and so is that.
  res.on('error', () => undefined);
  res.end();
  res.once('finish', () => res.socket?.end());
}
