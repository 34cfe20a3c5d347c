import { expect } from 'chai';
import path from 'node:path';
import { connect } from 'node:tls';
import { ApiClient } from '../support/api-client.js';
import { eventually, waitUntil } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { startStage, type Stage } from '../support/stage.js';

type Json = Record<string, any>;

const SERVICE = { namespace: 'paddock-system', name: 'paddock' };

/** The names the gateway's serving certificate holds, as Node prints them (`IP Address:…, DNS:…`). */
function servingNames(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().subjectaltname ?? '');
      socket.end();
    });
    socket.on('error', reject);
  });
}

describe('gateway: the Service the admin names on a cluster is where its tenants’ pods reach the gateway (--advertise-service)', function () {
  let stage: Stage;
  let member: ApiClient;

  before(async () => {
    stage = await startStage('advertised-service', {
      gateway: { advertiseService: `${SERVICE.namespace}/${SERVICE.name}`, advertiseServicePeriodMs: 200 },
    });
    member = await ApiClient.load(stage.upstream.kubeconfigPath);
  });
  after(async () => {
    member?.close();
    await stage?.stop();
  });

  async function podEnvironment(kubectl: Kubectl, tenant: string, pod: string) {
    await kubectl.ok(['run', pod, '--image=nginx']);
    const upstream = (await member.request('GET', `/api/v1/namespaces/${tenant}-default/pods/${pod}`)).body as Json;
    const env = Object.fromEntries(
      (upstream.spec.containers[0].env as { name: string; value: string }[]).map((e) => [e.name, e.value]),
    );
    return { env, hostAliases: upstream.spec.hostAliases };
  }

  it("gives the pods its ClusterIP and port, names it in the tenant's kubernetes Service's EndpointSlice and in the serving certificate", async () => {
    await member.request('POST', '/api/v1/namespaces', { metadata: { name: SERVICE.namespace } });
    const made = await member.request('POST', `/api/v1/namespaces/${SERVICE.namespace}/services`, {
      metadata: { name: SERVICE.name },
      spec: {
        ports: [
          { name: 'metrics', port: 9090 },
          { name: 'https', port: 443, targetPort: 6443 },
        ],
      },
    });
    expect(made.status).to.equal(201);
    const ip: string = (made.body as Json).spec.clusterIP;
    expect(ip).to.match(/^10\.\d+\.\d+\.\d+$/);
    // In-cluster clients verify the gateway by the IP they were given, as kube-apiserver's certificate names the kubernetes Service's.
    await waitUntil('the serving certificate names the ClusterIP', async () =>
      (await servingNames(stage.gateway.url)).split(', ').includes(`IP Address:${ip}`),
    );

    const created = await stage.tenant('advone');
    const kubectl = await Kubectl.create(created.kubeconfigPath);
    try {
      const { env, hostAliases } = await podEnvironment(kubectl, 'advone', 'web');
      expect(env).to.include({ KUBERNETES_SERVICE_HOST: ip, KUBERNETES_SERVICE_PORT: '443' });
      expect(env.KUBERNETES_PORT).to.equal(`tcp://${ip}:443`);
      expect(hostAliases).to.deep.equal([
        {
          ip,
          hostnames: [
            'kubernetes',
            'kubernetes.default',
            'kubernetes.default.svc',
            'kubernetes.default.svc.cluster.local',
          ],
        },
      ]);
      // The tenant's kubernetes Service names the same address, as kube's names the API server's.
      const slice = JSON.parse(await kubectl.ok(['get', 'endpointslice', 'kubernetes', '-o', 'json']));
      expect(slice.metadata.labels).to.deep.equal({ 'kubernetes.io/service-name': 'kubernetes' });
      expect(slice.addressType).to.equal('IPv4');
      expect(slice.endpoints).to.deep.equal([{ addresses: [ip], conditions: { ready: true } }]);
      expect(slice.ports).to.deep.equal([{ name: 'https', port: 443, protocol: 'TCP' }]);
      const service = JSON.parse(await kubectl.ok(['get', 'service', 'kubernetes', '-o', 'json']));
      expect(service.spec.ports).to.deep.equal([{ name: 'https', port: 443, protocol: 'TCP', targetPort: 443 }]);
      expect(await kubectl.ok(['get', 'endpointslices'])).to.match(
        new RegExp(`^kubernetes\\s+IPv4\\s+443\\s+${ip.replaceAll('.', '\\.')}\\s+`, 'm'),
      );
    } finally {
      await kubectl.dispose();
    }
  });

  it('gives the advertised address where the cluster has no such Service', async () => {
    await member.request('DELETE', `/api/v1/namespaces/${SERVICE.namespace}/services/${SERVICE.name}`);
    const created = await stage.tenant('advtwo');
    const kubectl = await Kubectl.create(created.kubeconfigPath);
    try {
      const { port } = new URL(stage.gateway.url);
      let n = 0;
      await eventually(
        () => podEnvironment(kubectl, 'advtwo', `web${n++}`),
        ({ env }) => expect(env).to.include({ KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: port }),
      );
    } finally {
      await kubectl.dispose();
    }
  });

  it('makes the kubernetes Service and EndpointSlice of the tenants made before name the address as it changes', async () => {
    const kubectl = await Kubectl.create(path.join(stage.dir, 'advone.kubeconfig'));
    const kubernetesService = async () => {
      const service = JSON.parse(await kubectl.ok(['get', 'service', 'kubernetes', '-o', 'json']));
      const slices = JSON.parse(await kubectl.ok(['get', 'endpointslices', '-o', 'json']));
      return {
        targetPort: service.spec.ports.map((p: Json) => p.targetPort),
        slices: slices.items.map((s: Json) => [s.metadata.name, s.endpoints[0].addresses, s.ports[0].port]),
      };
    };
    try {
      // The Service went (the test before): pods reach the gateway at a loopback address, which no slice holds.
      const { port } = new URL(stage.gateway.url);
      await eventually(kubernetesService, (now) =>
        expect(now).to.deep.equal({ targetPort: [Number(port)], slices: [] }),
      );
      const made = await member.request('POST', `/api/v1/namespaces/${SERVICE.namespace}/services`, {
        metadata: { name: SERVICE.name },
        spec: { ports: [{ name: 'https', port: 8443, targetPort: 6443 }] },
      });
      expect(made.status).to.equal(201);
      const ip: string = (made.body as Json).spec.clusterIP;
      await eventually(kubernetesService, (now) =>
        expect(now).to.deep.equal({ targetPort: [8443], slices: [['kubernetes', [ip], 8443]] }),
      );
    } finally {
      await kubectl.dispose();
    }
  });
});
