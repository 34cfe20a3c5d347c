/** The index of objects by namespace (client-go's `MetaNamespaceIndexFunc`); cluster-scoped ones under ''. */
import { namespaceOf, objectMeta } from './object-meta.js';

export const NAMESPACE_INDEX = 'namespace';

export function metaNamespaceIndexFunc(obj: unknown): string[] {
  return [namespaceOf(objectMeta(obj))];
}
