import type { ApiServer } from '../../apiserver/api-server.js';
import type { ResourceCatalog } from '../../apiserver/catalog.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import type { Store } from '../../store/index.js';
import { NAMESPACE_FINALIZER } from '../strategies.js';
import { deleteQuietly } from '../../apiserver/registry/object-mutation.js';
import { WatchLoop } from '../../store/watch-loop.js';
import { detach } from '../../apiserver/process-faults.js';
import { errorMessage, logger } from '../../log/log.js';

const log = logger('namespace controller');

/**
 * Namespace deletion, as kube-controller-manager's namespace controller: a Terminating namespace
 * has everything in it deleted (every namespaced resource the server serves, custom ones too);
 * once nothing is left the `kubernetes` finalizer is dropped and the namespace is removed.
 * Objects held by their own finalizers keep it Terminating until they go.
 */
export class NamespaceController {
  private readonly loop: WatchLoop;
  private readonly busy = new Set<string>();
  private stopped = false;
  private readonly pending = new Set<string>();
  private resync: NodeJS.Timeout | undefined;

  constructor(
    private readonly api: ApiServer,
    private readonly catalog: ResourceCatalog,
    store: Store,
    private readonly retryMs = 500,
  ) {
    this.loop = new WatchLoop(
      store,
      '/registry/core/namespaces/',
      {
        onList: (items) => items.forEach((kv) => this.consider(JSON.parse(kv.value) as ApiObject)),
        onEvent: (event) => {
          if (event.type !== 'delete') this.consider(JSON.parse(event.value) as ApiObject);
        },
      },
      'namespace controller',
    );
  }

  async start(): Promise<void> {
    await this.loop.start();
    this.resync = setInterval(
      () => [...this.pending].forEach((name) => this.finalizeDetached(name)),
      this.retryMs,
    ).unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.resync);
    await this.loop.stop();
  }

  private consider(namespace: ApiObject): void {
    if (!namespace.metadata.deletionTimestamp) return;
    this.pending.add(namespace.metadata.name);
    this.finalizeDetached(namespace.metadata.name);
  }

  private finalizeDetached(name: string): void {
    detach(this.finalize(name), `namespace controller: finalizing ${name}`);
  }

  private async finalize(name: string): Promise<void> {
    if (this.busy.has(name)) return;
    this.busy.add(name);
    try {
      let remaining = 0;
      const seen = new Set<string>();
      for (const info of this.catalog.resources()) {
        if (!info.namespaced || seen.has(`${info.group}/${info.resource}`)) continue;
        seen.add(`${info.group}/${info.resource}`);
        const registry = this.api.registryFor(info);
        const { objects } = await registry.objects.list(name, {});
        for (const object of objects) await deleteQuietly(registry, name, object.metadata.name);
        if (objects.length) remaining += (await registry.objects.list(name, {})).objects.length;
      }
      if (remaining > 0) return;
      const namespaces = this.api.registryOf('', 'namespaces')!;
      const current = await namespaces.objects.get('', name).catch(() => null);
      if (!current) {
        this.pending.delete(name);
        return;
      }
      const finalizers: string[] = current.object.spec?.finalizers ?? [];
      if (finalizers.some((f) => f !== NAMESPACE_FINALIZER)) return;
      await namespaces.objects.delete('', name, current.revision);
      this.pending.delete(name);
    } catch (err) {
      if (!this.stopped) log.warn(`finalizing ${name}`, { namespace: name, error: errorMessage(err) });
    } finally {
      this.busy.delete(name);
    }
  }
}
