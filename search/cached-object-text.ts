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
import { flatString } from './flat-string.js';
import { CACHED_TEXT_HEAD, resourceVersionEnd, type CachedObject } from './cached-object.js';

/** The annotation naming the member cluster an answer's object came from (Karmada's `CacheSourceAnnotationKey`). */
export const CACHE_SOURCE_ANNOTATION = 'resource.karmada.io/cached-from-cluster';

/** What every object of a store shares: `kind` and `apiVersion`. */
export interface TypeMeta {
  readonly kind: string;
  readonly apiVersion: string;
}

const ANNOTATIONS = ',"annotations":{';

/** The cached text of an object as a cluster sent it, in the layout above. */
export function cachedText(raw: Json): string {
  return cachedTextParts(raw).text;
}

/**
 * `cachedText`, with how long its members after `metadata` are: the text ends with them and its
 * closing brace (`{"metadata":{…},"roleRef":…,"subjects":[…]}`).
 */
export function cachedTextParts(
  raw: Json,
  { withoutHeld = false }: { withoutHeld?: boolean } = {},
): { text: string; bodyLength: number } {
  const {
    metadata = {},
    kind: _kind,
    apiVersion: _apiVersion,
    ...body
  } = raw as { metadata?: Json; kind?: unknown; apiVersion?: unknown };
  // The annotation is the cache's to set; a copy from the cluster would be answered twice.
  const { resourceVersion, annotations, ...others } = metadata;
  // A text only parsedObject reads (cached-object-informers.ts) leaves out what its CachedObject holds.
  const meta = withoutHeld ? withoutHeldMembers(others) : others;
  const { [CACHE_SOURCE_ANNOTATION]: _source, ...ownAnnotations } = (annotations ?? {}) as Record<string, string>;
  const version = typeof resourceVersion === 'string' ? resourceVersion : '';
  const kept = Object.keys(ownAnnotations).length > 0 ? { annotations: ownAnnotations } : {};
  // Written in two parts, the bytes JSON.stringify gives the whole: the body's length is then known.
  const members = JSON.stringify(body).slice(1, -1);
  const metaText = JSON.stringify({ resourceVersion: version, ...kept, ...meta });
  return {
    text: flatString(`{"metadata":${metaText}${members === '' ? '' : `,${members}`}}`),
    bodyLength: members.length,
  };
}

/** Metadata less name, namespace and labels: the members a CachedObject holds as fields of its own. */
function withoutHeldMembers(metadata: Json): Json {
  const { name: _name, namespace: _namespace, labels: _labels, ...rest } = metadata;
  return rest;
}

/** The object as its cluster answers it: the cached text with its kind and apiVersion in front. */
export function objectText(object: Pick<CachedObject, 'text'>, type: TypeMeta): string {
  return withTypeMeta(type, object.text);
}

/** The object's text as a search answer gives it: `resourceVersion` set, and its cluster's annotation added. */
export function answerText(
  object: Pick<CachedObject, 'text'>,
  type: TypeMeta,
  cluster: string,
  resourceVersion: string,
): string {
  const source = `${JSON.stringify(CACHE_SOURCE_ANNOTATION)}:${JSON.stringify(cluster)}`;
  const { text } = object;
  const end = resourceVersionEnd(text);
  if (end >= 0) {
    // Pieces joined to slices of the cached text, never sliced again: V8 then copies nothing until
    // the answer is written (slicing a joined string would copy it whole).
    const versioned = answerHead(type) + JSON.stringify(resourceVersion) + ANNOTATIONS + source;
    if (text.startsWith(ANNOTATIONS, end)) {
      const own = end + ANNOTATIONS.length;
      return versioned + (text.startsWith('}', own) ? '' : ',') + text.slice(own);
    }
    return `${versioned}}${text.slice(end)}`;
  }
  const parsed = JSON.parse(object.text) as Json;
  parsed.metadata ??= {};
  parsed.metadata.resourceVersion = resourceVersion;
  parsed.metadata.annotations = { ...parsed.metadata.annotations, [CACHE_SOURCE_ANNOTATION]: cluster };
  return withTypeMeta(type, JSON.stringify(parsed));
}

/** An object's text without its type (cached, or converted for a tenant) with `kind` and `apiVersion` put in front. */
export function withTypeMeta(type: TypeMeta, text: string): string {
  const members = typeMembers(type);
  return text === '{}' ? `{${members}}` : `{${members},${text.slice(1)}`;
}

const heads = new WeakMap<TypeMeta, string>();

/** An answer's start up to its resourceVersion's value: `{"kind":…,"apiVersion":…,"metadata":{"resourceVersion":`. */
function answerHead(type: TypeMeta): string {
  let head = heads.get(type);
  if (head === undefined) heads.set(type, (head = `{${typeMembers(type)},${CACHED_TEXT_HEAD.slice(1)}`));
  return head;
}

function typeMembers(type: TypeMeta): string {
  return `"kind":${JSON.stringify(type.kind)},"apiVersion":${JSON.stringify(type.apiVersion)}`;
}
