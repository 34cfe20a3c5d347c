/**
 * The HTTP/1.1 upgrade that starts every streaming subresource, up to the protocol's own
 * handshake: which upgrade it is (WebSocket, subprotocol in Sec-WebSocket-Protocol, or SPDY/3.1,
 * subprotocol in X-Stream-Protocol-Version), the subprotocol chosen, and the plain HTTP answer
 * that refuses one. Apart from upgrade.ts, whose ws and SPDY modules load with the first stream.
 */
import { Buffer } from 'node:buffer';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Status } from '../../apiserver/status.js';

export type UpgradeKind = 'websocket' | 'spdy';

export function upgradeKind(req: IncomingMessage): UpgradeKind | null {
  const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
  if (upgrade === 'websocket') return 'websocket';
  if (upgrade.split(',').some((token) => token.trim() === 'spdy/3.1')) return 'spdy';
  return null;
}

/** The subprotocols the client offered, in its order of preference. */
export function offeredProtocols(req: IncomingMessage, kind: UpgradeKind): string[] {
  const header =
    kind === 'websocket' ? req.headers['sec-websocket-protocol'] : req.headers['x-stream-protocol-version'];
  return (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((protocol) => protocol.trim())
    .filter(Boolean);
}

/** As kube negotiates: the client's first protocol that the server supports. */
export function chooseProtocol(offered: string[], supported: readonly string[]): string | undefined {
  return offered.find((protocol) => supported.includes(protocol));
}

/** A whole HTTP/1.1 response on the raw socket of an upgrade request, which is then closed. */
export function writeResponse(
  socket: Duplex,
  code: number,
  headers: Record<string, string | string[]>,
  body: string,
): void {
  const lines = [`HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ''}`];
  for (const [name, value] of Object.entries({
    ...headers,
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  })) {
    for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${one}`);
  }
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** Refuses an upgrade with a Status, which client-go turns into `Error from server (<reason>): <message>`. */
export function refuseUpgrade(socket: Duplex, status: Status): void {
  writeResponse(socket, status.code, { 'Content-Type': 'application/json' }, JSON.stringify(status));
}

/** Refuses an upgrade whose subprotocols do not match, worded as kube's streaming servers word it. */
export function refuseProtocols(
  socket: Duplex,
  kind: UpgradeKind,
  offered: string[],
  supported: readonly string[],
): void {
  if (kind === 'spdy') {
    const message = `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${supported.join(' ')}]`;
    writeResponse(
      socket,
      403,
      { 'Content-Type': 'text/plain; charset=utf-8', 'X-Accepted-Stream-Protocol-Versions': [...supported] },
      `${message}\n`,
    );
    return;
  }
  const message = `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${supported.join(' ')}]`;
  writeResponse(socket, 400, { 'Content-Type': 'text/plain; charset=utf-8' }, `${message}\n`);
}
