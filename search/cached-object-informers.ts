/**
 * A cluster's shared informers (informer/shared-informer-factory.ts) holding every object in the
 * multi-cluster cache's form (CachedObject: text, metadata and selectable fields), over the
 * gateway's own client. Every consumer of the cluster's resources (the cache's stores, the
 * namespace index, the RBAC change feed, the tenant spaces) reads these same objects: what needs
 * more than the metadata parses the text of the few objects it looks at. Only the cache's stores
 * answer clients with them, so only theirs are held with their managedFields (whole); the others
 * are held without, and without kubectl's last-applied record, their creationTimestamp and
 * generation, as client-go's controllers trim their informers' objects (a managedFields entry's
 * own pieces cost a held Namespace or RoleBinding about 120 bytes of its 700). Their texts also
 * leave out the name, namespace and labels, which the CachedObject holds anyway (about 110 bytes
 * of a tenant's Namespace); parsedObject, their one reader, puts them back.
 */
import type { RestClient } from '../apiserver/client/rest-client.js';
import { isObject, type Json } from '../apiserver/json.js';
import { RestListWatcher } from '../informer/rest-list-watcher.js';
import { groupVersionPath, SharedInformerFactory } from '../informer/shared-informer-factory.js';
import { dropManagedFields, type ReflectorOptions } from '../informer/reflector.js';
import { cachedObjectKey, type CachedObject } from './cached-object.js';
import { selectableFieldsOf, toCachedObject } from './to-cached-object.js';

export type CachedObjectInformers = SharedInformerFactory<CachedObject>;

export function cachedObjectInformers(
  cluster: string,
  client: RestClient,
  reflector?: Partial<Omit<ReflectorOptions<CachedObject>, 'name' | 'transform'>>,
): CachedObjectInformers {
  return new SharedInformerFactory<CachedObject>({
    cluster,
    listerWatcher: (resource) =>
      new RestListWatcher(client, { groupVersionPath: groupVersionPath(resource), resource: resource.resource }),
    transform: ({ group, resource, namespaced }, whole) => {
      const fieldsOf = selectableFieldsOf(group, resource, namespaced);
      if (whole) return (raw) => toCachedObject(raw, fieldsOf);
      const metadataOnly = group === '' && resource === 'namespaces';
      return (raw) => toCachedObject(trimmed(raw, metadataOnly), fieldsOf, { withoutHeld: true });
    },
    reflector,
    keyFunc: cachedObjectKey,
  });
}

/** kubectl's client-side apply record: a second copy of the object as its client last applied it. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * An object as the controllers read it: without its managedFields and the last-applied record
 * kubectl apply leaves (a tenant's Roles and RoleBindings, written with `kubectl apply`, would
 * hold themselves twice), its creationTimestamp and its generation (about 60 bytes of each of a
 * tenant's ten Namespaces, RoleBindings and ClusterRole); no controller reads any of them. The
 * uid stays: the RBAC change feed tells a deletion by it.
 */
function trimmed(raw: Json, metadataOnly: boolean): Json {
  // What the controllers read of a Namespace is its metadata (labels, deletionTimestamp): held as
  // that alone, as client-go's metadata informers hold PartialObjectMetadata (64 bytes of each).
  const object = metadataOnly ? { metadata: raw.metadata } : raw;
  const metadata = object.metadata;
  if (isObject(metadata)) {
    delete metadata.creationTimestamp;
    delete metadata.generation;
    const annotations = metadata.annotations;
    if (isObject(annotations) && LAST_APPLIED in annotations) {
      delete annotations[LAST_APPLIED];
      if (Object.keys(annotations).length === 0) delete metadata.annotations;
    }
  }
  return dropManagedFields(object);
}

/**
 * The object a cached object's text is, parsed (its kind and apiVersion are left out of the text),
 * with the name, namespace and labels a controller's text leaves out put back from the object.
 */
export function parsedObject(object: CachedObject): Json {
  const parsed = JSON.parse(object.text) as Json;
  const metadata: Json = (parsed.metadata ??= {});
  if (object.name !== '') metadata.name ??= object.name;
  if (object.namespace !== undefined) metadata.namespace ??= object.namespace;
  if (object.labels !== undefined) metadata.labels ??= { ...object.labels };
  return parsed;
}
