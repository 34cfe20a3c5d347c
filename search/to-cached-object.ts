/**
 * An object as a cluster sent it, turned into what the multi-cluster cache keeps (CachedObject):
 * its text without managedFields, and only the parsed values keys, indexes and selectors read.
 * The parsed object is dropped after this, so a cached object costs about its text.
 */
import type { Json } from '../apiserver/json.js';
import { selectableFields } from '../apiserver/selectors/selectable-fields.js';
import type { CachedObject } from './cached-object.js';
import { cachedText } from './cached-object-text.js';

/** The values of a resource's selectable fields for one object, as field selectors read them. */
export type SelectableFieldsOf = (object: Json) => Record<string, string>;

/** What the fields of a resource are: kube's selectable fields of that group and resource. */
export function selectableFieldsOf(group: string, resource: string, namespaced: boolean): SelectableFieldsOf {
  return (object) => selectableFields(group, resource, namespaced, object);
}

export function toCachedObject(raw: Json, fieldsOf: SelectableFieldsOf): CachedObject {
  const meta: Json = raw.metadata ?? {};
  const metadata: CachedObject['metadata'] = {
    name: typeof meta.name === 'string' ? meta.name : '',
    resourceVersion: typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '',
  };
  if (typeof meta.namespace === 'string' && meta.namespace !== '') metadata.namespace = meta.namespace;
  if (meta.labels && typeof meta.labels === 'object') metadata.labels = meta.labels;
  if (typeof meta.uid === 'string') metadata.uid = meta.uid;
  // A selector reads a missing field as "", and name and namespace are in metadata: neither is kept twice.
  const fields: Record<string, string> = {};
  for (const [path, value] of Object.entries(fieldsOf(raw)))
    if (value !== '' && path !== 'metadata.name' && path !== 'metadata.namespace') fields[path] = value;
  return { metadata, fields, text: cachedText(raw) };
}

/** The fields a field selector is matched against: the kept ones, with name and namespace. */
export function fieldsForSelector(object: CachedObject): Record<string, string> {
  return {
    ...object.fields,
    'metadata.name': object.metadata.name,
    'metadata.namespace': object.metadata.namespace ?? '',
  };
}
