import { expect } from 'chai';
import { createCertificateAuthority, parseKubeconfig, renderKubeconfig } from '../../certs/index.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import {
  CREDENTIALS_ANNOTATION,
  credentialsAnnotation,
  KUBECONFIG_ANNOTATION,
  storedCredentials,
  TenantKubeconfigs,
  type TenantCredentials,
} from '../../tenants/tenant-kubeconfig.js';
import { tenantStrategy } from '../../tenants/tenant-resource.js';

const SERVER = 'https://paddock.example:6443';

describe('tenants: kubeconfigs rendered on read from the stored certificate and key', () => {
  let caPem: string;
  let credentials: TenantCredentials;
  let kubeconfigs: TenantKubeconfigs;

  before(async () => {
    const ca = await createCertificateAuthority({ commonName: 'kubeconfig-test-ca' });
    const other = await createCertificateAuthority({ commonName: 'kubeconfig-test-ca-next' });
    caPem = ca.certPem + other.certPem;
    const issued = await ca.issueClientCertificate({ commonName: 'abc123-admin', organizationalUnits: ['abc123'] });
    credentials = { certPem: issued.certPem, keyPem: issued.keyPem };
    kubeconfigs = new TenantKubeconfigs({ server: SERVER, caPem });
  });

  // Ids the YAML library writes plain, and ids it quotes because they read as numbers.
  for (const id of ['abc123', 'foofoo', '123abc', '000001', '123456', '0x12ab', '0o1234', '1e1234', '12e345']) {
    it(`renders tenant ${id}'s kubeconfig as the library renders it whole`, () => {
      const whole = renderKubeconfig({
        clusterName: 'paddock',
        server: SERVER,
        caPem,
        userName: id,
        certPem: credentials.certPem,
        keyPem: credentials.keyPem,
        contextName: `${id}@paddock`,
      });
      expect(kubeconfigs.text(id, credentials)).to.equal(whole);
      const parsed = parseKubeconfig(Buffer.from(kubeconfigs.annotation(id, credentials), 'base64').toString('utf8'));
      expect(parsed).to.deep.include({ server: SERVER, caPem, user: id, context: `${id}@paddock`, ...credentials });
    });
  }

  it('stores the certificate and key as their bytes in base64 and reads back the same PEM; reads what was stored before', () => {
    const stored = credentialsAnnotation(credentials);
    const der = (pem: string) => pem.replace(/-----[A-Z ]+-----|\n/g, '');
    expect(stored).to.equal(`${der(credentials.certPem)}.${der(credentials.keyPem)}`);
    expect(storedCredentials({ [CREDENTIALS_ANNOTATION]: stored })).to.deep.equal(credentials);
    // A PEM bundle, as an earlier version stored every one.
    const bundle = credentials.certPem + credentials.keyPem;
    expect(storedCredentials({ [CREDENTIALS_ANNOTATION]: bundle })).to.deep.equal(credentials);
    // PEM that would not read back the same (lines of 76, another key type) is stored as it is.
    const lines76 = der(credentials.certPem)
      .match(/.{1,76}/g)!
      .join('\n');
    const wide = { ...credentials, certPem: `-----BEGIN CERTIFICATE-----\n${lines76}\n-----END CERTIFICATE-----\n` };
    const ecKey = { ...credentials, keyPem: credentials.keyPem.replaceAll('PRIVATE KEY', 'EC PRIVATE KEY') };
    for (const other of [wide, ecKey]) {
      expect(credentialsAnnotation(other)).to.equal(other.certPem + other.keyPem);
      expect(storedCredentials({ [CREDENTIALS_ANNOTATION]: credentialsAnnotation(other) })).to.deep.equal(other);
    }
    const legacy = Buffer.from(kubeconfigs.text('abc123', credentials)).toString('base64');
    expect(storedCredentials({ [KUBECONFIG_ANNOTATION]: legacy })).to.deep.equal(credentials);
    expect(storedCredentials({ [KUBECONFIG_ANNOTATION]: 'bm90IGEga3ViZWNvbmZpZw==' })).to.equal(undefined);
    expect(storedCredentials({ [CREDENTIALS_ANNOTATION]: 'no certificate' })).to.equal(undefined);
    expect(storedCredentials({})).to.equal(undefined);
  });

  describe("the Tenant's strategy", () => {
    const strategy = () => tenantStrategy(() => kubeconfigs);
    const tenant = (annotations?: Record<string, string>): ApiObject => ({
      apiVersion: 'tenant.kubezoo.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name: 'abc123', ...(annotations ? { annotations } : {}) },
    });

    it('answers the kubeconfig in place of the stored certificate and key, leaving the stored object as it is', () => {
      const stored = tenant({ team: 'a', [CREDENTIALS_ANNOTATION]: credentialsAnnotation(credentials) });
      const answered = strategy().decorate!(stored);
      expect(answered.metadata.annotations).to.deep.equal({
        team: 'a',
        [KUBECONFIG_ANNOTATION]: kubeconfigs.annotation('abc123', credentials),
      });
      expect(stored.metadata.annotations).to.have.keys('team', CREDENTIALS_ANNOTATION);
      // Before the gateway's URL is known, nothing is answered of them.
      expect(tenantStrategy(() => undefined).decorate!(stored).metadata.annotations).to.deep.equal({ team: 'a' });
      // A kubeconfig stored by an earlier version is answered as stored until the controller moves it.
      const legacy = tenant({ [KUBECONFIG_ANNOTATION]: 'a2VwdA==' });
      expect(strategy().decorate!(legacy)).to.equal(legacy);
    });

    it("keeps the stored certificate and key through a client's update, and stores none of a client's kubeconfig", async () => {
      const bundle = credentialsAnnotation(credentials);
      const update = tenant({ team: 'b', [KUBECONFIG_ANNOTATION]: 'c2VudA==', [CREDENTIALS_ANNOTATION]: 'sent' });
      strategy().prepareForUpdate!(update, tenant({ team: 'a', [CREDENTIALS_ANNOTATION]: bundle }));
      expect(update.metadata.annotations).to.deep.equal({ team: 'b', [CREDENTIALS_ANNOTATION]: bundle });

      const dropped = tenant({ team: 'b' });
      strategy().prepareForUpdate!(dropped, tenant({ [CREDENTIALS_ANNOTATION]: bundle }));
      expect(dropped.metadata.annotations).to.deep.equal({ team: 'b', [CREDENTIALS_ANNOTATION]: bundle });

      const legacy = tenant({});
      strategy().prepareForUpdate!(legacy, tenant({ [KUBECONFIG_ANNOTATION]: 'a2VwdA==' }));
      expect(legacy.metadata.annotations).to.deep.equal({ [KUBECONFIG_ANNOTATION]: 'a2VwdA==' });

      const created = tenant({ [KUBECONFIG_ANNOTATION]: 'c2VudA==', [CREDENTIALS_ANNOTATION]: 'sent' });
      await strategy().prepareForCreate!(created);
      expect(created.metadata).to.not.have.property('annotations');
    });
  });
});
