/**
 * pods/log for containers that do not exist: each container's log is three fixed lines
 *
 *   <pod> <container> started
 *   <pod> <container> image <image>
 *   <pod> <container> ready
 *
 * stamped with the pod's start time, and with follow=true a line `tick N` every second (N from 1,
 * stamped when written) until the client goes away. The options (pod-log-options.ts) are applied
 * as the kubelet applies them to a container's log file: tailLines picks the last lines, then
 * lines stamped before sinceSeconds/sinceTime are skipped, then limitBytes cuts the output (in
 * the middle of a line if need be) and ends it, following or not. previous is always a 400: no
 * container has restarted.
 */
import { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendStatus } from '../../apiserver/handlers/http-io.js';
import { ApiError, badRequest } from '../../apiserver/status.js';
import { podLogOptions, type PodLogOptions } from './pod-log-options.js';
import { resolveContainer } from './pod-containers.js';

const TICK_INTERVAL_MS = 1000;

interface LogLine {
  /** Milliseconds since the epoch. */
  time: number;
  text: string;
}

/** GET /api/v1/namespaces/{ns}/pods/{name}/log — text/plain. */
export function servePodLog(
  req: IncomingMessage,
  res: ServerResponse,
  pod: Record<string, any>,
  query: URLSearchParams,
): void {
  const podName = String(pod.metadata?.name ?? '');
  let options: PodLogOptions;
  let lines: LogLine[];
  try {
    options = podLogOptions(query, podName);
    const container = resolveContainer(pod, options.container);
    if (options.previous)
      throw badRequest(`previous terminated container "${container.name}" in pod "${podName}" not found`);
    const started = Date.parse(pod.status?.startTime ?? pod.metadata?.creationTimestamp ?? '') || 0;
    lines = ['started', `image ${container.image ?? ''}`, 'ready'].map((event) => ({
      time: started,
      text: `${podName} ${container.name} ${event}`,
    }));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    sendStatus(req, res, err);
    return;
  }

  const write = logWriter(res, options, Date.now());
  const tail = options.tailLines;
  const written = tail === null ? lines : lines.slice(lines.length - Math.min(tail, lines.length));
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  if (!options.follow) {
    if (written.every(write)) res.end();
    return;
  }
  res.flushHeaders();
  if (!written.every(write)) return;
  let tick = 0;
  const ticker = setInterval(() => {
    if (!write({ time: Date.now(), text: `tick ${++tick}` })) clearInterval(ticker);
  }, TICK_INTERVAL_MS);
  res.on('close', () => clearInterval(ticker));
}

/**
 * The kubelet's log writer: skips lines stamped before `since`, stamps the rest when asked, and
 * stops at `limitBytes`, ending the response there. Returns false once it has ended it.
 */
function logWriter(res: ServerResponse, options: PodLogOptions, now: number): (line: LogLine) => boolean {
  let since = options.sinceSeconds === null ? -Infinity : now - options.sinceSeconds * 1000;
  if (options.sinceTime !== null && options.sinceTime > since) since = options.sinceTime;
  let remaining = options.limitBytes ?? Infinity;
  return (line) => {
    if (remaining <= 0) return false;
    if (line.time < since) return true;
    const text = options.timestamps ? `${kubeletTimestamp(line.time)} ${line.text}\n` : `${line.text}\n`;
    const bytes = Buffer.from(text);
    const cut = bytes.subarray(0, Math.min(bytes.length, remaining));
    remaining -= cut.length;
    if (remaining > 0) {
      res.write(cut);
      return true;
    }
    res.end(cut);
    return false;
  };
}

/** RFC 3339 with exactly nine fractional digits, as the kubelet stamps log lines. */
function kubeletTimestamp(time: number): string {
  return new Date(time).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}
