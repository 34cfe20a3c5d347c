/**
 * An object as the multi-cluster cache keeps it: its JSON text as the cluster sent it (without
 * `metadata.managedFields`), beside the few parsed values that keys, indexes and selectors read.
 * Keeping text rather than a parsed tree costs about the JSON's size, and a list is answered by
 * joining texts without serializing anything.
 */
export interface CachedObject {
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    resourceVersion: string;
    uid?: string;
  };
  /** The values of the resource's selectable fields (field selectors), by field path. */
  fields: Record<string, string>;
  /** The object's JSON, `managedFields` removed. */
  text: string;
}
