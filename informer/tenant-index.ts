/**
 * The index of objects by tenant: the value of the label `kubezoo.io/tenant` that the gateway
 * forces onto the upstream objects other selectors must tell apart by tenant. An object without
 * the label gets no value, so it is in no set of this index rather than in one large set under ''.
 */
import { isObject } from '../apiserver/json.js';
import { isStoredBindingName, STORED_BINDING_LABEL } from '../translate/kinds/stored-cluster-role-binding.js';
import { TENANT_LABEL } from '../translate/kinds/tenant-label.js';
import { objectMeta } from './object-meta.js';

export const TENANT_INDEX = 'tenant';

export function tenantIndexFunc(obj: unknown): string[] {
  const labels = objectMeta(obj).labels;
  const tenant = isObject(labels) ? labels[TENANT_LABEL] : undefined;
  return typeof tenant === 'string' ? [tenant] : [];
}

/** The index of cluster-scoped objects by the tenant whose prefix their name carries. */
export const NAME_PREFIX_INDEX = 'tenant-name-prefix';

/** `<tid>-…` names a tenant's cluster-scoped object (a tenant id has no `-`). */
export function byNamePrefix(obj: unknown): string[] {
  const name = objectMeta(obj).name;
  if (typeof name !== 'string') return [];
  const dash = name.indexOf('-');
  return dash > 0 && dash < name.length - 1 ? [name.slice(0, dash)] : [];
}

/** The index of stored ClusterRoleBindings (RoleBindings, translate/kinds/stored-cluster-role-binding.ts) by the tenant their label names. */
export const STORED_BINDING_INDEX = 'stored-cluster-role-binding-of';

export function byStoredBindingLabel(obj: unknown): string[] {
  const meta = objectMeta(obj);
  const tenant = isObject(meta.labels) ? meta.labels[STORED_BINDING_LABEL] : undefined;
  return typeof tenant === 'string' && isStoredBindingName(meta.name) ? [tenant] : [];
}
