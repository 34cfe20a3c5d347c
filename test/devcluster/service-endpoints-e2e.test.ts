import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { eventually } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

type Json = Record<string, any>;

describe('devcluster: the kubernetes Service, Endpoints and EndpointSlices with the real kubectl', function () {
  let cluster: DevCluster;
  let kubectl: Kubectl;
  let removeDir: () => Promise<void>;
  let port: number;

  before(async () => {
    const temp = await makeTempDir('service-endpoints');
    removeDir = temp.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: temp.dir });
    port = Number(new URL(cluster.url).port);
    kubectl = await Kubectl.create(cluster.kubeconfigPath);
  });
  after(async () => {
    await kubectl?.dispose();
    await cluster?.stop();
    await removeDir?.();
  });

  const getJson = async (args: string[]): Promise<Json> => JSON.parse(await kubectl.ok(['get', ...args, '-o', 'json']));
  const missing = async (args: string[]) => (await kubectl.run(['get', ...args])).stderr.includes('NotFound');

  it('default/kubernetes points at the API server, as kube-apiserver writes it, and is put back when deleted', async () => {
    expect(await kubectl.ok(['get', 'svc', 'kubernetes'])).to.match(
      /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\nkubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443\/TCP\s+\d+s\n$/,
    );
    const service = await getJson(['svc', 'kubernetes']);
    expect(service.metadata.labels).to.deep.equal({ component: 'apiserver', provider: 'kubernetes' });
    expect(service.spec).not.to.have.property('selector');
    expect(service.spec.ports).to.deep.equal([{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }]);

    const endpoints = await getJson(['endpoints', 'kubernetes']);
    expect(endpoints.metadata.labels).to.deep.equal({ 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    expect(endpoints.subsets).to.deep.equal([
      { addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port, protocol: 'TCP' }] },
    ]);
    const slice = await getJson(['endpointslice', 'kubernetes']);
    expect(slice.metadata.labels).to.deep.equal({ 'kubernetes.io/service-name': 'kubernetes' });
    expect(slice.addressType).to.equal('IPv4');
    expect(slice.endpoints).to.deep.equal([{ addresses: ['127.0.0.1'], conditions: { ready: true } }]);
    expect(slice.ports).to.deep.equal([{ name: 'https', port, protocol: 'TCP' }]);
    expect(await kubectl.ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=kubernetes'])).to.match(
      new RegExp(
        `^NAME\\s+ADDRESSTYPE\\s+PORTS\\s+ENDPOINTS\\s+AGE\\nkubernetes\\s+IPv4\\s+${port}\\s+127\\.0\\.0\\.1\\s+`,
      ),
    );

    // Deleting the Service makes the endpoints controller delete the Endpoints too. Without
    // --wait=false kubectl would wait for an Endpoints it did not delete to go, while it comes back.
    await kubectl.ok(['delete', 'svc,endpoints,endpointslice', 'kubernetes', '--ignore-not-found', '--wait=false']);
    await eventually(
      () => getJson(['svc,endpoints,endpointslice', 'kubernetes']),
      (list) => {
        expect(list.items.map((item: Json) => item.kind)).to.deep.equal(['Service', 'Endpoints', 'EndpointSlice']);
        expect(list.items[0].metadata.uid).not.to.equal(service.metadata.uid);
        expect(list.items[0].spec.clusterIP).to.equal('10.96.0.1');
      },
    );
  });

  it('keeps the Endpoints and EndpointSlices of a service with a selector as its pods come, stop being ready and go', async () => {
    const ns = 'exposed';
    await kubectl.ok(['create', 'namespace', ns]);
    for (const pod of ['web1', 'web2'])
      await kubectl.ok(['run', pod, '-n', ns, '--image=nginx', '--labels=app=web', '--port=8080']);
    await kubectl.ok(['run', 'other', '-n', ns, '--image=nginx', '--labels=app=other', '--port=8080']);
    await kubectl.ok([
      'expose',
      'pod',
      'web1',
      '-n',
      ns,
      '--name=web',
      '--port=80',
      '--target-port=8080',
      '--selector=app=web',
    ]);
    const service = await getJson(['svc', 'web', '-n', ns]);
    const pods = new Map<string, Json>();
    await eventually(
      () => getJson(['pods', '-n', ns]),
      (list) => {
        for (const pod of list.items) pods.set(pod.metadata.name, pod);
        for (const pod of list.items) expect(pod.status.podIP, pod.metadata.name).to.be.a('string');
      },
    );
    const ipOf = (name: string) => String(pods.get(name)!.status.podIP);
    const target = (name: string) => ({ kind: 'Pod', namespace: ns, name, uid: pods.get(name)!.metadata.uid });
    const address = (name: string) => {
      const json: Json = { ip: ipOf(name) };
      if (pods.get(name)!.spec.nodeName) json.nodeName = pods.get(name)!.spec.nodeName;
      return { ...json, targetRef: target(name) };
    };
    const byIp = (names: string[]) => [...names].sort((a, b) => (ipOf(a) < ipOf(b) ? -1 : 1));
    const slices = () => getJson(['endpointslices', '-n', ns, '-l', 'kubernetes.io/service-name=web']);
    const endpointOf = (slice: Json, name: string) =>
      slice.endpoints.find((endpoint: Json) => endpoint.targetRef.name === name);

    await eventually(
      () => getJson(['endpoints', 'web', '-n', ns]),
      (endpoints) => {
        expect(endpoints.metadata.labels).to.deep.equal({ app: 'web' });
        expect(endpoints.subsets).to.deep.equal([
          { addresses: byIp(['web1', 'web2']).map(address), ports: [{ port: 8080, protocol: 'TCP' }] },
        ]);
      },
    );
    await eventually(slices, (list) => {
      expect(list.items).to.have.length(1);
      const [slice] = list.items;
      expect(slice.metadata.name).to.match(/^web-[a-z0-9]{5}$/);
      expect(slice.metadata.generateName).to.equal('web-');
      expect(slice.metadata.labels).to.deep.equal({
        app: 'web',
        'kubernetes.io/service-name': 'web',
        'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
      });
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
      expect(slice.addressType).to.equal('IPv4');
      expect(slice.ports).to.deep.equal([{ name: '', port: 8080, protocol: 'TCP' }]);
      expect(slice.endpoints.map((endpoint: Json) => endpoint.targetRef)).to.deep.equal(
        byIp(['web1', 'web2']).map(target),
      );
      for (const name of ['web1', 'web2']) {
        expect(endpointOf(slice, name).addresses).to.deep.equal([ipOf(name)]);
        expect(endpointOf(slice, name).conditions).to.deep.equal({ ready: true, serving: true, terminating: false });
      }
    });
    expect(await kubectl.ok(['get', 'endpoints', 'web', '-n', ns])).to.include(
      byIp(['web1', 'web2'])
        .map((name) => `${ipOf(name)}:8080`)
        .join(','),
    );

    // web1 stops being ready: a not-ready address, and an endpoint neither ready nor serving.
    await kubectl.ok([
      'patch',
      'pod',
      'web1',
      '-n',
      ns,
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"conditions":[{"type":"Ready","status":"False"}]}}',
    ]);
    await eventually(
      () => getJson(['endpoints', 'web', '-n', ns]),
      (endpoints) =>
        expect(endpoints.subsets).to.deep.equal([
          {
            addresses: [address('web2')],
            notReadyAddresses: [address('web1')],
            ports: [{ port: 8080, protocol: 'TCP' }],
          },
        ]),
    );
    await eventually(slices, (list) =>
      expect(endpointOf(list.items[0], 'web1').conditions).to.deep.equal({
        ready: false,
        serving: false,
        terminating: false,
      }),
    );

    // web2 is deleted: gone from both.
    await kubectl.ok(['delete', 'pod', 'web2', '-n', ns, '--wait']);
    await eventually(
      () => getJson(['endpoints', 'web', '-n', ns]),
      (endpoints) =>
        expect(endpoints.subsets).to.deep.equal([
          { notReadyAddresses: [address('web1')], ports: [{ port: 8080, protocol: 'TCP' }] },
        ]),
    );
    await eventually(slices, (list) =>
      expect(list.items[0].endpoints.map((endpoint: Json) => endpoint.targetRef.name)).to.deep.equal(['web1']),
    );

    // An Endpoints object someone deletes is written again.
    await kubectl.ok(['delete', 'endpoints', 'web', '-n', ns]);
    await eventually(
      () => getJson(['endpoints', 'web', '-n', ns]),
      (endpoints) => expect(endpoints.subsets[0].notReadyAddresses).to.deep.equal([address('web1')]),
    );

    // The service goes: its Endpoints and EndpointSlices go with it.
    await kubectl.ok(['delete', 'service', 'web', '-n', ns]);
    await eventually(
      async () => [await missing(['endpoints', 'web', '-n', ns]), (await slices()).items.length],
      (state) => expect(state).to.deep.equal([true, 0]),
    );
  });
});
