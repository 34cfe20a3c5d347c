/**
 * A tenant's requests of ClusterRoleBindings, served by the RoleBindings they are stored as
 * upstream (translate/kinds/stored-cluster-role-binding.ts). Every path of the tenant proxy —
 * objects, writes and their dry runs, lists, delete-collections, watches — speaks of them as the
 * ClusterRoleBindings of their upstream form; the one upstream call each makes is turned here into
 * the stored RoleBindings' call, and its answer back into what the ClusterRoleBindings' API would
 * have answered. So the conversion, the checks of writes, Tables and paging stay those of every
 * other kind.
 */
import { Readable } from 'node:stream';
import { decodeKubernetesProtobuf } from '../../apiserver/protobuf/decode.js';
import { isObject } from '../../apiserver/json.js';
import type { TenantPrefix } from '../../translate/context.js';
import {
  storedBindingBodyUp,
  storedBindingsAnswerDown,
  storedBindingsPathUp,
} from '../../translate/kinds/stored-cluster-role-binding.js';
import type { UpstreamResponse } from '../../clusters/cluster-connection.js';
import type { WholeUpstreamResponse } from '../../clusters/upstream-connection.js';
import { watchLineBatches } from './watch-lines.js';

type Headers = Record<string, string | string[]>;
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** One upstream call: the path with its query, the headers, the body. */
export type UpstreamCall<Answer> = (path: string, headers: Headers, body?: string | Buffer) => Promise<Answer>;

/** The stored bindings' path and query for this upstream path, when it is of the ClusterRoleBindings. */
export { storedBindingsPathUp as storedBindingsPath };

/** The call's request turned to the stored bindings': path, body (JSON; a protobuf body is decoded), content type. */
function requestUp(
  tenant: TenantPrefix,
  storedPath: string,
  headers: Headers,
  body: string | Buffer | undefined,
): [string, Headers, string | undefined] {
  if (body === undefined || body.length === 0) return [storedPath, headers, undefined];
  const contentType = String(headers['content-type'] ?? 'application/json');
  const parsed = contentType.startsWith(PROTOBUF)
    ? decodeKubernetesProtobuf(Buffer.isBuffer(body) ? body : Buffer.from(body)).object
    : JSON.parse(body.toString());
  const sent = JSON.stringify(storedBindingBodyUp(tenant, parsed));
  return [
    storedPath,
    contentType.startsWith(PROTOBUF) ? { ...headers, 'content-type': 'application/json' } : headers,
    sent,
  ];
}

/** An answer's text turned back; text that is no JSON object goes as it came. */
function answerDown(tenant: TenantPrefix, text: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  if (!isObject(parsed)) return text;
  const down = storedBindingsAnswerDown(tenant, parsed);
  return down === null ? null : JSON.stringify(down);
}

/** A request whose answer is read whole (UpstreamConnection.requestWhole). */
export async function storedBindingsWhole(
  tenant: TenantPrefix,
  storedPath: string,
  headers: Headers,
  body: string | Buffer | undefined,
  call: UpstreamCall<WholeUpstreamResponse>,
): Promise<WholeUpstreamResponse> {
  const answer = await call(...requestUp(tenant, storedPath, headers, body));
  return { ...answer, text: answerDown(tenant, answer.text) ?? answer.text };
}

/** A request whose answer is streamed (UpstreamConnection.request): read whole here, they are few. */
export async function storedBindingsRequest(
  tenant: TenantPrefix,
  storedPath: string,
  headers: Headers,
  body: string | Buffer | undefined,
  call: UpstreamCall<UpstreamResponse>,
): Promise<UpstreamResponse> {
  const answer = await call(...requestUp(tenant, storedPath, headers, body));
  const text = await answer.body.text();
  const down = answerDown(tenant, text) ?? text;
  const { 'content-length': _length, ...rest } = answer.headers;
  return {
    status: answer.status,
    headers: rest,
    body: Object.assign(Readable.from([down]), { text: async () => down }),
  };
}

/** A watch: each event line turned back as it arrives, the events of no stored binding dropped. */
export async function storedBindingsWatch(
  tenant: TenantPrefix,
  storedPath: string,
  headers: Headers,
  call: UpstreamCall<UpstreamResponse>,
): Promise<UpstreamResponse> {
  const answer = await call(storedPath, headers);
  if (answer.status !== 200) return storedBindingsRequest(tenant, storedPath, headers, undefined, async () => answer);
  // The stream's lines as watch-lines.ts splits every watch's, each turned back as it arrives.
  async function* down(): AsyncGenerator<string> {
    for await (const lines of watchLineBatches(answer.body)) {
      let out = '';
      for (const line of lines) {
        const event = answerDown(tenant, line);
        if (event !== null) out += `${event}\n`;
      }
      if (out) yield out;
    }
  }
  const lines = Readable.from(down(), { objectMode: false });
  lines.on('close', () => answer.body.destroy());
  const body = Object.assign(lines, {
    text: async () => {
      let all = '';
      for await (const chunk of lines) all += String(chunk);
      return all;
    },
  });
  return { status: answer.status, headers: answer.headers, body };
}
