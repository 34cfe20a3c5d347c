import { sendAsTenant } from '../auth/tenant-credentials.js';
import { streamBody } from '../upstream/stream-body.js';
import { pathWithQuery, type TenantRequest } from '../server/tenant-request.js';
import { sendUpstreamError } from '../upstream/upstream-failure.js';

/** Container logs are the tenant's own output: streamed through as they come (`logs -f`). */
export async function streamContainerLog(r: TenantRequest): Promise<void> {
  const { req, res, ctx, t, upstream } = r;
  const response = await sendAsTenant(r, (as) =>
    upstream.stream(pathWithQuery(t.path, t.query), { ...as, accept: '*/*' }),
  );
  if (response.status !== 200) {
    const text = await response.body.text();
    return sendUpstreamError(req, res, ctx, response.status, text, 'the cluster refused the log request');
  }
  res.writeHead(200, {
    'Content-Type': String(response.headers['content-type'] ?? 'text/plain'),
    'Transfer-Encoding': 'chunked',
  });
  await streamBody(response, res);
}
