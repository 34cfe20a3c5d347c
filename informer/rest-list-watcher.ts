/**
 * A ListerWatcher over HTTPS for one resource of one cluster, optionally in one namespace and
 * narrowed by selectors, with extra headers on every request (impersonation). JSON only.
 */
import type { IncomingMessage } from 'node:http';
import { LineSplitter } from '../apiserver/client/line-splitter.js';
import { RestClient } from '../apiserver/client/rest-client.js';
import { isObject, type Json } from '../apiserver/json.js';
import { ApiError, statusOf, type Status } from '../apiserver/status.js';
import type {
  ListerWatcher,
  ListPage,
  ListPageOptions,
  WatchEvent,
  WatchOptions,
  WatchStream,
} from './list-watcher.js';

export interface RestResource {
  /** `/api/v1`, or `/apis/<group>/<version>`. */
  groupVersionPath: string;
  /** The plural resource name, e.g. `pods`. */
  resource: string;
  /** Only this namespace's objects; all namespaces (or a cluster-scoped resource) when absent. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Sent with every request, e.g. `Impersonate-User`. */
  headers?: Record<string, string>;
}

export class RestListWatcher implements ListerWatcher {
  private readonly path: string;

  constructor(
    private readonly client: RestClient,
    private readonly resource: RestResource,
  ) {
    const { groupVersionPath, namespace } = resource;
    const scope = namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
    this.path = `${groupVersionPath}${scope}/${resource.resource}`;
  }

  async list(options: ListPageOptions): Promise<ListPage> {
    const query = this.query({
      limit: options.limit ? String(options.limit) : '',
      continue: options.continue ?? '',
      resourceVersion: options.resourceVersion ?? '',
      resourceVersionMatch: options.resourceVersionMatch ?? '',
    });
    const res = await this.client.request('GET', `${this.path}${query}`, undefined, this.headers(), options.signal);
    if (res.status !== 200 || !isObject(res.body)) throw statusError(res.status, res.text);
    const list: Json = res.body;
    const metadata: Json = isObject(list.metadata) ? list.metadata : {};
    const items: Json[] = Array.isArray(list.items) ? list.items.filter(isObject) : [];
    // Items of a built-in kind's list come without kind and apiVersion; client-go's decoder fills them in.
    const kind = typeof list.kind === 'string' ? list.kind.replace(/List$/, '') : undefined;
    for (const item of items) {
      item.apiVersion ??= list.apiVersion;
      item.kind ??= kind;
    }
    return {
      items,
      resourceVersion: typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : '',
      continue: typeof metadata.continue === 'string' ? metadata.continue : '',
    };
  }

  async watch(options: WatchOptions): Promise<WatchStream> {
    const query = this.query({
      watch: '1',
      resourceVersion: options.resourceVersion,
      allowWatchBookmarks: options.allowWatchBookmarks ? 'true' : '',
      timeoutSeconds: options.timeoutSeconds === undefined ? '' : String(options.timeoutSeconds),
    });
    const req = this.client.open('GET', `${this.path}${query}`, this.headers(), options.signal);
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      req.on('response', resolve);
      // Stays for the request's life: an abort after the response must not go unhandled.
      req.on('error', reject);
      req.end();
    });
    if (res.statusCode !== 200) throw statusError(res.statusCode ?? 0, await textOf(res));
    let stopped = false;
    const stream = watchEvents(res, () => stopped);
    return {
      [Symbol.asyncIterator]: () => stream,
      stop: () => {
        stopped = true;
        req.destroy();
      },
    };
  }

  private headers(): Record<string, string> {
    return { Accept: 'application/json', ...this.resource.headers };
  }

  /** The query string (with its `?`), from the given parameters that are set and the selectors. */
  private query(parameters: Record<string, string>): string {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(parameters)) if (value !== '') query.set(name, value);
    if (this.resource.labelSelector) query.set('labelSelector', this.resource.labelSelector);
    if (this.resource.fieldSelector) query.set('fieldSelector', this.resource.fieldSelector);
    const text = query.toString();
    return text === '' ? '' : `?${text}`;
  }
}

/** The events of a watch response, one per line; a broken stream rejects, unless it was stopped. */
async function* watchEvents(res: IncomingMessage, stopped: () => boolean): AsyncGenerator<WatchEvent> {
  const lines = new LineSplitter();
  try {
    for await (const chunk of res as AsyncIterable<Buffer>)
      for (const line of lines.push(chunk)) if (line.trim() !== '') yield parseEvent(line);
  } catch (err) {
    if (!stopped()) throw err;
  }
}

function parseEvent(line: string): WatchEvent {
  const event: unknown = JSON.parse(line);
  if (!isObject(event) || typeof event.type !== 'string' || !isObject(event.object))
    throw new Error(`not a watch event: ${line.slice(0, 200)}`);
  return event as WatchEvent;
}

async function textOf(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let text = '';
  for await (const chunk of res as AsyncIterable<string>) text += chunk;
  return text;
}

/** The server's Status as an ApiError; an answer that is no Status becomes one with the code. */
export function statusError(code: number, text: string): ApiError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isObject(body) && body.kind === 'Status' && typeof body.code === 'number') return new ApiError(body as Status);
  return new ApiError(statusOf(code, 'Unknown', text.slice(0, 300) || `the server answered ${code}`));
}
