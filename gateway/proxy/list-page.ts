/** One upstream page of a list or Table, converted down: streamed as it arrives, or from its whole text. */
import { StringDecoder } from 'node:string_decoder';
import { JsonAnswerStream, onClose } from '../../apiserver/handlers/http-io.js';
import { CollectionStreamDown } from '../../translate/list-stream.js';
import { collectionDown, type CollectionPage } from '../../translate/list-text.js';
import { parseJson, responseDown, warningsDown } from './answer-down.js';
import type { TenantRequest } from '../server/tenant-request.js';
import type { UpstreamResponse } from '../../clusters/cluster-connection.js';

/**
 * One upstream page sent on as it is converted (translate/list-stream.ts), so the first items
 * reach the tenant while the upstream still sends the last. Returns the whole text instead,
 * having sent nothing, when the answer is not a list or Table that streams.
 */
export async function streamPage(
  r: TenantRequest,
  response: UpstreamResponse,
  headDown: (head: Record<string, any>) => Record<string, any>,
): Promise<string | null> {
  const { req, res, ctx, metrics } = r;
  const stream = new CollectionStreamDown(ctx, r.rowKind, r.wantsNoObject, headDown);
  const answer = new JsonAnswerStream(req, res, 200, warningsDown(ctx, response.headers));
  const decoder = new StringDecoder('utf8');
  let converting = 0;
  const down = (convert: () => string) => {
    const start = performance.now();
    const out = convert();
    converting += performance.now() - start;
    return out;
  };
  const close = () => response.body.destroy();
  const unfollow = onClose(res, close);
  try {
    for await (const chunk of response.body)
      await answer.write(down(() => stream.push(decoder.write(chunk as Buffer))));
    await answer.write(down(() => stream.push(decoder.end())));
    if (!stream.end()) return stream.wholeText;
    answer.end();
    metrics.objectsRead.inc({ cluster: r.upstream.name }, stream.read);
    metrics.translation.observe({ direction: 'down' }, converting / 1000);
    return null;
  } catch (err) {
    // A client gone before any of the list went out (it hung up while the request waited for a
    // seat) has nobody to be told.
    if (!res.headersSent && !res.closed) throw err;
    // Part of the list is out: cutting the connection is the only way left to say it failed.
    res.destroy();
    return null;
  } finally {
    unfollow();
  }
}

/**
 * One upstream page of a list or Table, converted from its text (translate/list-text.ts); null
 * when it is not one. Text that is not what the scanner expects is parsed in full instead.
 */
export function pageDown(r: TenantRequest, text: string): CollectionPage | null {
  const { ctx, rowKind, wantsNoObject } = r;
  try {
    return collectionDown(ctx, text, rowKind, wantsNoObject);
  } catch {
    const parsed = parseJson(text);
    if (!parsed || !(Array.isArray(parsed.items) || Array.isArray(parsed.rows)) || parsed.kind === 'Status')
      return null;
    const { items, rows, ...head } = responseDown(ctx, parsed, rowKind, wantsNoObject)!;
    const key = Array.isArray(rows) ? 'rows' : 'items';
    return {
      head,
      key,
      elements: (rows ?? items).map((element: unknown) => JSON.stringify(element)),
      read: (parsed.rows ?? parsed.items).length,
    };
  }
}
