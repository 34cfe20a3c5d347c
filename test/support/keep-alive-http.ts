/**
 * Plain HTTP requests to 127.0.0.1:<port> over one keep-alive connection (a port-forward's local
 * end): each answer says whether it came over the connection the first request opened.
 */
import { Buffer } from 'node:buffer';
import { once } from 'node:events';
import { Agent, request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Whether the request went over the first request's connection. */
  sameConnection: boolean;
}

export async function keepAliveRequests(
  port: number,
  requests: { method: string; path: string; body?: string }[],
): Promise<HttpAnswer[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let first: Socket | undefined;
  const answers: HttpAnswer[] = [];
  try {
    for (const { method, path, body } of requests) {
      const req = request({ host: '127.0.0.1', port, method, path, agent });
      const [[response], [socket]] = await Promise.all([
        once(req, 'response') as Promise<[IncomingMessage]>,
        once(req, 'socket') as Promise<[Socket]>,
        new Promise<void>((resolve) => req.end(body ?? '', resolve)),
      ]);
      first ??= socket;
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      answers.push({
        status: response.statusCode ?? 0,
        headers: response.headers,
        body: Buffer.concat(chunks).toString(),
        sameConnection: socket === first,
      });
    }
  } finally {
    agent.destroy();
  }
  return answers;
}
