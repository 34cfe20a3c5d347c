import type { ClientRequest, IncomingHttpHeaders } from 'node:http';
import { Agent, request } from 'node:https';
import { parseKubeconfig } from '../../certs/index.js';

export interface RestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, when there is one. */
  body: any;
  text: string;
}

/**
 * A small HTTPS client for a Kubernetes API, authenticated with a kubeconfig's client certificate:
 * what the tenant controller uses upstream and the `paddock tenant` command uses against the
 * gateway. Connections are kept alive and reused.
 */
export class RestClient {
  private readonly agent: Agent;

  constructor(
    readonly server: URL,
    tls: { ca: string; cert: string; key: string },
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 64, ca: tls.ca, cert: tls.cert, key: tls.key });
  }

  static fromKubeconfig(text: string): RestClient {
    const parsed = parseKubeconfig(text);
    return new RestClient(new URL(parsed.server), { ca: parsed.caPem, cert: parsed.certPem, key: parsed.keyPem });
  }

  /** `signal` aborts the request (the promise rejects with the abort's reason). */
  request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<RestResponse> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const length: Record<string, string> =
        payload === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(payload)) };
      const req = this.open(
        method,
        path,
        {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          ...length,
          ...headers,
        },
        signal,
      );
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', reject);
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

  /** A request whose response the caller reads as a stream (watches); `signal` aborts it. */
  open(method: string, path: string, headers: Record<string, string>, signal?: AbortSignal): ClientRequest {
    const { hostname: host, port } = this.server;
    return request({ method, host, port, path, headers, agent: this.agent, signal });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Throws the server's Status message unless the response is one of `ok` statuses. */
export function expectStatus(res: RestResponse, what: string, ...ok: number[]): RestResponse {
  if (!ok.includes(res.status)) {
    const message = res.body?.message ?? res.text.slice(0, 300);
    throw new Error(`${what}: ${res.status} ${message}`);
  }
  return res;
}
