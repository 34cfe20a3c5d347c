import type { Store } from '../../store/index.js';
import type { ListOptions } from '../handlers/list-options.js';
import { tooLargeResourceVersion } from '../status.js';
import type { GenericRegistry } from './generic-registry.js';
import type { ObjectFilter } from './object-filter.js';
import type { ApiObject } from './object-store.js';

export interface ObjectList {
  objects: ApiObject[];
  revision: number;
  continue?: string;
}

/**
 * A list as kube-apiserver serves it: at the revision that resourceVersion and
 * resourceVersionMatch ask for, filtered by selectors, and paged in *full* pages — when the
 * selectors drop objects the store is read further, so a page is short only at the end.
 */
export async function listObjects(
  store: Store,
  registry: GenericRegistry,
  namespace: string,
  filter: ObjectFilter,
  options: Pick<ListOptions, 'limit' | 'continue' | 'resourceVersion' | 'resourceVersionMatch'>,
): Promise<ObjectList> {
  const narrowedNamespace = filter.exactNamespace;
  if (narrowedNamespace !== undefined && namespace && narrowedNamespace !== namespace) {
    return { objects: [], revision: await store.currentRevision() };
  }
  const ns = namespace || narrowedNamespace || '';
  let revision: number | undefined;
  if (options.continue) {
    revision = undefined;
  } else if (options.resourceVersion && options.resourceVersion !== '0') {
    const requested = Number(options.resourceVersion);
    if (options.resourceVersionMatch === 'Exact') {
      revision = requested;
    } else {
      const current = await store.currentRevision();
      if (requested > current) throw tooLargeResourceVersion(requested, current);
    }
  }
  const objects: ApiObject[] = [];
  let token: string | undefined = options.continue || undefined;
  let readAt: number;
  for (;;) {
    const need = options.limit > 0 ? options.limit - objects.length : 0;
    const page = await registry.objects.list(ns, {
      limit: need,
      continue: token,
      revision,
      namePrefix: filter.exactName,
    });
    readAt = page.revision;
    revision = page.revision;
    for (const object of page.objects) {
      if (filter.exactName !== undefined && object.metadata.name !== filter.exactName) continue;
      if (filter.matches(object)) objects.push(registry.present(object));
    }
    token = page.continue;
    if (!token || (options.limit > 0 && objects.length >= options.limit)) break;
  }
  const list: ObjectList = { objects, revision: readAt };
  if (token) list.continue = token;
  return list;
}
