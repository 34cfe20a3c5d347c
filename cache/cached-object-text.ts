/**
 * A cached object's text and how an answer changes it. The text is laid out so that the two
 * things every answer changes sit at its start: `{"metadata":{"resourceVersion":…,"annotations":{…`.
 * An answer then sets the resourceVersion and adds the annotation naming the object's cluster by
 * joining strings, without parsing the object. Text in any other layout (an object built elsewhere,
 * or one whose keys JSON cannot keep in that order) is parsed and written again.
 */
import type { Json } from '../apiserver/json.js';
import type { CachedObject } from './cached-object.js';

/** The annotation naming the member cluster an answer's object came from (Karmada's `CacheSourceAnnotationKey`). */
export const CACHE_SOURCE_ANNOTATION = 'resource.karmada.io/cached-from-cluster';

const HEAD = '{"metadata":{"resourceVersion":';
const ANNOTATIONS = ',"annotations":{';

/** The cached text of an object as a cluster sent it: managedFields left out, the layout above. */
export function cachedText(raw: Json): string {
  const { metadata = {}, ...body } = raw as { metadata?: Json };
  // The annotation is the cache's to set; a copy from the cluster would be answered twice.
  const { managedFields: _managedFields, resourceVersion, annotations, ...meta } = metadata;
  const { [CACHE_SOURCE_ANNOTATION]: _source, ...ownAnnotations } = (annotations ?? {}) as Record<string, string>;
  const version = typeof resourceVersion === 'string' ? resourceVersion : '';
  return JSON.stringify({ metadata: { resourceVersion: version, annotations: ownAnnotations, ...meta }, ...body });
}

/** The object's text as an answer gives it: `resourceVersion` set, and its cluster's annotation added. */
export function answerText(object: CachedObject, cluster: string, resourceVersion: string): string {
  const head = HEAD + JSON.stringify(object.metadata.resourceVersion) + ANNOTATIONS;
  const source = `${JSON.stringify(CACHE_SOURCE_ANNOTATION)}:${JSON.stringify(cluster)}`;
  if (object.text.startsWith(head)) {
    const rest = object.text.slice(head.length);
    return HEAD + JSON.stringify(resourceVersion) + ANNOTATIONS + source + (rest.startsWith('}') ? '' : ',') + rest;
  }
  const parsed = JSON.parse(object.text) as Json;
  parsed.metadata ??= {};
  parsed.metadata.resourceVersion = resourceVersion;
  parsed.metadata.annotations = { ...parsed.metadata.annotations, [CACHE_SOURCE_ANNOTATION]: cluster };
  return JSON.stringify(parsed);
}
