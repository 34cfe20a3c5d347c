/**
 * The ResourceRegistry kind served by an ApiServer over an embedded store, driven by the real
 * kubectl over TLS: Karmada's validation cases (pkg/apis/search/validation/validation_test.go)
 * with the messages Karmada's field errors carry, the status subresource, and the printer.
 */
import { expect } from 'chai';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ApiServer } from '../../apiserver/api-server.js';
import { ResourceCatalog } from '../../apiserver/catalog.js';
import {
  RESOURCE_REGISTRY_PRINTER,
  RESOURCE_REGISTRY_RESOURCE,
  resourceRegistryStrategy,
} from '../../search/resource-registry.js';
import { createCertificateAuthority, renderKubeconfig } from '../../certs/index.js';
import { DEVCLUSTER_VERSION } from '../../devcluster/devcluster.js';
import { EmbeddedStore } from '../../store/index.js';
import { ApiClient } from '../support/api-client.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

const VALID = `apiVersion: search.karmada.io/v1alpha1
kind: ResourceRegistry
metadata:
  name: registry-a
spec:
  targetCluster:
    clusterNames: [member1]
    fieldSelector:
      matchExpressions:
        - {key: region, operator: In, values: [eu]}
  resourceSelectors:
    - {apiVersion: apps/v1, kind: Deployment, namespace: default}
    - {apiVersion: v1, kind: Pod}
  backendStore:
    openSearch:
      addresses: ["https://localhost:9200"]
      secretRef: {namespace: default, name: os-auth}
`;

function registry(name: string, spec: string): string {
  return `apiVersion: search.karmada.io/v1alpha1\nkind: ResourceRegistry\nmetadata:\n  name: ${name}\nspec:\n${spec}`;
}

