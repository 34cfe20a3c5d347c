/**
 * The shape kube-controller-manager's serviceaccount controller and root CA publisher share: one
 * object of a fixed name kept in every namespace. The key is the namespace; a namespace that
 * appears or changes, and a change to (or the deletion of) that object, reconcile it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ApiServer } from '../../apiserver/api-server.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { ApiError } from '../../apiserver/status.js';
import type { Store } from '../../store/index.js';
import { AS_CONTROLLER } from './controller-manager.js';
import { ReconcileLoop } from './reconcile-loop.js';

export interface NamespaceObject {
  /** Names the loop in faults, as kube names the controller. */
  controller: string;
  resource: string;
  name: string;
  /** The object to create in a namespace that lacks it. */
  fresh(): ApiObject;
  /** What the object found should be made, or null when it is as it should be. */
  repair?(current: ApiObject): ApiObject | null;
}

export class NamespaceObjectLoop {
  private readonly loop: ReconcileLoop;

  constructor(
    private readonly api: ApiServer,
    store: Store,
    private readonly kept: NamespaceObject,
  ) {
    this.loop = new ReconcileLoop(
      store,
      kept.controller,
      [
        { prefix: '/registry/core/namespaces/', keysOf: (ns, deleted) => (deleted ? [] : [ns.metadata.name]) },
        {
          prefix: `/registry/core/${kept.resource}/`,
          named: kept.name,
          keysOf: (object) => [object.metadata.namespace ?? ''],
          withPrevious: false,
        },
      ],
      (namespace) => this.reconcile(namespace),
    );
  }

  /** Reconciles every namespace there is before following changes, so none lacks the object once started. */
  async start(): Promise<void> {
    const { objects } = await this.api.registryOf('', 'namespaces')!.objects.list('', {});
    for (const ns of objects) await this.reconcile(ns.metadata.name).catch(ignoreTerminating);
    await this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async reconcile(namespace: string): Promise<void> {
    const ns = await this.api.registryOf('', 'namespaces')!.find('', namespace);
    // Nothing is created in a namespace that is going away, as kube's controllers skip it.
    if (!ns || ns.metadata.deletionTimestamp || (ns.status?.phase ?? 'Active') !== 'Active') return;
    const registry = this.api.registryOf('', this.kept.resource)!;
    const current = await registry.find(namespace, this.kept.name);
    try {
      if (!current) {
        await registry.create(namespace, this.kept.fresh(), AS_CONTROLLER);
        return;
      }
      const repaired = this.kept.repair?.(current);
      if (repaired && !isDeepStrictEqual(repaired, current))
        await registry.update(namespace, this.kept.name, repaired, '', AS_CONTROLLER);
    } catch (err) {
      // Someone else wrote first (AlreadyExists, Conflict): the watch brings it and it is looked at again.
      if (!(err instanceof ApiError && err.code === 409)) throw err;
    }
  }
}

function ignoreTerminating(err: unknown): void {
  if (err instanceof ApiError && err.code === 403) return;
  throw err;
}
