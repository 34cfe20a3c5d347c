/**
 * One dependent healed (translate/owner-reference-heal.ts decides): read it, look up the owner
 * each of its references names where the cluster's garbage collector would, and drop the
 * references that name no object there with a JSON patch that tests the resourceVersion read —
 * read again and decided again when the dependent changed meanwhile. As the gateway, whose
 * credentials reach every namespace and kind; a dependent gone is nothing to heal.
 */
import type { RestClient } from '../apiserver/client/rest-client.js';
import { isObject, type Json } from '../apiserver/json.js';
import { groupOfApiVersion, versionOfApiVersion } from '../apiserver/api-version.js';
import { statusError } from '../informer/rest-list-watcher.js';
import type { OwnerPlace, OwnerResource } from '../translate/owner-check.js';
import {
  collectorOwnerPlace,
  dropOwnerReferencesPatch,
  isOwnerReference,
  ownerReferencesOf,
  unresolvedOwnerReferences,
  type OwnerReferenceLookup,
} from '../translate/owner-reference-heal.js';

/** The object an event names (its `involvedObject`). */
export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/** A resource of a group version's discovery: what a reference's kind is served as. */
interface ServedResource extends OwnerResource {
  kind: string;
}

/** How often a dependent that keeps changing under the patch is read again before the heal gives up (and is retried later). */
const ATTEMPTS = 5;

/**
 * Drops the dependent's references that name no object where the collector looks; returns those
 * dropped (none: nothing written). `signal` aborts every request of the heal.
 */
export async function healOwnerReferences(
  client: RestClient,
  involved: InvolvedObject,
  signal: AbortSignal,
): Promise<Json[]> {
  const resources = new Map<string, Promise<ServedResource[] | undefined>>();
  const resourceOf = async (apiVersion: string, kind: string): Promise<OwnerResource | undefined> => {
    let served = resources.get(apiVersion);
    if (!served) resources.set(apiVersion, (served = servedResources(client, apiVersion, signal)));
    return (await served)?.find((resource) => resource.kind === kind);
  };
  const dependentResource = await resourceOf(involved.apiVersion, involved.kind);
  if (!dependentResource?.namespaced) return [];
  const path = objectPath({
    group: groupOfApiVersion(involved.apiVersion),
    version: versionOfApiVersion(involved.apiVersion),
    resource: dependentResource.resource,
    namespace: involved.namespace,
    name: involved.name,
  });
  for (let attempt = 1; ; attempt++) {
    const dependent = await get(client, path, signal);
    if (!dependent) return [];
    const refs = ownerReferencesOf(dependent);
    const lookups = await Promise.all(
      refs.map(async (ref): Promise<OwnerReferenceLookup | undefined> => {
        if (!isOwnerReference(ref)) return undefined;
        const resource = await resourceOf(ref.apiVersion, ref.kind);
        const place = collectorOwnerPlace(ref, involved.namespace, resource);
        return { resource, found: place ? await get(client, objectPath(place), signal) : undefined };
      }),
    );
    const drop = unresolvedOwnerReferences(refs, involved.namespace, lookups);
    if (drop.length === 0) return [];
    const res = await client.request(
      'PATCH',
      path,
      dropOwnerReferencesPatch(dependent, drop),
      { 'Content-Type': 'application/json-patch+json' },
      signal,
    );
    if (res.status === 200) return drop.map((index) => refs[index] as Json);
    if (res.status === 404) return [];
    // Changed since it was read: kube answers a failed `test` 422, a stale write 409.
    if ((res.status === 409 || res.status === 422) && attempt < ATTEMPTS) continue;
    throw statusError(res.status, res.text);
  }
}

/** The resources a group version serves (kind and scope); undefined when the cluster does not serve it. */
async function servedResources(
  client: RestClient,
  apiVersion: string,
  signal: AbortSignal,
): Promise<ServedResource[] | undefined> {
  const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const res = await client.request('GET', path, undefined, {}, signal);
  if (res.status === 404) return undefined;
  if (res.status !== 200 || !isObject(res.body)) throw statusError(res.status, res.text);
  const listed: unknown = res.body.resources;
  if (!Array.isArray(listed)) return [];
  return listed
    .filter(
      (r): r is { name: string; kind: string; namespaced: boolean } =>
        isObject(r) && typeof r.name === 'string' && !r.name.includes('/') && typeof r.kind === 'string',
    )
    .map((r) => ({ resource: r.name, namespaced: r.namespaced === true, kind: r.kind }));
}

function objectPath(place: OwnerPlace): string {
  const base = place.group ? `/apis/${place.group}/${place.version}` : `/api/${place.version}`;
  const scope = place.namespace ? `/namespaces/${encodeURIComponent(place.namespace)}` : '';
  return `${base}${scope}/${place.resource}/${encodeURIComponent(place.name)}`;
}

/**
 * One object, or undefined when there is none — a name no object can have is refused (400) rather
 * than not found. Any other answer is an error and the heal is retried: an owner the gateway may
 * not read (403) is not an absent one.
 */
async function get(client: RestClient, path: string, signal: AbortSignal): Promise<Json | undefined> {
  const res = await client.request('GET', path, undefined, {}, signal);
  if (res.status === 200 && isObject(res.body)) return res.body;
  if (res.status === 404 || res.status === 400) return undefined;
  throw statusError(res.status, res.text);
}
