import type { ApiServer } from '../../apiserver/api-server.js';
import type { ResourceCatalog } from '../../apiserver/catalog.js';
import type { RequestInfo } from '../../apiserver/request-info.js';
import { parseFieldSelector, type FieldSelector } from '../../apiserver/selectors/field-selector.js';

/**
 * Whether a request is `kubectl describe`'s list of the Events of one of the gateway's own objects
 * (a Tenant, a Cluster, a cluster Secret): core Events selected by the object's kind, name,
 * namespace and uid, where the uid is the gateway's object's. The gateway records no Event of its
 * objects, and the default cluster holds none of an object it does not have, so the answer is an
 * empty list given by the gateway: passed through, describe waited on the default cluster and, with
 * it down, retried for 10 s before it printed the object.
 */
export async function isOwnObjectEventList(
  info: RequestInfo,
  query: URLSearchParams,
  catalog: ResourceCatalog,
  api: ApiServer,
): Promise<boolean> {
  if (!info.isResourceRequest || info.verb !== 'list' || info.group !== '' || info.resource !== 'events') return false;
  const selector = fieldSelectorOf(query);
  const involved = (field: string) => selector?.requiresExactMatch(`involvedObject.${field}`);
  const [kind, name, uid, namespace = ''] = ['kind', 'name', 'uid', 'namespace'].map(involved);
  if (!kind || !name || !uid) return false;
  const resource = catalog
    .resources()
    .find((r) => r.kind === kind && r.namespaced === (namespace !== '') && r.verbs.includes('get'));
  if (!resource) return false;
  const object = await api
    .registryFor(resource)
    .get(namespace, name)
    .catch(() => undefined);
  return object?.metadata.uid === uid;
}

function fieldSelectorOf(query: URLSearchParams): FieldSelector | undefined {
  try {
    return parseFieldSelector(query.get('fieldSelector') ?? '');
  } catch {
    // Not describe's selector: the cluster answers it, and tells what is wrong with it.
    return undefined;
  }
}

/** An empty core EventList, as a list of Events matching nothing is answered. */
export function emptyEventList(): object {
  return { kind: 'EventList', apiVersion: 'v1', metadata: { resourceVersion: '' }, items: [] };
}
