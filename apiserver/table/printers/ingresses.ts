/** Ingresses: NAME CLASS HOSTS ADDRESS PORTS AGE. */
import { ageColumn, column, nameColumn } from './columns.js';
import type { Printer } from './printer.js';
import { loadBalancerAddresses } from './services.js';
import { age } from './timestamps.js';

const SHOWN = 3;

/**
 * Up to three rule hosts, `*` when no rule has one. As in kube, any rule after the third listed host
 * adds `+ N more...`, where N counts all rules past the third, with or without a host.
 */
function hosts(rules: any[] | undefined): string {
  const all = rules ?? [];
  const shown: string[] = [];
  let more = false;
  for (const rule of all) {
    if (shown.length === SHOWN) more = true;
    if (!more && rule.host) shown.push(rule.host);
  }
  if (shown.length === 0) return '*';
  return more ? `${shown.join(',')} + ${all.length - SHOWN} more...` : shown.join(',');
}

export const ingressPrinter: Printer = {
  columns: [
    nameColumn,
    column('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    ageColumn,
  ],
  cells: (ingress, now) => [
    ingress.metadata?.name ?? '',
    ingress.spec?.ingressClassName ?? '<none>',
    hosts(ingress.spec?.rules),
    loadBalancerAddresses(ingress.status?.loadBalancer?.ingress).join(','),
    ingress.spec?.tls?.length ? '80, 443' : '80',
    age(ingress, now),
  ],
};
