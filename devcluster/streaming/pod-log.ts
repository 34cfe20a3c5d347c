/**
 * pods/log for containers that do not exist: each container's log is three fixed lines
 *
 *   <pod> <container> started
 *   <pod> <container> image <image>
 *   <pod> <container> ready
 *
 * stamped with the pod's start time, and with follow=true a line `tick N` every second (N from 1,
 * stamped when written) until the client goes away. Supported parameters: container, follow,
 * tailLines, timestamps, previous (no container has restarted, so always a 400).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendStatus } from '../../apiserver/handlers/http-io.js';
import { ApiError, badRequest } from '../../apiserver/status.js';
import { resolveContainer } from './pod-containers.js';
import { queryBool } from '../../apiserver/query-bool.js';
import { countParam } from './query-params.js';

const TICK_INTERVAL_MS = 1000;

interface LogLine {
  time: Date;
  text: string;
}

/** GET /api/v1/namespaces/{ns}/pods/{name}/log — text/plain. */
export function servePodLog(
  req: IncomingMessage,
  res: ServerResponse,
  pod: Record<string, any>,
  query: URLSearchParams,
): void {
  let lines: LogLine[];
  let follow: boolean;
  let timestamps: boolean;
  try {
    const podName = String(pod.metadata?.name ?? '');
    const container = resolveContainer(pod, query.get('container'));
    if (queryBool(query, 'previous'))
      throw badRequest(`previous terminated container "${container.name}" in pod "${podName}" not found`);
    follow = queryBool(query, 'follow');
    timestamps = queryBool(query, 'timestamps');
    const tailLines = countParam(query, 'tailLines');
    const started = new Date(pod.status?.startTime ?? pod.metadata?.creationTimestamp ?? 0);
    const all = ['started', `image ${container.image ?? ''}`, 'ready'].map((event) => ({
      time: started,
      text: `${podName} ${container.name} ${event}`,
    }));
    lines = tailLines === null ? all : all.slice(all.length - Math.min(tailLines, all.length));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    sendStatus(req, res, err);
    return;
  }

  const format = (line: LogLine) => (timestamps ? `${kubeletTimestamp(line.time)} ${line.text}\n` : `${line.text}\n`);
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  if (!follow) {
    res.end(lines.map(format).join(''));
    return;
  }
  res.flushHeaders();
  res.write(lines.map(format).join(''));
  let tick = 0;
  const ticker = setInterval(() => res.write(format({ time: new Date(), text: `tick ${++tick}` })), TICK_INTERVAL_MS);
  res.on('close', () => clearInterval(ticker));
}

/** RFC 3339 with exactly nine fractional digits, as the kubelet stamps log lines. */
function kubeletTimestamp(time: Date): string {
  return time.toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}
