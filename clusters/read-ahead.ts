import { PassThrough } from 'node:stream';
import { text } from 'node:stream/consumers';
import type { UpstreamResponse } from './cluster-connection.js';

/** How much of an answer the gateway reads ahead of its client. */
export const READ_AHEAD_BYTES = 1024 * 1024;
/** How long a full read-ahead waits for the client to make room before the answer is cut. */
export const STALLED_READER_MS = 60_000;

/** The client read nothing of a full read-ahead for its whole allowance: the answer was cut. */
export class StalledReader extends Error {
  constructor(ms: number) {
    super(`the client read nothing of the answer for ${ms / 1000}s`);
  }
}

export interface ReadAheadOptions {
  bytes?: number;
  stalledAfterMs?: number;
}

/**
 * An upstream answer whose body is read off the connection ahead of the client: into up to
 * `bytes` of memory, beside the sockets' own buffers, however slowly the client reads. `done` is
 * called once the body is off the connection — read to its end, failed, or cut — which is when
 * the request's seat (upstream-seats.ts) and its pooled connection are free for others: an
 * answer that fits gives them back at once, and a client that leaves a full read-ahead unread
 * for `stalledAfterMs` has the answer cut (the body fails with StalledReader), so no client can
 * hold a seat by not reading.
 */
export function readAhead(
  response: UpstreamResponse,
  done: () => void,
  options: ReadAheadOptions = {},
): UpstreamResponse {
  const { bytes = READ_AHEAD_BYTES, stalledAfterMs = STALLED_READER_MS } = options;
  const source = response.body;
  const ahead = new PassThrough({ readableHighWaterMark: bytes });
  let finished = false;
  let stall: NodeJS.Timeout | undefined;
  const unstall = () => {
    clearTimeout(stall);
    stall = undefined;
  };
  const finish = () => {
    unstall();
    if (finished) return;
    finished = true;
    done();
  };
  source.on('data', (chunk: Buffer) => {
    if (ahead.destroyed || ahead.write(chunk)) return;
    source.pause();
    stall ??= setTimeout(() => {
      const err = new StalledReader(stalledAfterMs);
      source.destroy(err);
      ahead.destroy(err);
    }, stalledAfterMs);
  });
  ahead.on('drain', () => {
    unstall();
    source.resume();
  });
  source.once('end', () => {
    finish();
    ahead.end();
  });
  source.on('error', (err) => {
    finish();
    ahead.destroy(err);
  });
  source.once('close', finish);
  // The reader's own iteration sees a failure; one that never reads must not crash the process with it.
  ahead.on('error', () => {});
  // The reader destroyed the body (its client hung up): the rest of the answer is not wanted.
  ahead.once('close', () => {
    if (!finished) source.destroy();
    unstall();
  });
  const body = Object.assign(ahead, { text: () => text(ahead) });
  return { status: response.status, headers: response.headers, body };
}
