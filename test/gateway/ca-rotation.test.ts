/**
 * Rotating the CA without cutting tenants off (docs/operations.md, "Rotating the CA"), with the
 * real kubectl, over one replica restarted at each step on the same store and address:
 *
 *   1. `--ca-cert old --trusted-ca-file new`: kubeconfigs read now trust both CAs;
 *   2. `--ca-cert new --trusted-ca-file old`: the new CA signs the server, and certificates the old
 *      one signed still get in, so the kubeconfigs of step 1 keep working untouched;
 *   3. `--ca-cert new`: the old CA is no longer trusted; tenants have been issued new certificates.
 *
 * A kubeconfig that trusts only the old CA stops verifying the server at step 2 (why step 1
 * re-issues them); a paged list goes on across the change of signing CA; and the flag refuses a
 * file that is not a bundle of CAs.
 */
import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { createCertificateAuthority, parseKubeconfig } from '../../certs/index.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { waitUntil } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';
import { createActiveTenant } from '../support/tenants.js';

const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';
const ID = 'rotca1';

/** The certificates in a kubeconfig's certificate-authority-data. */
function trustedBy(kubeconfig: string): string[] {
  return parseKubeconfig(kubeconfig).caPem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
}

describe('gateway: rotating the CA with --trusted-ca-file, tenants never cut off', function () {
  this.timeout(120_000);
  let work: { dir: string; remove(): Promise<void> };
  let upstream: DevCluster;
  let gateway: Gateway | undefined;
  let listen: string;
  let upstreamKubeconfig: string;
  const files = { oldCert: '', oldKey: '', newCert: '', newKey: '' };
  const pems = { old: '', new: '' };
  const kubectls: Kubectl[] = [];

  /** The replica, restarted with these CA flags on the same store and address. */
  const restart = async (ca: { cert: string; key: string; trusted?: string }) => {
    await gateway?.stop();
    gateway = await startGateway({
      listen,
      dataDir: `${work.dir}/gateway`,
      upstreams: [{ name: 'member1', kubeconfig: upstreamKubeconfig }],
      caCert: ca.cert,
      caKey: ca.key,
      trustedCaFile: ca.trusted,
    });
    return gateway;
  };
  const kubectl = async (kubeconfig: string, name: string) => {
    const path = `${work.dir}/${name}.kubeconfig`;
    await writeFile(path, kubeconfig);
    const k = await Kubectl.create(path);
    kubectls.push(k);
    return k;
  };
  /** The tenant's kubeconfig as the replica answers it now. */
  const tenantKubeconfig = async () => {
    const admin = await ApiClient.load(gateway!.adminKubeconfigPath);
    try {
      const tenant = (await admin.request('GET', `${TENANTS}/${ID}`)).body;
      return Buffer.from(tenant.metadata.annotations['kubezoo.io/tenant.kubeconfig.base64'], 'base64').toString();
    } finally {
      admin.close();
    }
  };
  /** Has the tenant's certificate re-issued and returns its new kubeconfig. */
  const rotate = async (token: string) => {
    const admin = await ApiClient.load(gateway!.adminKubeconfigPath);
    try {
      const patched = await admin.request(
        'PATCH',
        `${TENANTS}/${ID}`,
        { metadata: { annotations: { 'kubezoo.io/tenant.rotate': token } } },
        { 'content-type': 'application/merge-patch+json' },
      );
      expect(patched.status, patched.text).to.equal(200);
      let tenant: any;
      await waitUntil('the certificate re-issued', async () => {
        tenant = (await admin.request('GET', `${TENANTS}/${ID}`)).body;
        return tenant?.status?.rotation === token;
      });
      return Buffer.from(tenant.metadata.annotations['kubezoo.io/tenant.kubeconfig.base64'], 'base64').toString();
    } finally {
      admin.close();
    }
  };

  before(async () => {
    work = await makeTempDir('ca-rotation');
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: `${work.dir}/upstream` });
    upstreamKubeconfig = await readFile(upstream.kubeconfigPath, 'utf8');
    listen = `127.0.0.1:${await freePort()}`;
    for (const which of ['old', 'new'] as const) {
      const ca = await createCertificateAuthority({ commonName: `paddock-ca-${which}` });
      pems[which] = ca.certPem;
      files[`${which}Cert`] = `${work.dir}/${which}-ca.crt`;
      files[`${which}Key`] = `${work.dir}/${which}-ca.key`;
      await writeFile(files[`${which}Cert`], ca.certPem);
      await writeFile(files[`${which}Key`], ca.keyPem, { mode: 0o600 });
    }
  });

  after(async () => {
    for (const k of kubectls) await k.dispose();
    await gateway?.stop();
    await upstream?.stop();
    await work?.remove();
  });

  it('re-issues kubeconfigs trusting both CAs, switches the signing CA under them, then drops the old one', async () => {
    // Before: the old CA alone.
    await restart({ cert: files.oldCert, key: files.oldKey });
    const admin = await ApiClient.load(gateway!.adminKubeconfigPath);
    const { kubeconfig: before } = await createActiveTenant(admin, ID, work.dir);
    admin.close();
    const adminBefore = await kubectl(await readFile(gateway!.adminKubeconfigPath, 'utf8'), 'admin-before');
    expect(trustedBy(before)).to.have.length(1);

    // 1. The new CA trusted beside the old one, which still signs: what was issued works, and what is issued now trusts both.
    await restart({ cert: files.oldCert, key: files.oldKey, trusted: files.newCert });
    expect(await (await kubectl(before, 'tenant-before')).ok(['get', 'namespaces', '-o', 'name'])).to.contain(
      'namespace/default',
    );
    // Read again, the tenant's kubeconfig trusts both already, with the certificate it had: it is made when read.
    const reread = await tenantKubeconfig();
    expect(trustedBy(reread).map((pem) => `${pem}\n`)).to.deep.equal([pems.old, pems.new]);
    expect(parseKubeconfig(reread).certPem).to.equal(parseKubeconfig(before).certPem);
    const bundled = await rotate('step-1');
    expect(trustedBy(bundled).map((pem) => `${pem}\n`)).to.deep.equal([pems.old, pems.new]);
    expect(trustedBy(await readFile(gateway!.adminKubeconfigPath, 'utf8'))).to.have.length(2);
    const tenant = await kubectl(bundled, 'tenant-bundled');
    await tenant.ok(['create', 'configmap', 'kept', '--from-literal=a=1']);
    await tenant.ok(['create', 'configmap', 'paged']);
    // A paged list begun before the signing CA changes (as on one replica of a rolling restart)...
    await writeFile(`${work.dir}/tenant-bundled.kubeconfig`, bundled);
    let api = await ApiClient.load(`${work.dir}/tenant-bundled.kubeconfig`);
    // Not the namespace's kube-root-ca.crt, which kube-controller-manager put there.
    const own = '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%21%3Dkube-root-ca.crt&limit=1';
    const first = await api.request('GET', own);
    api.close();
    expect(first.body.items.map((cm: any) => cm.metadata.name)).to.deep.equal(['kept']);

    // 2. The new CA signs, the old one is trusted: the step-1 kubeconfig works as it is (its certificate the old CA's).
    await restart({ cert: files.newCert, key: files.newKey, trusted: files.oldCert });
    expect(await tenant.ok(['get', 'configmap', 'kept', '-o', 'jsonpath={.data.a}'])).to.equal('1');
    // ...goes on after it (on another): continue tokens are not sealed with a key of the CA's.
    api = await ApiClient.load(`${work.dir}/tenant-bundled.kubeconfig`);
    const rest = await api.request('GET', `${own}&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    api.close();
    expect(rest.status, rest.text).to.equal(200);
    expect(rest.body.items.map((cm: any) => cm.metadata.name)).to.deep.equal(['paged']);
    // A kubeconfig trusting only the old CA no longer verifies the server: hence step 1.
    const stale = await adminBefore.run(['get', 'namespaces']);
    expect(stale.code).to.not.equal(0);
    expect(stale.stderr).to.contain('certificate signed by unknown authority');

    // 3. The old CA dropped: a certificate it signed is refused; a re-issued one (the new CA's) works.
    await restart({ cert: files.newCert, key: files.newKey });
    const refused = await tenant.run(['get', 'configmap', 'kept']);
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.contain('Unauthorized');
    const renewed = await kubectl(await rotate('step-3'), 'tenant-renewed');
    expect(await renewed.ok(['get', 'configmap', 'kept', '-o', 'jsonpath={.data.a}'])).to.equal('1');
  });

  it('refuses a --trusted-ca-file that holds no certificate, or a certificate that is not a CA', async () => {
    const leaf = await (
      await createCertificateAuthority({ commonName: 'x' })
    ).issueClientCertificate({
      commonName: 'someone',
    });
    for (const [content, message] of [
      ['not a certificate\n', 'holds no PEM certificate'],
      [`${pems.old}${leaf.certPem}`, 'certificate 2 (CN=someone) is not a CA (basic constraints CA:true missing)'],
    ] as const) {
      const file = `${work.dir}/bad-bundle.pem`;
      await writeFile(file, content);
      let failed: Error | undefined;
      await restart({ cert: files.newCert, key: files.newKey, trusted: file }).catch((err: Error) => (failed = err));
      gateway = undefined;
      expect(failed?.message).to.equal(`--trusted-ca-file ${file}: ${message}`);
    }
  });
});
