import { readFile } from 'node:fs/promises';
import type { ClientRequest, IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { parseKubeconfig } from '../../certs/index.js';

export interface ApiResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
  text: string;
}

/** A raw HTTPS client for one kubeconfig's user: what a test needs to see exact statuses and streams. */
export class ApiClient {
  private constructor(
    private readonly base: URL,
    private readonly tls: { ca: string; cert: string; key: string },
  ) {}

  static async fromKubeconfig(file: string): Promise<ApiClient> {
    const parsed = parseKubeconfig(await readFile(file, 'utf8'));
    return new ApiClient(new URL(parsed.server), { ca: parsed.caPem, cert: parsed.certPem, key: parsed.keyPem });
  }

  request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const length: Record<string, string> = payload === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(payload)) };
      const req = this.open(method, path, { 'Content-Type': 'application/json', Accept: 'application/json', ...length, ...headers });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let parsed: unknown;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, text });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** A watch: events arrive in `events` as they are read; `close()` hangs up. */
  watch(path: string, headers: Record<string, string> = {}): WatchStream {
    return new WatchStream(this.open('GET', path, { Accept: 'application/json', ...headers }));
  }

  private open(method: string, path: string, headers: Record<string, string>): ClientRequest {
    return request({
      method,
      host: this.base.hostname,
      port: this.base.port,
      path,
      headers,
      ca: this.tls.ca,
      cert: this.tls.cert,
      key: this.tls.key,
      agent: false,
    });
  }
}

export class WatchStream {
  readonly events: { type: string; object: any }[] = [];
  status = 0;
  ended = false;
  private buffer = '';

  constructor(private readonly req: ClientRequest) {
    req.on('response', (res) => {
      this.status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        this.buffer += chunk;
        let newline: number;
        while ((newline = this.buffer.indexOf('\n')) >= 0) {
          const line = this.buffer.slice(0, newline);
          this.buffer = this.buffer.slice(newline + 1);
          if (line.trim()) this.events.push(JSON.parse(line));
        }
      });
      res.on('end', () => (this.ended = true));
      res.on('close', () => (this.ended = true));
    });
    req.on('error', () => (this.ended = true));
    req.end();
  }

  async waitFor(predicate: (events: { type: string; object: any }[]) => boolean, ms = 10000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!predicate(this.events)) {
      if (Date.now() > deadline) throw new Error(`watch did not reach the expected state within ${ms}ms; events: ${JSON.stringify(this.events.map((e) => [e.type, e.object?.metadata?.name]))}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  close(): void {
    this.req.destroy();
  }
}
