/**
 * The floor under any gateway: a TLS reverse proxy that forwards each request to the upstream and
 * pipes the answer back without reading it — no authentication, no translation, no metrics. It
 * is built from what the gateway is built from (node:https in front, an undici Pool with the
 * upstream's client certificate behind), so `get` can show how much of the gateway's cost is the
 * second hop itself, which no gateway that forwards can avoid. Its TLS is the gateway's too: it
 * asks for the client's certificate and has the handshake verify it (against the upstream's CA,
 * which issued the one its clients present), as the gateway must for every connection, though it
 * does nothing with the result.
 *
 * Run as a process of its own: `node bare-proxy.js UPSTREAM_KUBECONFIG DIR`; it writes a
 * kubeconfig for itself (its CA; the upstream admin's client certificate, which it does not
 * check) and prints `bare proxy listening on URL; kubeconfig: PATH`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'undici';
import { createCertificateAuthority, parseKubeconfig, renderKubeconfig } from '../../certs/index.js';

const [upstreamKubeconfigPath, dir] = process.argv.slice(2);
if (!upstreamKubeconfigPath || !dir) {
  process.stderr.write('usage: bare-proxy.js UPSTREAM_KUBECONFIG DIR\n');
  process.exit(2);
}
const upstream = parseKubeconfig(await readFile(upstreamKubeconfigPath, 'utf8'));
const origin = new URL(upstream.server).origin;
const pool = new Pool(origin, { connect: { ca: upstream.caPem, cert: upstream.certPem, key: upstream.keyPem } });

const ca = await createCertificateAuthority({ commonName: 'bare-proxy-ca' });
const serving = await ca.issueServingCertificate({ hosts: ['127.0.0.1', 'localhost'] });

const tls = {
  cert: serving.certPem,
  key: serving.keyPem,
  ca: upstream.caPem,
  requestCert: true,
  rejectUnauthorized: false,
};
const server = createServer(tls, (req, res) => {
  const headers: Record<string, string | string[]> = { 'accept-encoding': 'identity' };
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !['host', 'connection', 'accept-encoding'].includes(name)) headers[name] = value;
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE';
  pool
    .request({ method: req.method as 'GET', path: req.url ?? '/', headers, body: hasBody ? req : undefined })
    .then(async (answer) => {
      const out: Record<string, string | string[]> = {};
      for (const name of ['content-type', 'content-length', 'content-encoding']) {
        const value = answer.headers[name];
        if (value !== undefined) out[name] = value;
      }
      res.writeHead(answer.statusCode, out);
      await pipeline(answer.body, res);
    })
    .catch((err: Error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(err.message));
    });
});
server.keepAliveTimeout = 60_000;
async function announce(): Promise<void> {
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kubeconfigPath = path.join(dir, 'bare-proxy.kubeconfig');
  await writeFile(
    kubeconfigPath,
    renderKubeconfig({
      clusterName: 'bare-proxy',
      server: url,
      caPem: ca.certPem,
      userName: 'bare-proxy',
      certPem: upstream.certPem,
      keyPem: upstream.keyPem,
      contextName: 'bare-proxy',
    }),
  );
  process.stdout.write(`bare proxy listening on ${url}; kubeconfig: ${kubeconfigPath}\n`);
}
server.listen(0, '127.0.0.1', () => {
  announce().catch((err: Error) => {
    process.stderr.write(`bare proxy: ${err.message}\n`);
    process.exit(1);
  });
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  pool.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
