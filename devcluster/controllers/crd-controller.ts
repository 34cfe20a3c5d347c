import type { ApiServer } from '../../apiserver/api-server.js';
import type { ResourceCatalog } from '../../apiserver/catalog.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { resourceInfoFromCRD } from '../../apiserver/resources/custom-resource.js';
import type { Store } from '../../store/index.js';
import { CRD_CLEANUP_FINALIZER } from '../strategies.js';
import { deleteQuietly, mutate, removeFinalizer } from '../../apiserver/registry/object-mutation.js';
import { WatchLoop } from '../../store/watch-loop.js';
import { detach } from '../../apiserver/process-faults.js';
import { errorMessage, logger } from '../../log/log.js';

const log = logger('CRD controller');

const CRD_PREFIX = '/registry/apiextensions.k8s.io/customresourcedefinitions/';

/**
 * Keeps the catalog in step with the stored CRDs (at start, and for writes made by another
 * process sharing the store), and carries out CRD deletion as kube-apiserver's
 * customresourcecleanup finalizer does: every object of the CRD is deleted, then the finalizer
 * is dropped and the CRD goes.
 */
export class CrdController {
  private readonly loop: WatchLoop;
  private readonly busy = new Set<string>();
  private stopped = false;

  constructor(
    private readonly api: ApiServer,
    private readonly catalog: ResourceCatalog,
    store: Store,
    private readonly onCrd: (crd: ApiObject, deleted: boolean) => void,
  ) {
    this.loop = new WatchLoop(
      store,
      CRD_PREFIX,
      {
        onList: (items) => items.forEach((kv) => this.observe(JSON.parse(kv.value) as ApiObject, false)),
        onEvent: (event) => this.observe(JSON.parse(event.value) as ApiObject, event.type === 'delete'),
      },
      'CRD controller',
    );
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.loop.stop();
  }

  private observe(crd: ApiObject, deleted: boolean): void {
    const terminating = Boolean(crd.metadata.deletionTimestamp);
    this.catalog.setCustom(crd.metadata.name, deleted || terminating ? [] : resourceInfoFromCRD(crd));
    this.onCrd(crd, deleted);
    if (terminating && !deleted) detach(this.cleanUp(crd), `crd controller: cleaning up ${crd.metadata.name}`);
  }

  /** Delete every object of a terminating CRD, then let the CRD go. */
  private async cleanUp(crd: ApiObject): Promise<void> {
    const name: string = crd.metadata.name;
    if (this.busy.has(name)) return;
    this.busy.add(name);
    try {
      const [info] = resourceInfoFromCRD(crd);
      if (info) {
        const registry = this.api.registryFor(info);
        for (;;) {
          const { objects } = await registry.objects.list('', {});
          if (objects.length === 0) break;
          for (const object of objects)
            await deleteQuietly(registry, object.metadata.namespace ?? '', object.metadata.name);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      const crds = this.api.registryOf('apiextensions.k8s.io', 'customresourcedefinitions')!;
      await mutate(crds, '', name, (object) => removeFinalizer(object, CRD_CLEANUP_FINALIZER));
    } catch (err) {
      if (!this.stopped) log.warn(`cleaning up ${name}`, { crd: name, error: errorMessage(err) });
    } finally {
      this.busy.delete(name);
    }
  }
}
