import { expect } from 'chai';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { endpointSubsets, serviceBackends } from '../../devcluster/service-endpoints.js';

type Json = Record<string, any>;

function pod(
  name: string,
  ip: string,
  options: { ready?: boolean; deleting?: boolean; phase?: string; ports?: Json[] } = {},
) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      labels: { app: 'web' },
      ...(options.deleting ? { deletionTimestamp: '2025-01-01T00:00:00Z' } : {}),
    },
    spec: { nodeName: 'node-1', containers: [{ name: 'main', image: 'x', ports: options.ports ?? [] }] },
    status: {
      phase: options.phase ?? 'Running',
      ...(ip ? { podIPs: [{ ip }] } : {}),
      conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True' }],
    },
  } as unknown as ApiObject;
}

function service(spec: Json): ApiObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'ns' }, spec } as ApiObject;
}

const address = (name: string, ip: string) => ({
  ip,
  nodeName: 'node-1',
  targetRef: { kind: 'Pod', namespace: 'ns', name, uid: `uid-${name}` },
});
const subsetsOf = (svc: ApiObject, pods: ApiObject[]) => endpointSubsets(svc, serviceBackends(svc, pods));

describe("devcluster: a service's endpoints, as kube's endpoints controller computes them", () => {
  const http = { name: 'http', port: 80, targetPort: 'web', protocol: 'TCP' };
  const metrics = { name: 'metrics', port: 9090, targetPort: 9090, protocol: 'TCP' };
  const webPort = { name: 'web', containerPort: 8080 };

  it('repacks: ports offered by the same addresses share a subset; a pod without a named port is left out of it', () => {
    const svc = service({ selector: { app: 'web' }, ports: [http, metrics] });
    const pods = [
      pod('b', '10.0.0.2', { ports: [webPort] }),
      pod('a', '10.0.0.1', { ports: [webPort] }),
      pod('c', '10.0.0.3'),
    ];
    expect(subsetsOf(svc, pods)).to.deep.equal([
      {
        addresses: [address('a', '10.0.0.1'), address('b', '10.0.0.2')],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
      {
        addresses: [address('a', '10.0.0.1'), address('b', '10.0.0.2'), address('c', '10.0.0.3')],
        ports: [{ name: 'metrics', port: 9090, protocol: 'TCP' }],
      },
    ]);
  });

  it('not ready pods are notReadyAddresses; terminating, terminal and address-less pods are left out', () => {
    const svc = service({ selector: { app: 'web' }, ports: [metrics] });
    const pods = [
      pod('ready', '10.0.0.1'),
      pod('starting', '10.0.0.2', { ready: false }),
      pod('leaving', '10.0.0.3', { deleting: true }),
      pod('done', '10.0.0.4', { phase: 'Succeeded' }),
      pod('pending', ''),
    ];
    expect(subsetsOf(svc, pods)).to.deep.equal([
      {
        addresses: [address('ready', '10.0.0.1')],
        notReadyAddresses: [address('starting', '10.0.0.2')],
        ports: [{ name: 'metrics', port: 9090, protocol: 'TCP' }],
      },
    ]);
  });

  it('publishNotReadyAddresses makes every pod ready, terminating ones included', () => {
    const svc = service({ selector: { app: 'web' }, ports: [metrics], publishNotReadyAddresses: true });
    const pods = [pod('starting', '10.0.0.2', { ready: false }), pod('leaving', '10.0.0.3', { deleting: true })];
    expect(subsetsOf(svc, pods)).to.deep.equal([
      {
        addresses: [address('starting', '10.0.0.2'), address('leaving', '10.0.0.3')],
        ports: [{ name: 'metrics', port: 9090, protocol: 'TCP' }],
      },
    ]);
  });

  it('a headless service without ports lists its pods without ports; another service without ports lists none', () => {
    const pods = [pod('a', '10.0.0.1')];
    expect(subsetsOf(service({ selector: { app: 'web' }, clusterIP: 'None' }), pods)).to.deep.equal([
      { addresses: [address('a', '10.0.0.1')] },
    ]);
    expect(subsetsOf(service({ selector: { app: 'web' }, clusterIP: '10.96.0.9' }), pods)).to.deep.equal([]);
  });

  it('pods of other namespaces or labels, and services without a selector, have no backends', () => {
    const other = pod('a', '10.0.0.1');
    other.metadata.namespace = 'elsewhere';
    const unlabelled = pod('b', '10.0.0.2');
    unlabelled.metadata.labels = { app: 'db' };
    expect(serviceBackends(service({ selector: { app: 'web' }, ports: [metrics] }), [other, unlabelled])).to.deep.equal(
      [],
    );
    expect(serviceBackends(service({ ports: [metrics] }), [pod('c', '10.0.0.3')])).to.deep.equal([]);
  });
});
