/**
 * Role bindings and cluster role bindings: NAME ROLE AGE, wide USERS GROUPS SERVICEACCOUNTS.
 * Roles and cluster roles have no printer in kube and use the generic one.
 */
import { ageColumn, column, nameColumn, wideColumn } from './columns.js';
import type { Printer } from './printer.js';
import { age } from './timestamps.js';

/** Subject names by kind; service accounts as `namespace/name`. */
function subjects(binding: any, kind: string): string {
  return (binding.subjects ?? [])
    .filter((s: any) => s.kind === kind)
    .map((s: any) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name}` : s.name))
    .join(', ');
}

function bindingPrinter(bindingKind: string): Printer {
  return {
    columns: [
      nameColumn,
      column('Role', 'string'),
      ageColumn,
      wideColumn('Users', 'string', `Users in the ${bindingKind}`),
      wideColumn('Groups', 'string', `Groups in the ${bindingKind}`),
      wideColumn('ServiceAccounts', 'string', `ServiceAccounts in the ${bindingKind}`),
    ],
    cells: (binding, now) => [
      binding.metadata?.name ?? '',
      `${binding.roleRef?.kind ?? ''}/${binding.roleRef?.name ?? ''}`,
      age(binding, now),
      subjects(binding, 'User'),
      subjects(binding, 'Group'),
      subjects(binding, 'ServiceAccount'),
    ],
  };
}

export const roleBindingPrinter = bindingPrinter('roleBinding');
export const clusterRoleBindingPrinter = bindingPrinter('clusterRoleBinding');
