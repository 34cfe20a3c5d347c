/** Services: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE, wide SELECTOR. */
import { ageColumn, column, nameColumn, wideColumn } from './columns.js';
import { formatLabels } from './labels.js';
import type { Printer } from './printer.js';
import { age } from './timestamps.js';

/** Load-balancer ingress points: IPs, else hostnames, deduplicated and sorted. */
export function loadBalancerAddresses(ingress: any[] | undefined): string[] {
  const addresses = (ingress ?? []).map((point) => point.ip || point.hostname).filter(Boolean);
  return [...new Set<string>(addresses)].sort();
}

function externalIP(spec: any, status: any, type: string): string {
  const externalIPs: string[] = spec.externalIPs ?? [];
  switch (type) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const addresses = [...loadBalancerAddresses(status?.loadBalancer?.ingress), ...externalIPs];
      return addresses.length > 0 ? addresses.join(',') : '<pending>';
    }
    case 'ExternalName':
      return spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

function ports(spec: any): string {
  const text = (spec.ports ?? [])
    .map((p: any) => {
      // The API defaults a port's protocol to TCP.
      const protocol = p.protocol ?? 'TCP';
      return p.nodePort > 0 ? `${p.port}:${p.nodePort}/${protocol}` : `${p.port}/${protocol}`;
    })
    .join(',');
  return text === '' ? '<none>' : text;
}

export const servicePrinter: Printer = {
  columns: [
    nameColumn,
    column('Type', 'string'),
    column('Cluster-IP', 'string'),
    column('External-IP', 'string'),
    column('Port(s)', 'string'),
    ageColumn,
    wideColumn('Selector', 'string'),
  ],
  cells(svc, now) {
    const spec = svc.spec ?? {};
    // The API defaults the type to ClusterIP.
    const type: string = spec.type ?? 'ClusterIP';
    return [
      svc.metadata?.name ?? '',
      type,
      spec.clusterIPs?.[0] ?? spec.clusterIP ?? '<none>',
      externalIP(spec, svc.status, type),
      ports(spec),
      age(svc, now),
      formatLabels(spec.selector),
    ];
  },
};
