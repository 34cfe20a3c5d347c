/**
 * An object as the multi-cluster cache keeps it: its JSON text as the cluster sent it, beside the
 * few values that keys, indexes and selectors read. A million of them must fit in a gateway's
 * heap, so each holds little more than its text (BENCHMARKS.md, "The search cache"):
 *
 * - `metadata` is the object itself, not a second object: name, namespace and labels are fields
 *   of it, and `resourceVersion` and `uid` are read from the text when asked for (the text begins
 *   with the resourceVersion: cached-object-text.ts);
 * - the selectable fields' values are one JSON array text beside their names (shared by every
 *   object of a resource), made into a record only for a field selector;
 * - namespaces and label sets come from a pool of shared values (shared-values.ts), so objects
 *   of one namespace, or pods of one ReplicaSet, hold one copy;
 * - a long `data` or annotation value that other objects hold too (the cluster's CA bundle and
 *   its description in every namespace's `kube-root-ca.crt`) is held once, and so is the text of a
 *   `managedFields` entry on either side of its `time` (the entries of the namespaces and bindings
 *   the gateway makes differ only by their time): the text is kept as the pieces around such
 *   values (SplicedText), joined when it is read, so readers get every byte the cluster sent.
 *
 * Everything here is read-only: label sets are shared between objects.
 */

import { storeKey } from '../informer/key-func.js';

/** Every cached text begins with this, then its resourceVersion as a JSON string. */
export const CACHED_TEXT_HEAD = '{"metadata":{"resourceVersion":';

/** The metadata readers use: what the keys, indexes, selectors and watches of the cache read. */
export interface CachedMetadata {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly resourceVersion: string;
  readonly uid?: string;
}

const NO_FIELDS: Record<string, string> = Object.freeze({});

/**
 * A cached text as pieces joined when it is read: its own pieces around values many objects
 * share, `[own, shared, own, …, own]`. The first piece holds the resourceVersion (it comes first
 * in the text, before any annotation, `managedFields` or `data` value); each shared piece is a JSON
 * string literal or a `managedFields` entry's text before or after its time, one copy for every
 * object holding it.
 */
export type SplicedText = readonly string[];

export class CachedObject implements CachedMetadata {
  /**
   * Its store key (informer/key-func.ts), made once: the informer and the cache store that hold
   * it key it by this one string, where each made its own (about 56 bytes a namespaced object).
   */
  readonly key: string;

  constructor(
    /** The object's JSON, `kind` and `apiVersion` left out (cached-object-text.ts), whole or spliced. */
    private readonly body: string | SplicedText,
    readonly name: string,
    readonly namespace: string | undefined,
    readonly labels: Readonly<Record<string, string>> | undefined,
    /** The resource's selectable field paths, other than name and namespace; shared. */
    private readonly fieldPaths: readonly string[],
    /** Their values in that order as a JSON array text ('' for a missing one); undefined when all are missing. */
    private readonly fieldValues: string | undefined,
  ) {
    this.key = storeKey(namespace, name);
  }

  /** The object's metadata as readers use it: the object itself (see above). */
  get metadata(): CachedMetadata {
    return this;
  }

  /** The object's JSON, `kind` and `apiVersion` left out (cached-object-text.ts). */
  get text(): string {
    const body = this.body;
    return typeof body === 'string' ? body : body.join('');
  }

  get resourceVersion(): string {
    const body = this.body;
    const head = typeof body === 'string' ? body : body[0];
    const end = resourceVersionEnd(head);
    if (end < 0) return parsedMetadata(this.text).resourceVersion ?? '';
    const quoted = head.slice(CACHED_TEXT_HEAD.length, end);
    return quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
  }

  /** Read from the text: few readers ask for it. */
  get uid(): string | undefined {
    const uid = parsedMetadata(this.text).uid;
    return typeof uid === 'string' ? uid : undefined;
  }

  /** The values of the resource's selectable fields (field selectors) by field path; missing ones, name and namespace left out. */
  get fields(): Record<string, string> {
    if (this.fieldValues === undefined) return NO_FIELDS;
    const values = JSON.parse(this.fieldValues) as string[];
    const fields: Record<string, string> = {};
    this.fieldPaths.forEach((path, i) => {
      if (values[i] !== '') fields[path] = values[i];
    });
    return fields;
  }
}

/** The key function of every store of cached objects: the key each object made once. */
export function cachedObjectKey(object: CachedObject): string {
  return object.key;
}

/**
 * Where the resourceVersion of a text in the cached layout ends: the index just after its closing
 * quote. -1 for a text in another layout.
 */
export function resourceVersionEnd(text: string): number {
  if (!text.startsWith(CACHED_TEXT_HEAD) || text.charCodeAt(CACHED_TEXT_HEAD.length) !== QUOTE) return -1;
  for (let i = CACHED_TEXT_HEAD.length + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return -1;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function parsedMetadata(text: string): { resourceVersion?: string; uid?: unknown } {
  const parsed = JSON.parse(text) as { metadata?: { resourceVersion?: unknown; uid?: unknown } };
  const metadata = parsed.metadata ?? {};
  return {
    resourceVersion: typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : undefined,
    uid: metadata.uid,
  };
}
