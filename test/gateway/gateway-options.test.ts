import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createCertificateAuthority, parseKubeconfig } from '../../certs/index.js';
import { startDevCluster } from '../../devcluster/devcluster.js';
import { startGateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { waitUntil } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('gateway: CA from files, RSA tenant keys, advertised address, certificate validity', () => {
  it('signs with the given CA, issues RSA-2048 tenant certificates for the validity asked, and advertises the given address', async () => {
    const { dir, remove } = await makeTempDir('gateway-options');
    const ca = await createCertificateAuthority({ commonName: 'operator-ca' });
    await writeFile(`${dir}/ca.crt`, ca.certPem);
    await writeFile(`${dir}/ca.key`, ca.keyPem);
    const upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: `${dir}/upstream` });
    const port = await freePort();
    const gateway = await startGateway({
      listen: `127.0.0.1:${port}`,
      advertiseAddress: `localhost:${port}`,
      dataDir: `${dir}/gateway`,
      caCert: `${dir}/ca.crt`,
      caKey: `${dir}/ca.key`,
      keyAlgorithm: 'rsa',
      tenantCertValidityDays: 30,
      upstreams: [{ name: 'member1', kubeconfig: await readFile(upstream.kubeconfigPath, 'utf8') }],
    });
    try {
      expect(gateway.url).to.equal(`https://localhost:${port}`);
      const adminKubeconfig = parseKubeconfig(await readFile(gateway.adminKubeconfigPath, 'utf8'));
      expect(adminKubeconfig.server).to.equal(`https://localhost:${port}`);
      expect(adminKubeconfig.caPem.trim()).to.equal(ca.certPem.trim());
      const api = await ApiClient.load(gateway.adminKubeconfigPath);
      expect(
        (
          await api.request('POST', '/apis/tenant.kubezoo.io/v1alpha1/tenants', {
            apiVersion: 'tenant.kubezoo.io/v1alpha1',
            kind: 'Tenant',
            metadata: { name: 'rsa001' },
          })
        ).status,
      ).to.equal(201);
      const tenant = await waitUntil(
        'tenant rsa001 Active',
        async () => {
          const got = (await api.request('GET', '/apis/tenant.kubezoo.io/v1alpha1/tenants/rsa001')).body;
          return got?.status?.phase === 'Active' ? got : undefined;
        },
        { timeout: 10_000 },
      );
      const kubeconfig = parseKubeconfig(
        Buffer.from(tenant.metadata.annotations['kubezoo.io/tenant.kubeconfig.base64'], 'base64').toString('utf8'),
      );
      expect(kubeconfig.server).to.equal(`https://localhost:${port}`);
      const certificate = new X509Certificate(kubeconfig.certPem);
      expect(certificate.publicKey.asymmetricKeyType).to.equal('rsa');
      expect(certificate.publicKey.asymmetricKeyDetails?.modulusLength).to.equal(2048);
      expect(certificate.verify(new X509Certificate(ca.certPem).publicKey)).to.equal(true);
      const days = (Date.parse(certificate.validTo) - Date.now()) / 86_400_000;
      expect(days).to.be.within(29, 30.01);
      const tenantApi = await ApiClient.load(
        await writeKubeconfig(
          dir,
          Buffer.from(tenant.metadata.annotations['kubezoo.io/tenant.kubeconfig.base64'], 'base64').toString('utf8'),
        ),
      );
      const whoami = await tenantApi.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {});
      expect(whoami.body.status.userInfo.username).to.equal('rsa001-admin');
      api.close();
      tenantApi.close();
    } finally {
      await gateway.stop();
      await upstream.stop();
      await remove();
    }
  });
});

async function writeKubeconfig(dir: string, text: string): Promise<string> {
  await writeFile(`${dir}/tenant.kubeconfig`, text);
  return `${dir}/tenant.kubeconfig`;
}
