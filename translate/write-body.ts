/**
 * The type of a write's body, in the tenant's view, by what the URL names: the resource's own
 * kind, also for the subresources whose body is the object itself (`status`, `finalize`,
 * `ephemeralcontainers`, `resize`: what they store comes from it); a TokenRequest for
 * `serviceaccounts/<sa>/token`. Other subresources (`scale`, `eviction`, `binding`) take a kind
 * with nothing of a tenant's to convert or check, and their bodies go as they came: undefined.
 */
import type { TranslatedRequest } from './request.js';

export interface BodyType {
  apiVersion: string;
  group: string;
  kind: string;
}

const OBJECT_SUBRESOURCES = new Set(['', 'status', 'finalize', 'ephemeralcontainers', 'resize']);

export function writeBodyType(t: TranslatedRequest): BodyType | undefined {
  const subresource = t.info.subresource ?? '';
  if (OBJECT_SUBRESOURCES.has(subresource)) {
    return {
      apiVersion: t.info.group ? `${t.info.group}/${t.info.version}` : t.info.version,
      group: t.info.group,
      kind: t.kind,
    };
  }
  if (t.info.group === '' && t.info.resource === 'serviceaccounts' && subresource === 'token') {
    return { apiVersion: 'authentication.k8s.io/v1', group: 'authentication.k8s.io', kind: 'TokenRequest' };
  }
  return undefined;
}
