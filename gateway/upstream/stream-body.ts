import type { ServerResponse } from 'node:http';
import { drained, onClose } from '../../apiserver/handlers/http-io.js';
import { StalledReader } from '../../clusters/read-ahead.js';
import type { UpstreamResponse } from '../../clusters/cluster-connection.js';

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
  const unfollow = onClose(res, close);
  try {
    // A response destroyed while full (the tenant hung up, or its certificate was revoked) never drains.
    for await (const chunk of response.body) if (!res.write(chunk) && !res.destroyed) await drained(res, res);
  } catch (err) {
    // The tenant hung up or the upstream answer broke off; one cut because it was not read is not
    // ended as if it were whole.
    if (err instanceof StalledReader) res.destroy();
  } finally {
    unfollow();
    if (!res.destroyed) res.end();
  }
}
