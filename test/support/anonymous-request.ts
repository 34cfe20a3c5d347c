import { request } from 'node:https';

/**
 * A request over HTTPS as a kubelet probe or a load balancer's health check makes it: no client
 * certificate, and the server's certificate not verified. `cert`/`key` present one instead.
 */
export function anonymousRequest(
  url: string,
  path: string,
  method = 'GET',
  credentials: { cert?: string; key?: string } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, url),
      { method, rejectUnauthorized: false, agent: false, ...credentials },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
