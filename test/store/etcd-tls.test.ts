/**
 * etcd over TLS with client certificates, as production etcd runs: a real etcd whose client port
 * speaks only TLS and asks for a certificate signed by its CA (`--client-cert-auth`). The store
 * reads, writes and watches through it with `--etcd-cafile`, `--etcd-certfile` and
 * `--etcd-keyfile`; without a certificate, or with one of another CA, it is refused; `paddock
 * serve` runs on it from the command line; and the flags refuse what cannot work, naming the flag.
 */
import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { createCertificateAuthority } from '../../certs/index.js';
import { EtcdStore } from '../../store/etcd/etcd-store.js';
import { openStore, type EtcdTls } from '../../store/index.js';
import { ApiClient } from '../support/api-client.js';
import { startEtcd, type EtcdServer } from '../support/etcd-server.js';
import { runCli } from '../support/run-cli.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('store: etcd over TLS with client certificates', function () {
  this.timeout(120_000);
  let work: { dir: string; remove(): Promise<void> };
  let etcd: EtcdServer;
  /** PEM files: the CA, a client certificate it signed, and one another CA signed. */
  const files = { ca: '', cert: '', key: '', strangerCert: '', strangerKey: '' };
  const tls = async (which: { cert?: string; key?: string } = {}): Promise<EtcdTls> => ({
    ca: await readFile(files.ca),
    ...(which.cert ? { cert: await readFile(which.cert), key: await readFile(which.key!) } : {}),
  });

  before(async () => {
    work = await makeTempDir('etcd-tls');
    const ca = await createCertificateAuthority({ commonName: 'etcd-ca' });
    const serving = await ca.issueServingCertificate({ hosts: ['127.0.0.1', 'localhost'] });
    const client = await ca.issueClientCertificate({ commonName: 'paddock' });
    const stranger = await (
      await createCertificateAuthority({ commonName: 'another-ca' })
    ).issueClientCertificate({ commonName: 'paddock' });
    const write = async (name: string, pem: string) => {
      const file = `${work.dir}/${name}`;
      await writeFile(file, pem, { mode: 0o600 });
      return file;
    };
    Object.assign(files, {
      ca: await write('ca.crt', ca.certPem),
      cert: await write('client.crt', client.certPem),
      key: await write('client.key', client.keyPem),
      strangerCert: await write('stranger.crt', stranger.certPem),
      strangerKey: await write('stranger.key', stranger.keyPem),
    });
    etcd = await startEtcd({
      tls: {
        certFile: await write('server.crt', serving.certPem),
        keyFile: await write('server.key', serving.keyPem),
        clientCaFile: files.ca,
      },
    });
    expect(etcd.endpoint).to.match(/^https:\/\//);
  });

  after(async () => {
    await etcd?.stop();
    await work?.remove();
  });

  it('writes, reads, lists and watches with the CA and a client certificate it signed', async () => {
    const store = await openStore({
      dataDir: `${work.dir}/unused`,
      etcdEndpoints: [etcd.endpoint],
      etcdPrefix: '/tls-test',
      etcdTls: await tls({ cert: files.cert, key: files.key }),
    });
    try {
      const watch = await store.watch('/things/');
      const created = await store.create('/things/a', 'one');
      expect((await store.get('/things/a'))?.value).to.equal('one');
      expect((await store.list('/things/')).items.map((kv) => kv.key)).to.deep.equal(['/things/a']);
      for await (const event of watch) {
        expect([event.type, event.key, event.value, event.revision]).to.deep.equal([
          'create',
          '/things/a',
          'one',
          created,
        ]);
        break;
      }
    } finally {
      await store.close();
    }
  });

  it('is refused without a client certificate, and with one of another CA', async () => {
    for (const [what, which] of [
      ['no client certificate', {}],
      ['a certificate of another CA', { cert: files.strangerCert, key: files.strangerKey }],
    ] as const) {
      const store = new EtcdStore({ endpoints: [etcd.endpoint], prefix: '/tls-test', tls: await tls(which) });
      try {
        let failed: Error | undefined;
        await store.currentRevision().catch((err: Error) => (failed = err));
        // etcd's TLS alert, as gRPC reports it: "sslv3 alert bad certificate" (or "unknown ca").
        expect(failed?.message, what).to.match(/^etcd is unavailable: .*(bad certificate|unknown ca)/);
      } finally {
        await store.close();
      }
    }
  });

  it('`paddock serve` runs on it with --etcd-cafile, --etcd-certfile and --etcd-keyfile', async () => {
    const dir = `${work.dir}/serve`;
    let pid: number | undefined;
    try {
      const started = await runCli([
        'serve',
        '--background',
        '--data-dir',
        dir,
        '--listen',
        '127.0.0.1:0',
        '--etcd-endpoints',
        etcd.endpoint,
        '--etcd-cafile',
        files.ca,
        '--etcd-certfile',
        files.cert,
        '--etcd-keyfile',
        files.key,
      ]);
      expect(started.code, started.stderr).to.equal(0);
      pid = Number(await readFile(`${dir}/paddock.pid`, 'utf8'));
      const admin = await ApiClient.load(`${dir}/admin.kubeconfig`);
      try {
        const made = await admin.request('POST', '/apis/tenant.kubezoo.io/v1alpha1/tenants', {
          apiVersion: 'tenant.kubezoo.io/v1alpha1',
          kind: 'Tenant',
          metadata: { name: 'tlsetc' },
        });
        expect(made.status, made.text).to.equal(201);
      } finally {
        admin.close();
      }
      // In etcd, under the gateway's prefix: read back over TLS.
      const store = new EtcdStore({
        endpoints: [etcd.endpoint],
        prefix: '/paddock',
        tls: await tls({ cert: files.cert, key: files.key }),
      });
      try {
        const keys = (await store.list('/')).items.map((kv) => kv.key);
        expect(keys.some((key) => key.endsWith('/tlsetc'))).to.equal(true);
      } finally {
        await store.close();
      }
      const stopped = await runCli(['stop', '--data-dir', dir]);
      // A stop that hangs says where: the server's own log ends with what it was doing.
      const log = stopped.code === 0 ? '' : (await readFile(`${dir}/serve.log`, 'utf8')).slice(-4000);
      expect(stopped.code, `${stopped.stderr}\nserve.log ends:\n${log}`).to.equal(0);
      pid = undefined;
    } finally {
      if (pid) process.kill(pid, 'SIGKILL');
    }
  });

  it('the flags refuse what cannot work, naming the flag', async () => {
    const endpoint = ['--etcd-endpoints', etcd.endpoint];
    for (const [args, message] of [
      [['--etcd-cafile', files.ca], '--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-endpoints'],
      [
        [...endpoint, '--etcd-certfile', files.cert],
        '--etcd-certfile and --etcd-keyfile go together: a client certificate and its key',
      ],
      [
        ['--etcd-endpoints', 'http://127.0.0.1:1', '--etcd-cafile', files.ca],
        '--etcd-cafile, --etcd-certfile and --etcd-keyfile need https:// etcd endpoints; http://127.0.0.1:1 is not',
      ],
      [
        [...endpoint, '--etcd-cafile', `${work.dir}/none.crt`],
        `--etcd-cafile: cannot read ${work.dir}/none.crt: ENOENT`,
      ],
    ] as const)
      for (const command of ['serve', 'devcluster']) {
        const res = await runCli([command, '--data-dir', `${work.dir}/refused`, '--listen', '127.0.0.1:0', ...args]);
        expect(res.code, `${command} ${args.join(' ')}`).to.equal(1);
        expect(res.stderr, `${command} ${args.join(' ')}`).to.contain(`paddock: ${message}`);
      }
  });
});
