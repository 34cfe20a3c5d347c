import { ageColumn, column, nameColumn, wideColumn } from '../apiserver/table/printers/columns.js';
import type { Printer } from '../apiserver/table/printers/printer.js';
import { age } from '../apiserver/table/printers/timestamps.js';
import { clusterReadyStatus } from './cluster-resource.js';

const orNone = (value: unknown) => (typeof value === 'string' && value !== '' ? value : '<none>');

/** `kubectl get clusters`: Karmada's columns, NAME VERSION MODE READY AGE, and with `-o wide` where the cluster runs and its endpoint. */
export const clusterPrinter: Printer = {
  columns: [
    nameColumn,
    column('Version', 'string', 'KubernetesVersion represents version of the member cluster.'),
    column('Mode', 'string', 'SyncMode describes how a cluster sync resources from karmada control plane.'),
    column('Ready', 'string', 'The aggregate readiness state of this cluster for accepting workloads.'),
    ageColumn,
    wideColumn('Zones', 'string', 'Zones represents the failure zones of the member cluster.'),
    wideColumn('Region', 'string', 'Region represents the region of the member cluster locate in.'),
    wideColumn('Provider', 'string', 'Provider represents the cloud provider name of the member cluster.'),
    wideColumn('API-Endpoint', 'string', 'The API endpoint of the member cluster.'),
    wideColumn('Proxy-URL', 'string', 'ProxyURL is the proxy URL for the cluster.'),
  ],
  cells: (cluster, now) => [
    cluster.metadata?.name ?? '',
    cluster.status?.kubernetesVersion ?? '',
    cluster.spec?.syncMode ?? '',
    clusterReadyStatus(cluster),
    age(cluster, now),
    Array.isArray(cluster.spec?.zones) && cluster.spec.zones.length ? cluster.spec.zones.join(',') : '<none>',
    orNone(cluster.spec?.region),
    orNone(cluster.spec?.provider),
    cluster.spec?.apiEndpoint ?? '',
    orNone(cluster.spec?.proxyURL),
  ],
};
