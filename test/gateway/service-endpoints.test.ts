import { expect } from 'chai';
import { eventually, waitUntil } from '../support/eventually.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';

type Json = Record<string, any>;

const IDS = ['epsone', 'epstwo'] as const;

describe("gateway: a tenant's Endpoints and EndpointSlices, written upstream by the devcluster's controllers", function () {
  let stage: TwoTenants;

  before(async () => {
    stage = await startTwoTenants('service-endpoints', IDS);
  });
  after(async () => {
    await stage?.stop();
  });

  it('come down with tenant names only: targetRef namespaces, owners and labels carry no prefix', async () => {
    const { kubectl } = stage.tenants[0];
    await kubectl.ok(['run', 'web1', '--image=nginx', '--labels=app=web', '--port=8080']);
    await kubectl.ok(['expose', 'pod', 'web1', '--name=web', '--port=80', '--target-port=8080']);
    const pod = JSON.parse(await kubectl.ok(['get', 'pod', 'web1', '-o', 'json']));
    const service = JSON.parse(await kubectl.ok(['get', 'service', 'web', '-o', 'json']));

    let text = '';
    await eventually(
      async () =>
        (text = await kubectl.ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'json'])),
      (json) => expect(JSON.parse(json).items[0]?.endpoints).to.have.length(1),
    );
    const [slice] = JSON.parse(text).items;
    expect(slice.metadata.namespace).to.equal('default');
    expect(slice.metadata.ownerReferences).to.deep.equal([
      {
        apiVersion: 'v1',
        kind: 'Service',
        name: 'web',
        uid: service.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(slice.metadata.labels['kubernetes.io/service-name']).to.equal('web');
    expect(slice.endpoints[0].targetRef).to.deep.equal({
      kind: 'Pod',
      namespace: 'default',
      name: 'web1',
      uid: pod.metadata.uid,
    });
    expect(text).not.to.include(`${IDS[0]}-`);

    // Upstream, the same slice names the prefixed namespace: the conversion is what hides it.
    const upstream = await stage.member.request(
      'GET',
      `/apis/discovery.k8s.io/v1/namespaces/${IDS[0]}-default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dweb`,
    );
    expect(upstream.body.items[0].endpoints[0].targetRef.namespace).to.equal(`${IDS[0]}-default`);

    const endpoints = await kubectl.ok(['get', 'endpoints', 'web', '-o', 'json']);
    expect(JSON.parse(endpoints).subsets[0].addresses[0].targetRef.namespace).to.equal('default');
    expect(endpoints).not.to.include(`${IDS[0]}-`);

    const table = await kubectl.ok(['get', 'endpointslices', '-A']);
    expect(table).to.match(
      new RegExp(`^default\\s+${slice.metadata.name}\\s+IPv4\\s+8080\\s+${pod.status.podIP}\\s+`, 'm'),
    );
    expect(table.trim().split('\n')).to.have.length(2);
  });

  it("a tenant's default namespace has a kubernetes Service of its own, with no EndpointSlice for a loopback gateway", async () => {
    const listed = await stage.tenants[1].kubectl.ok(['get', 'services,endpoints,endpointslices', '-n', 'default']);
    // The gateway listens on 127.0.0.1, which kube's validation refuses in an EndpointSlice.
    expect(listed).to.match(
      /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\nservice\/kubernetes\s+ClusterIP\s+10\.\d+\.\d+\.\d+\s+<none>\s+443\/TCP\s+\S+\n$/,
    );
    const own = JSON.parse(
      await stage.tenants[1].kubectl.ok(['get', 'service', 'kubernetes', '-o', 'json', '--show-managed-fields']),
    );
    expect(own.metadata.labels).to.deep.equal({ component: 'apiserver', provider: 'kubernetes' });
    expect(own.metadata.managedFields.map((entry: Json) => entry.manager)).to.deep.equal(['kube-apiserver']);
    expect(own.spec.ports).to.deep.equal([
      { name: 'https', port: 443, protocol: 'TCP', targetPort: Number(new URL(stage.gateway.url).port) },
    ]);
    // The cluster's own stays the cluster's.
    expect(own.spec.clusterIP).not.to.equal('10.96.0.1');
    const member = await stage.member.request('GET', '/api/v1/namespaces/default/services/kubernetes');
    expect((member.body as Json).spec.clusterIP).to.equal('10.96.0.1');
    const upstream = await stage.member.request('GET', `/api/v1/namespaces/${IDS[1]}-default/services/kubernetes`);
    expect((upstream.body as Json).spec.clusterIP).to.equal(own.spec.clusterIP);
    const other = await stage.tenants[1].kubectl.run(['get', 'endpointslices', '-A']);
    expect(other.stderr).to.equal('No resources found\n');
  });

  it('a kubernetes Service deleted, by the tenant or behind its back, is made again, as kube-apiserver makes its own again', async () => {
    const kubectl = stage.tenants[0].kubectl;
    const serviceOf = async () => {
      const got = await kubectl.run(['get', 'service', 'kubernetes', '-o', 'json']);
      return got.code === 0 ? (JSON.parse(got.stdout) as Json) : undefined;
    };
    const first = await serviceOf();
    expect(first, 'the Service made with the tenant').to.not.equal(undefined);
    await kubectl.ok(['delete', 'service', 'kubernetes']);
    const again = await waitUntil('the Service made again', async () => {
      const service = await serviceOf();
      return service && service.metadata.uid !== first!.metadata.uid && service;
    });
    expect(again.metadata.labels).to.deep.equal({ component: 'apiserver', provider: 'kubernetes' });
    expect(again.spec.ports).to.deep.equal(first!.spec.ports);
    // Deleted upstream, as for a tenant made before tenants had one.
    const path = `/api/v1/namespaces/${IDS[0]}-default/services/kubernetes`;
    expect((await stage.member.request('DELETE', path)).status).to.equal(200);
    await waitUntil('the Service made again upstream', async () => {
      const service = await serviceOf();
      return service && service.metadata.uid !== again.metadata.uid;
    });
  });
});
