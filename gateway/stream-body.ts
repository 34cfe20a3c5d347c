import type { ServerResponse } from 'node:http';
import type { UpstreamResponse } from './upstream-connection.js';

/**
 * An upstream body streamed to the tenant as it arrives (a followed log, a workload's answer
 * through `proxy`), with backpressure; the tenant's hang-up closes the upstream side, and either
 * side breaking off ends the other. The caller has written the head.
 */
export async function streamBody(response: UpstreamResponse, res: ServerResponse): Promise<void> {
  const close = () => {
    // Hung up perhaps before the body was read: its abort is expected.
    response.body.on('error', () => {});
    response.body.destroy();
  };
  res.on('close', close);
  try {
    for await (const chunk of response.body) if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
  } catch {
    // The tenant hung up or the upstream answer broke off.
  } finally {
    res.off('close', close);
    if (!res.destroyed) res.end();
  }
}
