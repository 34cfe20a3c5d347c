import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { X509Certificate, createECDH, createPrivateKey, createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import {
  canonicalSerial,
  createCertificateAuthority,
  identityFromPeerCertificate,
  loadCertificateAuthority,
  parseKubeconfig,
  renderKubeconfig,
  type CertificateAuthority,
  type ClientIdentity,
  type IssuedCertificate,
  type KeyAlgorithm,
} from '../../certs/index.js';
import { encodedP256Keys, p256Keys, x509 } from '../../certs/keys.js';
import { eventually } from '../support/eventually.js';
import { makeTempDir } from '../support/temp-dir.js';
import { KUBECTL_1_32 as KUBECTL } from '../support/kubectl.js';

const DAY_MS = 24 * 60 * 60 * 1000;

const alice = { commonName: 'alice', organizations: ['devs', 'system:masters'], organizationalUnits: ['ab12cd'] };

interface RunningServer {
  port: number;
  /**
   * Why the server refused handshakes: the certificate verification code when there is one (Node
   * then just drops the socket), else the handshake error's message.
   */
  tlsErrors: string[];
  /** How many requests reached the HTTP handler, i.e. got past TLS. */
  requests: () => number;
  close: () => Promise<void>;
}

/** An HTTPS server that demands a client certificate from `caPem` and answers with the identity it read. */
async function startServer(
  serving: IssuedCertificate,
  caPem: string,
  handler: (identity: ClientIdentity, path: string) => { status: number; body: unknown } = (identity) => ({
    status: 200,
    body: identity,
  }),
): Promise<RunningServer> {
  let requests = 0;
  const tlsErrors: string[] = [];
  const server: Server = createServer(
    { cert: serving.certPem, key: serving.keyPem, ca: caPem, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      requests++;
      const { status, body } = handler(
        identityFromPeerCertificate((req.socket as TLSSocket).getPeerCertificate()),
        req.url ?? '',
      );
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    },
  );
  server.on('tlsClientError', (err, socket) => {
    tlsErrors.push(String((socket as TLSSocket & { authorizationError?: unknown }).authorizationError ?? err.message));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    tlsErrors,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

interface ClientOptions {
  ca: string;
  cert?: string;
  key?: string;
  host?: string;
  servername?: string;
}

function get(port: number, options: ClientOptions): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const { host = '127.0.0.1', ...tls } = options;
    const req = request({ host, port, path: '/', agent: false, ...tls }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function expectRejected(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('expected the request to be rejected');
}

/** Resolves once the server has recorded a refused handshake (it may come after the client's error). */
async function serverTlsError(server: RunningServer): Promise<string> {
  await eventually(
    () => server.tlsErrors,
    (errors) => expect(errors, 'server-side handshake errors').to.have.length.greaterThan(0),
    5000,
  );
  return server.tlsErrors[0];
}

describe('certs', () => {
  let ca: CertificateAuthority;
  let serving: IssuedCertificate;
  let client: IssuedCertificate;
  let server: RunningServer;

  before(async () => {
    ca = await createCertificateAuthority({ commonName: 'paddock-test-ca' });
    serving = await ca.issueServingCertificate({ hosts: ['127.0.0.1', 'localhost'] });
    client = await ca.issueClientCertificate(alice);
    server = await startServer(serving, ca.certPem);
  });

  after(async () => {
    await server.close();
  });

  describe('certificate contents', () => {
    it('makes a CA with critical CA:true, cert- and CRL-signing key usage and a subject key identifier', () => {
      const cert = new x509.X509Certificate(ca.certPem);
      const constraints = cert.getExtension(x509.BasicConstraintsExtension)!;
      expect(constraints.ca).to.equal(true);
      expect(constraints.critical).to.equal(true);
      expect(cert.getExtension(x509.KeyUsagesExtension)!.usages).to.equal(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
      );
      expect(cert.getExtension(x509.SubjectKeyIdentifierExtension)!.keyId).to.equal(ca.keyIdentifier);
      expect(cert.subject).to.equal('CN=paddock-test-ca');
      expect(new X509Certificate(ca.certPem).checkIssued(new X509Certificate(ca.certPem))).to.equal(true);
    });

    it('writes each O and OU of a client certificate as its own RDN, with clientAuth and the CA key id', () => {
      const cert = new x509.X509Certificate(client.certPem);
      expect(cert.subjectName.toJSON()).to.deep.equal([
        { O: ['devs'] },
        { O: ['system:masters'] },
        { OU: ['ab12cd'] },
        { CN: ['alice'] },
      ]);
      expect(cert.getExtension(x509.ExtendedKeyUsageExtension)!.usages).to.deep.equal([
        x509.ExtendedKeyUsage.clientAuth,
      ]);
      expect(cert.getExtension(x509.KeyUsagesExtension)!.usages).to.equal(x509.KeyUsageFlags.digitalSignature);
      expect(cert.getExtension(x509.AuthorityKeyIdentifierExtension)!.keyId).to.equal(ca.keyIdentifier);
      expect(cert.getExtension(x509.BasicConstraintsExtension)!.ca).to.equal(false);
      expect(new X509Certificate(client.certPem).verify(new X509Certificate(ca.certPem).publicKey)).to.equal(true);
    });

    it('puts every host of a serving certificate in its SANs, the first as CN, with serverAuth', () => {
      const cert = new X509Certificate(serving.certPem);
      expect(cert.subjectAltName).to.equal('IP Address:127.0.0.1, DNS:localhost');
      expect(cert.subject).to.equal('CN=127.0.0.1');
      expect(cert.keyUsage).to.deep.equal([x509.ExtendedKeyUsage.serverAuth]);
    });

    it('gives random positive serials of at least 64 bits and starts validity in the past', async () => {
      const more = await Promise.all([1, 2, 3].map(() => ca.issueClientCertificate({ commonName: 'bob' })));
      const serials = [client, serving, ...more].map((c) => c.serial);
      expect(new Set(serials).size).to.equal(serials.length);
      for (const issued of [client, serving, ...more]) {
        const cert = new X509Certificate(issued.certPem);
        expect(issued.serial).to.match(/^[1-9a-f][0-9a-f]*$/);
        expect(BigInt(`0x${issued.serial}`) >= 2n ** 64n).to.equal(true);
        expect(canonicalSerial(cert.serialNumber)).to.equal(issued.serial);
        expect(new Date(cert.validFrom).getTime()).to.be.lessThan(Date.now() - 60_000);
        expect(new Date(cert.validTo).getTime()).to.equal(issued.notAfter.getTime());
      }
      expect(client.notAfter.getTime()).to.be.closeTo(Date.now() + 365 * DAY_MS, 60_000);
    });

    it('canonicalises serials to lowercase hex without leading zeros', () => {
      expect(canonicalSerial('0A1B')).to.equal('a1b');
      expect(canonicalSerial('00ff')).to.equal('ff');
      expect(canonicalSerial('00')).to.equal('0');
    });
  });

  describe('P-256 keys', () => {
    it('writes a key pair exactly as OpenSSL writes it, a scalar with leading zero bytes at its full 32 bytes', () => {
      const scalars = [
        randomBytes(32),
        Buffer.concat([Buffer.alloc(1), randomBytes(31)]),
        Buffer.concat([Buffer.alloc(2), randomBytes(30)]),
      ];
      for (const scalar of scalars) {
        const ecdh = createECDH('prime256v1');
        ecdh.setPrivateKey(scalar);
        const { spki, keyPem } = encodedP256Keys(ecdh);
        const key = createPrivateKey(keyPem);
        expect(key.export({ type: 'pkcs8', format: 'pem' }), 'OpenSSL writes the same PKCS#8').to.equal(keyPem);
        expect(createPublicKey(key).export({ type: 'spki', format: 'der' }), 'and the same SPKI').to.deep.equal(spki);
        expect(Buffer.from(key.export({ format: 'jwk' }).d!, 'base64url')).to.deep.equal(scalar);
      }
    });

    it('makes a new pair each time, whose private half signs what its public half verifies', () => {
      const [first, second] = [p256Keys(), p256Keys()];
      expect(first.spki.equals(second.spki)).to.equal(false);
      const signature = sign('sha256', Buffer.from('tbs'), createPrivateKey(first.keyPem));
      const publicKeyOf = (spki: Buffer) => createPublicKey({ key: spki, format: 'der', type: 'spki' });
      expect(verify('sha256', Buffer.from('tbs'), publicKeyOf(first.spki), signature)).to.equal(true);
      expect(verify('sha256', Buffer.from('tbs'), publicKeyOf(second.spki), signature)).to.equal(false);
    });
  });

  describe('TLS with client certificates', () => {
    it('lets the server read exactly the CN, every O and every OU, and the serial', async () => {
      const response = await get(server.port, { ca: ca.certPem, cert: client.certPem, key: client.keyPem });
      expect(response.status).to.equal(200);
      expect(JSON.parse(response.body)).to.deep.equal({
        user: 'alice',
        groups: ['devs', 'system:masters'],
        organizationalUnits: ['ab12cd'],
        serial: client.serial,
      });
    });

    it('reads the same identity from a crypto.X509Certificate', () => {
      expect(identityFromPeerCertificate(new X509Certificate(client.certPem))).to.deep.equal({
        user: 'alice',
        groups: ['devs', 'system:masters'],
        organizationalUnits: ['ab12cd'],
        serial: client.serial,
      });
    });

    it('reads a lone O as a one-element list and no OU as an empty one', async () => {
      const bob = await ca.issueClientCertificate({ commonName: 'bob', organizations: ['viewers'] });
      const response = await get(server.port, { ca: ca.certPem, cert: bob.certPem, key: bob.keyPem });
      expect(JSON.parse(response.body)).to.deep.equal({
        user: 'bob',
        groups: ['viewers'],
        organizationalUnits: [],
        serial: bob.serial,
      });
    });

    it('serves a certificate valid for localhost and 127.0.0.1 but no other name', async () => {
      const auth = { ca: ca.certPem, cert: client.certPem, key: client.keyPem };
      expect((await get(server.port, { ...auth, host: 'localhost' })).status).to.equal(200);
      const err = await expectRejected(get(server.port, { ...auth, servername: 'example.com' }));
      expect(err.code).to.equal('ERR_TLS_CERT_ALTNAME_INVALID');
    });

    it('rejects at the TLS layer a client certificate from another CA', async () => {
      // Same name as the trusted CA: only the key may tell them apart.
      const other = await createCertificateAuthority({ commonName: 'paddock-test-ca' });
      const mallory = await other.issueClientCertificate(alice);
      const before = server.requests();
      server.tlsErrors.length = 0;
      await expectRejected(get(server.port, { ca: ca.certPem, cert: mallory.certPem, key: mallory.keyPem }));
      expect(await serverTlsError(server)).to.equal('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      expect(server.requests()).to.equal(before);
    });

    it('rejects at the TLS layer a client with no certificate', async () => {
      const before = server.requests();
      server.tlsErrors.length = 0;
      await expectRejected(get(server.port, { ca: ca.certPem }));
      expect(await serverTlsError(server)).to.match(/peer did not return a certificate/);
      expect(server.requests()).to.equal(before);
    });

    it('rejects an expired client certificate and an expired serving certificate', async () => {
      const expired = { notBefore: new Date(Date.now() - 10 * DAY_MS), validityDays: 1 };
      const oldClient = await ca.issueClientCertificate({ ...alice, ...expired });
      expect(oldClient.notAfter.getTime()).to.be.lessThan(Date.now());
      const before = server.requests();
      server.tlsErrors.length = 0;
      await expectRejected(get(server.port, { ca: ca.certPem, cert: oldClient.certPem, key: oldClient.keyPem }));
      expect(await serverTlsError(server)).to.equal('CERT_HAS_EXPIRED');
      expect(server.requests()).to.equal(before);

      const oldServing = await ca.issueServingCertificate({ hosts: ['127.0.0.1'], ...expired });
      const stale = await startServer(oldServing, ca.certPem);
      try {
        const err = await expectRejected(get(stale.port, { ca: ca.certPem, cert: client.certPem, key: client.keyPem }));
        expect(err.code).to.equal('CERT_HAS_EXPIRED');
      } finally {
        await stale.close();
      }
    });

    it('works end to end with RSA keys, adding keyEncipherment to their key usage', async () => {
      const rsaCa = await createCertificateAuthority({ commonName: 'paddock-rsa-ca', keyAlgorithm: 'rsa' });
      const rsaServing = await rsaCa.issueServingCertificate({ hosts: ['127.0.0.1'], keyAlgorithm: 'rsa' });
      const rsaClient = await rsaCa.issueClientCertificate({ ...alice, keyAlgorithm: 'rsa' });
      expect(new X509Certificate(rsaClient.certPem).publicKey.asymmetricKeyType).to.equal('rsa');
      expect(new x509.X509Certificate(rsaClient.certPem).getExtension(x509.KeyUsagesExtension)!.usages).to.equal(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
      );
      const rsaServer = await startServer(rsaServing, rsaCa.certPem);
      try {
        const response = await get(rsaServer.port, {
          ca: rsaCa.certPem,
          cert: rsaClient.certPem,
          key: rsaClient.keyPem,
        });
        expect(JSON.parse(response.body)).to.include({ user: 'alice', serial: rsaClient.serial });
      } finally {
        await rsaServer.close();
      }
    });
  });

  describe('loadCertificateAuthority', () => {
    it('issues from a loaded CA, including an RSA one whose key is PKCS#1, certificates that chain to it', async () => {
      const rsaCa = await createCertificateAuthority({ commonName: 'kubeadm-like-ca', keyAlgorithm: 'rsa' });
      const pkcs1 = createPrivateKey(rsaCa.keyPem).export({ type: 'pkcs1', format: 'pem' }).toString();
      const loaded = await loadCertificateAuthority(rsaCa.certPem, pkcs1);
      expect(loaded.keyIdentifier).to.equal(rsaCa.keyIdentifier);
      const issued = await loaded.issueClientCertificate(alice);
      expect(new X509Certificate(issued.certPem).verify(new X509Certificate(rsaCa.certPem).publicKey)).to.equal(true);

      const loadedEcdsa = await loadCertificateAuthority(ca.certPem, ca.keyPem);
      const carol = await loadedEcdsa.issueClientCertificate({ commonName: 'carol' });
      const response = await get(server.port, { ca: ca.certPem, cert: carol.certPem, key: carol.keyPem });
      expect(JSON.parse(response.body)).to.include({ user: 'carol' });
    });

    it('refuses a key that is not the certificate’s, and a certificate that is not a CA', async () => {
      const other = await createCertificateAuthority({ commonName: 'other' });
      const wrongKey = await expectRejected(loadCertificateAuthority(ca.certPem, other.keyPem));
      expect(wrongKey.message).to.match(/does not belong/);
      const notCa = await expectRejected(loadCertificateAuthority(client.certPem, client.keyPem));
      expect(notCa.message).to.match(/not a CA/);
    });
  });

  describe('kubeconfig', () => {
    const options = () => ({
      clusterName: 'paddock',
      server: 'https://127.0.0.1:6443',
      caPem: ca.certPem,
      userName: 'alice',
      certPem: client.certPem,
      keyPem: client.keyPem,
      contextName: 'alice@paddock',
      namespace: 'team-a',
    });

    it('round-trips the current context through parseKubeconfig', () => {
      expect(parseKubeconfig(renderKubeconfig(options()))).to.deep.equal({
        server: 'https://127.0.0.1:6443',
        caPem: ca.certPem,
        certPem: client.certPem,
        keyPem: client.keyPem,
        user: 'alice',
        context: 'alice@paddock',
        namespace: 'team-a',
      });
    });

    it('inlines credentials as base64 -data fields and sets current-context', () => {
      const text = renderKubeconfig(options());
      expect(text).to.include(`certificate-authority-data: ${Buffer.from(ca.certPem).toString('base64')}`);
      expect(text).to.include(`client-key-data: ${Buffer.from(client.keyPem).toString('base64')}`);
      expect(text).to.match(/^current-context: alice@paddock$/m);
      expect(text).not.to.include('BEGIN');
    });

    it('reports what is missing from a kubeconfig it cannot use', () => {
      expect(() => parseKubeconfig('apiVersion: v1\nkind: Config\n')).to.throw(/no current-context/);
      const fileBased = renderKubeconfig(options()).replace('client-key-data:', 'client-key:');
      expect(() => parseKubeconfig(fileBased)).to.throw(/user alice has no client-key-data/);
    });
  });

  describe('with the real kubectl (Go crypto/tls)', () => {
    const version = {
      major: '1',
      minor: '32',
      gitVersion: 'v1.32.0',
      gitCommit: '0',
      gitTreeState: 'clean',
      buildDate: '2025-01-01T00:00:00Z',
      goVersion: 'go1.23.4',
      compiler: 'gc',
      platform: 'linux/amd64',
    };
    const unauthorized = {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    };

    /** Answers /version only to alice of devs and system:masters in tenant ab12cd. */
    function versionForAlice(identity: ClientIdentity, url: string) {
      const isAlice =
        identity.user === 'alice' &&
        identity.groups.join() === 'devs,system:masters' &&
        identity.organizationalUnits.join() === 'ab12cd';
      if (!isAlice) return { status: 401, body: unauthorized };
      return url.split('?')[0] === '/version' ? { status: 200, body: version } : { status: 404, body: {} };
    }

    async function kubectlVersion(
      keyAlgorithm: KeyAlgorithm,
      host: string,
      commonName = 'alice',
    ): Promise<{ code: number; stdout: string; stderr: string }> {
      const kubeCa = await createCertificateAuthority({ commonName: 'paddock-kubectl-ca', keyAlgorithm });
      const kubeServing = await kubeCa.issueServingCertificate({ hosts: ['127.0.0.1', 'localhost'], keyAlgorithm });
      const kubeClient = await kubeCa.issueClientCertificate({ ...alice, commonName, keyAlgorithm });
      const kubeServer = await startServer(kubeServing, kubeCa.certPem, versionForAlice);
      const { dir, remove } = await makeTempDir('kubectl');
      try {
        const kubeconfig = path.join(dir, 'kubeconfig');
        await writeFile(
          kubeconfig,
          renderKubeconfig({
            clusterName: 'paddock',
            server: `https://${host}:${kubeServer.port}`,
            caPem: kubeCa.certPem,
            userName: commonName,
            certPem: kubeClient.certPem,
            keyPem: kubeClient.keyPem,
            contextName: 'paddock',
          }),
        );
        const env = { PATH: process.env.PATH ?? '', HOME: dir, KUBECACHEDIR: path.join(dir, 'cache') };
        return await new Promise((resolve) => {
          execFile(
            KUBECTL,
            ['--kubeconfig', kubeconfig, 'version', '-o', 'json'],
            { env, timeout: 30_000 },
            (err, stdout, stderr) =>
              resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
          );
        });
      } finally {
        await kubeServer.close();
        await remove();
      }
    }

    it('accepts our ECDSA chain and presents our ECDSA client certificate', async () => {
      const result = await kubectlVersion('ecdsa', '127.0.0.1');
      expect(result.code, result.stderr).to.equal(0);
      expect(JSON.parse(result.stdout).serverVersion.minor).to.equal('32');
    });

    it('accepts our RSA chain over a DNS name and presents our RSA client certificate', async () => {
      const result = await kubectlVersion('rsa', 'localhost');
      expect(result.code, result.stderr).to.equal(0);
      expect(JSON.parse(result.stdout).serverVersion.minor).to.equal('32');
    });

    it('fails when the server reads a different identity from the certificate', async () => {
      const result = await kubectlVersion('ecdsa', '127.0.0.1', 'mallory');
      expect(result.code).to.not.equal(0);
      expect(result.stderr).to.match(/logged in|Unauthorized/i);
    });
  });
});
