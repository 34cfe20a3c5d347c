import type { ClientRequest } from 'node:http';
import { readFile } from 'node:fs/promises';
import { LineSplitter } from '../../apiserver/client/line-splitter.js';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { parseKubeconfig } from '../../certs/index.js';
import { waitUntil } from './eventually.js';

export type { RestResponse as ApiResponse } from '../../apiserver/client/rest-client.js';

/** The REST client plus watches, for tests that need exact statuses and streams. */
export class ApiClient extends RestClient {
  static async load(kubeconfigFile: string): Promise<ApiClient> {
    const parsed = parseKubeconfig(await readFile(kubeconfigFile, 'utf8'));
    return new ApiClient(new URL(parsed.server), { ca: parsed.caPem, cert: parsed.certPem, key: parsed.keyPem });
  }

  /** A watch: events arrive in `events` as they are read; `close()` hangs up. */
  watch(path: string, headers: Record<string, string> = {}): WatchStream {
    const req = this.open('GET', path, { Accept: 'application/json', ...headers });
    return new WatchStream(req);
  }
}

export class WatchStream {
  readonly events: { type: string; object: any }[] = [];
  status = 0;
  ended = false;
  private readonly lines = new LineSplitter();

  constructor(private readonly req: ClientRequest) {
    req.on('response', (res) => {
      this.status = res.statusCode ?? 0;
      res.on('data', (chunk: Buffer) => {
        for (const line of this.lines.push(chunk)) if (line.trim()) this.events.push(JSON.parse(line));
      });
      res.on('end', () => (this.ended = true));
      res.on('close', () => (this.ended = true));
    });
    req.on('error', () => (this.ended = true));
    req.end();
  }

  async waitFor(predicate: (events: { type: string; object: any }[]) => boolean, ms = 10000): Promise<void> {
    await waitUntil('the watch reaches the expected state', () => predicate(this.events), {
      timeout: ms,
      interval: 20,
      message: () =>
        `watch did not reach the expected state within ${ms}ms; events: ${JSON.stringify(this.events.map((e) => [e.type, e.object?.metadata?.name]))}`,
    });
  }

  close(): void {
    this.req.destroy();
  }
}
