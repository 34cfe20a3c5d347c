/**
 * Which resources tenants read from the cache (`serve --tenant-cache`): built-in, namespaced
 * resources named as kubectl names them (`pods`, `deployments.apps`). Custom resources are not
 * offered: their groups carry each tenant's prefix upstream, so every tenant's CRD is a resource
 * of its own.
 */
import { BUILTIN_RESOURCES } from '../../apiserver/resources/builtin.js';
import { isObject } from '../../apiserver/json.js';
import type { CacheResource } from '../../search/cluster-resource-store.js';
import { isTenantId } from '../../tenants/tenant-resource.js';

/**
 * The custom resource of a tenant's CRD (group `<tid>-…`), from the CRD as the cache holds it:
 * cached besides `--failover-resources` so that a tenant's custom objects are replayed after its
 * CRDs. At its storage version; undefined for an admin's own CRD (no tenant prefix) or one that is
 * not whole.
 */
export function tenantCustomResource(crd: unknown): CacheResource | undefined {
  if (!isObject(crd) || !isObject(crd.spec) || !isObject(crd.spec.names) || !Array.isArray(crd.spec.versions)) return;
  const { group, names, scope, versions } = crd.spec;
  const dash = typeof group === 'string' ? group.indexOf('-') : -1;
  if (dash < 0 || dash === group.length - 1 || !isTenantId(group.slice(0, dash))) return;
  const version = versions.find((v: unknown) => isObject(v) && v.storage === true) ?? versions[0];
  if (!isObject(version) || typeof version.name !== 'string') return;
  if (typeof names.plural !== 'string' || typeof names.kind !== 'string') return;
  return { group, version: version.name, resource: names.plural, kind: names.kind, namespaced: scope === 'Namespaced' };
}

/** The resources a `--tenant-cache` value names; '' names none. Throws a usage error for a name that is not one. */
export function parseTenantCache(value: string): CacheResource[] {
  return builtinResources(value, '--tenant-cache').map((resource) => {
    if (!resource.namespaced)
      throw new Error(
        `--tenant-cache: ${resource.resource} is cluster-scoped; only namespaced resources are cached for tenants`,
      );
    return resource;
  });
}

/** The resources a `--failover-resources` value names, cluster-scoped ones too. */
export function parseFailoverResources(value: string): CacheResource[] {
  return builtinResources(value, '--failover-resources');
}

function builtinResources(value: string, flag: string): CacheResource[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return [...new Set(names)].map((name) => {
    const dot = name.indexOf('.');
    const resource = dot < 0 ? name : name.slice(0, dot);
    const group = dot < 0 ? '' : name.slice(dot + 1);
    // The first version listed is the group's preferred one.
    const info = BUILTIN_RESOURCES.find((r) => r.resource === resource && r.group === group);
    if (!info)
      throw new Error(`${flag}: ${name} is not a built-in resource (write resource.group, e.g. deployments.apps)`);
    return { group, version: info.version, resource, kind: info.kind, namespaced: info.namespaced };
  });
}
