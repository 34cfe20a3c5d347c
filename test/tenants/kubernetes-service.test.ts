import { expect } from 'chai';
import { isEndpointIp } from '../../apiserver/validation/endpoint-address.js';
import { parseServiceReference, serviceAddress } from '../../clusters/advertised-service.js';
import { kubernetesServiceObjects } from '../../tenants/kubernetes-service.js';

describe("tenants: the tenant's kubernetes Service and EndpointSlice, and the address they name", () => {
  // kube's ValidateNonSpecialIP cases (pkg/apis/core/validation): what an EndpointSlice may hold.
  const ips: [string, boolean][] = [
    ['10.0.0.1', true],
    ['192.0.2.10', true],
    ['2001:db8::1', true],
    ['0.0.0.0', false],
    ['127.0.0.1', false],
    ['127.255.0.3', false],
    ['169.254.169.254', false],
    ['224.0.0.251', false],
    ['224.0.1.1', true],
    ['::', false],
    ['::1', false],
    ['fe80::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['kubernetes.example', false],
  ];
  for (const [ip, ok] of ips)
    it(`${ip} ${ok ? 'may' : 'may not'} be an endpoint`, () => expect(isEndpointIp(ip)).to.equal(ok));

  it('makes the Service and an IPv4, IPv6 or FQDN slice, and no slice for a loopback address', () => {
    const kinds = (host: string) =>
      kubernetesServiceObjects('abcdef', { host, port: 6443 }).map(
        ({ key, object }) => `${key} ${String(object.addressType ?? object.kind)}`,
      );
    expect(kinds('10.1.2.3')).to.deep.equal([
      'services/abcdef-default/kubernetes Service',
      'endpointslices/abcdef-default/kubernetes IPv4',
    ]);
    expect(kinds('2001:db8::5')[1]).to.equal('endpointslices/abcdef-default/kubernetes IPv6');
    expect(kinds('paddock.example')[1]).to.equal('endpointslices/abcdef-default/kubernetes FQDN');
    expect(kinds('127.0.0.1')).to.deep.equal(['services/abcdef-default/kubernetes Service']);
    expect(kubernetesServiceObjects('abcdef', undefined)).to.deep.equal([]);
    const [service, slice] = kubernetesServiceObjects('abcdef', { host: '10.1.2.3', port: 6443 });
    expect(service.collection).to.equal('/api/v1/namespaces/abcdef-default/services?fieldManager=kube-apiserver');
    expect((service.object.spec as any).ports).to.deep.equal([
      { name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 },
    ]);
    expect(slice.collection).to.equal(
      '/apis/discovery.k8s.io/v1/namespaces/abcdef-default/endpointslices?fieldManager=kube-apiserver',
    );
    expect(slice.object.ports).to.deep.equal([{ name: 'https', port: 6443, protocol: 'TCP' }]);
  });

  it("reads a Service's ClusterIP and its https port (else its first), and none from a headless or portless one", () => {
    const spec = (s: Record<string, unknown>) => ({ spec: s });
    expect(
      serviceAddress(spec({ clusterIP: '10.9.0.4', ports: [{ port: 80 }, { name: 'https', port: 8443 }] })),
    ).to.deep.equal({
      host: '10.9.0.4',
      port: 8443,
    });
    expect(serviceAddress(spec({ clusterIP: '10.9.0.4', ports: [{ name: 'web', port: 80 }] }))).to.deep.equal({
      host: '10.9.0.4',
      port: 80,
    });
    expect(serviceAddress(spec({ clusterIP: 'None', ports: [{ port: 443 }] }))).to.equal(undefined);
    expect(serviceAddress(spec({ type: 'ExternalName', externalName: 'x.example', ports: [{ port: 443 }] }))).to.equal(
      undefined,
    );
    expect(serviceAddress(spec({ clusterIP: '10.9.0.4', ports: [] }))).to.equal(undefined);
    expect(serviceAddress(undefined)).to.equal(undefined);
  });

  it('takes namespace/name and refuses anything else', () => {
    expect(parseServiceReference('paddock-system/paddock')).to.deep.equal({
      namespace: 'paddock-system',
      name: 'paddock',
    });
    for (const bad of ['paddock', '/paddock', 'ns/', 'a/b/c'])
      expect(() => parseServiceReference(bad), bad).to.throw('expected namespace/name');
  });
});
