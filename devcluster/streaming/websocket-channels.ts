/**
 * The channel framing shared by the WebSocket streaming protocols (v4/v5.channel.k8s.io): every
 * binary message starts with one byte naming its channel.
 */
import { Buffer } from 'node:buffer';
import { WebSocket } from 'ws';

/** Sends `data` on `channel`; after the connection closed there is no one to send to. */
export function sendOnChannel(ws: WebSocket, channel: number, data: string | Buffer): void {
  if (ws.readyState === WebSocket.OPEN) ws.send(Buffer.concat([Buffer.of(channel), Buffer.from(data)]));
}
