import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { createCertificateAuthority } from '../../certs/index.js';

/** An HTTPS server of the test's own on loopback, answering with `handler`, and a REST client trusting it. */
export async function startRestClientServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ client: RestClient; stop: () => Promise<void> }> {
  const ca = await createCertificateAuthority({ commonName: 'rest-client-test-ca' });
  const serving = await ca.issueServingCertificate({ hosts: ['127.0.0.1'] });
  const server = createServer({ cert: serving.certPem, key: serving.keyPem }, handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = new RestClient(new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`), {
    ca: ca.certPem,
  });
  return {
    client,
    stop: async () => {
      client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