describe('cache: the ResourceRegistry kind (search.karmada.io/v1alpha1) through kubectl', function () {
  this.timeout(60000);
  let server: Server;
  let store: EmbeddedStore;
  let kubectl: Kubectl;
  let removeDir: () => Promise<void>;
  let kubeconfig: string;

  before(async () => {
    const temp = await makeTempDir('resource-registry');
    removeDir = temp.remove;
    store = await EmbeddedStore.open();
    const ca = await createCertificateAuthority({ commonName: 'registry-test-ca' });
    const serving = await ca.issueServingCertificate({ hosts: ['127.0.0.1'] });
    const client = await ca.issueClientCertificate({ commonName: 'admin', organizations: ['system:masters'] });
    let address = '';
    const api = new ApiServer({
      store,
      catalog: new ResourceCatalog([RESOURCE_REGISTRY_RESOURCE]),
      strategyFor: () => resourceRegistryStrategy,
      printerFor: () => RESOURCE_REGISTRY_PRINTER,
      version: DEVCLUSTER_VERSION,
      get serverAddress() {
        return address;
      },
    });
    server = createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
      api.handle(req, res, { name: 'admin', groups: ['system:masters'] }).catch(() => res.destroy());
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    kubeconfig = path.join(temp.dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      renderKubeconfig({
        clusterName: 'registry-test',
        server: `https://${address}`,
        caPem: ca.certPem,
        userName: 'admin',
        certPem: client.certPem,
        keyPem: client.keyPem,
        contextName: 'registry-test',
      }),
    );
    kubectl = await Kubectl.create(kubeconfig);
  });

  after(async () => {
    await kubectl?.dispose();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await store.close();
    await removeDir();
  });

  it("applies Karmada's valid registry and serves it back with its spec unchanged and no status invented", async () => {
    expect(await kubectl.ok(['apply', '-f', '-'], VALID)).to.contain(
      'resourceregistry.search.karmada.io/registry-a created',
    );
    const stored = JSON.parse(await kubectl.ok(['get', 'resourceregistry', 'registry-a', '-o', 'json']));
    expect(stored.spec.resourceSelectors).to.deep.equal([
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default' },
      { apiVersion: 'v1', kind: 'Pod' },
    ]);
    expect(stored.spec.targetCluster.clusterNames).to.deep.equal(['member1']);
    expect(stored).to.not.have.property('status');
    expect(stored.metadata).to.not.have.property('namespace');
  });

  it('accepts empty resourceSelectors, as Karmada does', async () => {
    await kubectl.ok(['apply', '-f', '-'], registry('registry-b', '  targetCluster: {}\n  resourceSelectors: []\n'));
  });

  it("refuses Karmada's malformed selector and backend case with one field error each, in Karmada's words", async () => {
    const result = await kubectl.run(
      ['apply', '-f', '-'],
      registry(
        'registry-c',
        `  targetCluster: {}
  resourceSelectors:
    - {apiVersion: apps/v1/extra, kind: "", namespace: Bad_Namespace}
  backendStore:
    openSearch:
      addresses: ["localhost:9200", "http://[::1", "https://ok:9200"]
      secretRef: {namespace: "", name: ""}
`,
      ),
    );
    expect(result.code).to.equal(1);
    expect(result.stderr).to.contain('The ResourceRegistry "registry-c" is invalid:');
    expect(result.stderr).to.contain(
      'spec.resourceSelectors[0].apiVersion: Invalid value: "apps/v1/extra": unexpected GroupVersion string: apps/v1/extra',
    );
    expect(result.stderr).to.contain(
      `spec.resourceSelectors[0].namespace: Invalid value: "Bad_Namespace": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    );
    expect(result.stderr).to.contain(
      'spec.backendStore.openSearch.addresses[0]: Invalid value: "localhost:9200": must be a valid http or https URL with non-empty scheme and host',
    );
    expect(result.stderr).to.contain(
      `spec.backendStore.openSearch.addresses[1]: Invalid value: "http://[::1": parse "http://[::1": missing ']' in host`,
    );
    expect(result.stderr).to.not.contain('addresses[2]');
    expect(await kubectl.run(['get', 'resourceregistry', 'registry-c'])).to.include({ code: 1 });
  });

  it('refuses a field selector key other than provider, region or zone, and an operator other than In or NotIn, as one error', async () => {
    const badKey = await kubectl.run(
      ['create', '-f', '-'],
      registry(
        'bad-key',
        `  targetCluster:
    fieldSelector:
      matchExpressions:
        - {key: zone, operator: In, values: [z1]}
        - {key: metadata.name, operator: In, values: [m1]}
        - {key: region, operator: Exists}
  resourceSelectors: []
`,
      ),
    );
    expect(badKey.code).to.equal(1);
    expect(badKey.stderr).to.contain(
      'spec.targetCluster.fieldSelector: Invalid value: {"matchExpressions":[{"key":"zone","operator":"In","values":["z1"]},{"key":"metadata.name","operator":"In","values":["m1"]},{"key":"region","operator":"Exists"}]}: unsupported key "metadata.name", must be provider, region, or zone',
    );
    expect(badKey.stderr).to.not.contain('unsupported operator');

    const badOperator = await kubectl.run(
      ['create', '-f', '-'],
      registry(
        'bad-operator',
        '  targetCluster:\n    fieldSelector:\n      matchExpressions: [{key: zone, operator: Exists}]\n  resourceSelectors: []\n',
      ),
    );
    expect(badOperator.stderr).to.contain('unsupported operator "Exists", must be In or NotIn');
  });

  it('refuses a name that is not a DNS subdomain', async () => {
    const result = await kubectl.run(
      ['create', '-f', '-'],
      registry('Registry_Upper', '  targetCluster: {}\n  resourceSelectors: []\n'),
    );
    expect(result.code).to.equal(1);
    expect(result.stderr).to.contain('metadata.name: Invalid value: "Registry_Upper": a lowercase RFC 1123 subdomain');
  });

  it('answers the 422 Invalid Status with its causes to an API client', async () => {
    const client = await ApiClient.load(kubeconfig);
    const response = await client.request('POST', '/apis/search.karmada.io/v1alpha1/resourceregistries', {
      apiVersion: 'search.karmada.io/v1alpha1',
      kind: 'ResourceRegistry',
      metadata: { name: 'raw' },
      spec: { targetCluster: {}, resourceSelectors: [{ apiVersion: 'v1', kind: 'Pod', namespace: '-x' }] },
    });
    client.close();
    expect(response.status).to.equal(422);
    const status = response.body;
    expect(status).to.deep.include({ kind: 'Status', code: 422, reason: 'Invalid' });
    expect(status.details).to.deep.include({ name: 'raw', group: 'search.karmada.io', kind: 'ResourceRegistry' });
    expect(status.details.causes[0]).to.include({
      reason: 'FieldValueInvalid',
      field: 'spec.resourceSelectors[0].namespace',
    });
  });

  it('writes status only through the status subresource', async () => {
    const condition = {
      type: 'Synced',
      status: 'True',
      reason: 'Test',
      message: '',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    };
    await kubectl.ok([
      'patch',
      'resourceregistry',
      'registry-a',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { conditions: [condition] } }),
    ]);
    const afterMain = JSON.parse(await kubectl.ok(['get', 'resourceregistry', 'registry-a', '-o', 'json']));
    expect(afterMain).to.not.have.property('status');
    await kubectl.ok([
      'patch',
      'resourceregistry',
      'registry-a',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { conditions: [condition] }, spec: { resourceSelectors: [] } }),
    ]);
    const afterStatus = JSON.parse(await kubectl.ok(['get', 'resourceregistry', 'registry-a', '-o', 'json']));
    expect(afterStatus.status.conditions).to.deep.equal([condition]);
    expect(afterStatus.spec.resourceSelectors).to.have.length(2);
  });

  it("prints NAME and CREATED AT, as Karmada's default table convertor", async () => {
    const lines = (await kubectl.ok(['get', 'resourceregistries'])).trimEnd().split('\n');
    expect(lines[0]).to.match(/^NAME\s+CREATED AT$/);
    expect(lines.slice(1).map((line) => line.split(/\s+/)[0])).to.deep.equal(['registry-a', 'registry-b']);
    expect(lines[1]).to.match(/^registry-a\s+\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });
});
