/**
 * A raw TLS connection as a kubeconfig's user, with a request written byte for byte: for what an
 * HTTP client hides (HTTP/1.0, a client that stops reading, how the answer is cut into records).
 */
import { readFile } from 'node:fs/promises';
import { connect, type TLSSocket } from 'node:tls';
import { parseKubeconfig } from '../../certs/index.js';

export async function rawTlsRequest(kubeconfigPath: string, server: string, request: string): Promise<TLSSocket> {
  const parsed = parseKubeconfig(await readFile(kubeconfigPath, 'utf8'));
  const url = new URL(server);
  const socket = connect({
    host: url.hostname,
    port: Number(url.port),
    ca: parsed.caPem,
    cert: parsed.certPem,
    key: parsed.keyPem,
    servername: 'localhost',
  });
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  socket.write(request);
  return socket;
}
