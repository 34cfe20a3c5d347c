/**
 * The index of objects by tenant: the value of the label `kubezoo.io/tenant` that the gateway
 * forces onto the upstream objects other selectors must tell apart by tenant. An object without
 * the label gets no value, so it is in no set of this index rather than in one large set under ''.
 */
import { isObject } from '../apiserver/json.js';
import { TENANT_LABEL } from '../translate/kinds/tenant-label.js';
import { objectMeta } from './object-meta.js';

export const TENANT_INDEX = 'tenant';

export function tenantIndexFunc(obj: unknown): string[] {
  const labels = objectMeta(obj).labels;
  const tenant = isObject(labels) ? labels[TENANT_LABEL] : undefined;
  return typeof tenant === 'string' ? [tenant] : [];
}
