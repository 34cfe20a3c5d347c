/** Nodes: NAME STATUS ROLES AGE VERSION, wide INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME. */
import { ageColumn, column, nameColumn, wideColumn } from './columns.js';
import type { Printer } from './printer.js';
import { age } from './timestamps.js';

const ROLE_LABEL_PREFIX = 'node-role.kubernetes.io/';
const LEGACY_ROLE_LABEL = 'kubernetes.io/role';

/** `Ready` or `NotReady` from the Ready condition (`Unknown` without one), plus `SchedulingDisabled` when cordoned. */
function nodeStatus(node: any): string {
  const ready = (node.status?.conditions ?? []).filter((c: any) => c.type === 'Ready').at(-1);
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

/** Roles from `node-role.kubernetes.io/<role>` labels and the legacy `kubernetes.io/role=<role>` label. */
function nodeRoles(labels: Record<string, string> | undefined): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(labels ?? {})) {
    if (key.startsWith(ROLE_LABEL_PREFIX)) {
      const role = key.slice(ROLE_LABEL_PREFIX.length);
      if (role) roles.add(role);
    } else if (key === LEGACY_ROLE_LABEL && value) {
      roles.add(value);
    }
  }
  return [...roles].sort().join(',') || '<none>';
}

const address = (node: any, type: string): string =>
  (node.status?.addresses ?? []).find((a: any) => a.type === type)?.address ?? '<none>';

export const nodePrinter: Printer = {
  columns: [
    nameColumn,
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    ageColumn,
    column('Version', 'string'),
    wideColumn('Internal-IP', 'string'),
    wideColumn('External-IP', 'string'),
    wideColumn('OS-Image', 'string'),
    wideColumn('Kernel-Version', 'string'),
    wideColumn('Container-Runtime', 'string'),
  ],
  cells(node, now) {
    const info = node.status?.nodeInfo ?? {};
    return [
      node.metadata?.name ?? '',
      nodeStatus(node),
      nodeRoles(node.metadata?.labels),
      age(node, now),
      info.kubeletVersion ?? '',
      address(node, 'InternalIP'),
      address(node, 'ExternalIP'),
      info.osImage || '<unknown>',
      info.kernelVersion || '<unknown>',
      info.containerRuntimeVersion || '<unknown>',
    ];
  },
};
