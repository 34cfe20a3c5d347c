/**
 * A cached object's text and how answers are made from it. The text is the object as its cluster
 * sent it, less what the store knows for every object of it (`kind`, `apiVersion`), laid out so
 * that what answers change sits at its start: `{"metadata":{"resourceVersion":…` and, when the
 * object has any, `,"annotations":{…`. Every answer puts the kind and apiVersion back in front
 * (kube-apiserver writes them on list items too), and the search answers' resourceVersion and
 * cluster annotation are set by joining strings, without parsing the object. Text in any other
 * layout is parsed and written again.
 *
 * `managedFields` are kept, as kube's watch cache keeps them: an answer from the cache is the
 * answer the cluster would give.
 */
import type { Json } from '../apiserver/json.js';
import type { CachedObject } from './cached-object.js';

/** The annotation naming the member cluster an answer's object came from (Karmada's `CacheSourceAnnotationKey`). */
export const CACHE_SOURCE_ANNOTATION = 'resource.karmada.io/cached-from-cluster';

/** What every object of a store shares: `kind` and `apiVersion`. */
export interface TypeMeta {
  readonly kind: string;
  readonly apiVersion: string;
}

const HEAD = '{"metadata":{"resourceVersion":';
const ANNOTATIONS = ',"annotations":{';

/** The cached text of an object as a cluster sent it, in the layout above. */
export function cachedText(raw: Json): string {
  const {
    metadata = {},
    kind: _kind,
    apiVersion: _apiVersion,
    ...body
  } = raw as { metadata?: Json; kind?: unknown; apiVersion?: unknown };
  // The annotation is the cache's to set; a copy from the cluster would be answered twice.
  const { resourceVersion, annotations, ...meta } = metadata;
  const { [CACHE_SOURCE_ANNOTATION]: _source, ...ownAnnotations } = (annotations ?? {}) as Record<string, string>;
  const version = typeof resourceVersion === 'string' ? resourceVersion : '';
  const kept = Object.keys(ownAnnotations).length > 0 ? { annotations: ownAnnotations } : {};
  return JSON.stringify({ metadata: { resourceVersion: version, ...kept, ...meta }, ...body });
}

/** The object as its cluster answers it: the cached text with its kind and apiVersion in front. */
export function objectText(object: CachedObject, type: TypeMeta): string {
  return withTypeMeta(type, object.text);
}

/** The object's text as a search answer gives it: `resourceVersion` set, and its cluster's annotation added. */
export function answerText(object: CachedObject, type: TypeMeta, cluster: string, resourceVersion: string): string {
  const head = HEAD + JSON.stringify(object.metadata.resourceVersion);
  const source = `${JSON.stringify(CACHE_SOURCE_ANNOTATION)}:${JSON.stringify(cluster)}`;
  if (object.text.startsWith(head)) {
    const rest = object.text.slice(head.length);
    const versioned = HEAD + JSON.stringify(resourceVersion) + ANNOTATIONS + source;
    if (rest.startsWith(ANNOTATIONS)) {
      const own = rest.slice(ANNOTATIONS.length);
      return withTypeMeta(type, versioned + (own.startsWith('}') ? '' : ',') + own);
    }
    return withTypeMeta(type, `${versioned}}${rest}`);
  }
  const parsed = JSON.parse(object.text) as Json;
  parsed.metadata ??= {};
  parsed.metadata.resourceVersion = resourceVersion;
  parsed.metadata.annotations = { ...parsed.metadata.annotations, [CACHE_SOURCE_ANNOTATION]: cluster };
  return withTypeMeta(type, JSON.stringify(parsed));
}

/** An object's text without its type (cached, or converted for a tenant) with `kind` and `apiVersion` put in front. */
export function withTypeMeta(type: TypeMeta, text: string): string {
  const members = `"kind":${JSON.stringify(type.kind)},"apiVersion":${JSON.stringify(type.apiVersion)}`;
  return text === '{}' ? `{${members}}` : `{${members},${text.slice(1)}`;
}
