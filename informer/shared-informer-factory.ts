/**
 * client-go's SharedInformerFactory, per cluster: one SharedInformer per resource (group, version,
 * resource; cluster-wide, no selector), made on the first request, run at once, and shared by
 * every consumer of that resource on that cluster. Consumers add handlers, sinks and indexes and
 * read the informer's indexer; they never hold copies of its objects. So one list and one watch
 * per cluster and resource reach the cluster, however many consumers there are.
 *
 * What an object is held as is the factory's creator's to say (`transform`, per resource): the
 * gateway holds the multi-cluster cache's text form, so the cache's stores keep the very objects
 * the informer holds. Objects are held trimmed (the creator says of what: the gateway leaves out
 * managedFields, which no controller reads) until a consumer that answers clients with them asks
 * for them `whole`; the informer then lists again and holds them whole from then on. An informer
 * whose last handler or sink goes is stopped and dropped (its objects with it); `stop` ends them
 * all when the cluster's connection goes.
 */
import type { Json } from '../apiserver/json.js';
import { detach } from '../apiserver/process-faults.js';
import type { KeyFunc } from './key-func.js';
import type { ListerWatcher } from './list-watcher.js';
import type { ReflectorOptions } from './reflector.js';
import { SharedInformer } from './shared-informer.js';

/** A resource of a cluster as the factory keys it. */
export interface InformerResource {
  readonly group: string;
  readonly version: string;
  /** The plural resource name, as in URLs: `pods`. */
  readonly resource: string;
  readonly namespaced: boolean;
}

export interface SharedInformerFactoryOptions<T> {
  /** The cluster, naming its informers in faults and logs. */
  cluster: string;
  /** Lists and watches one resource of the cluster, across namespaces and unfiltered. */
  listerWatcher(resource: InformerResource): ListerWatcher;
  /** What an object of `resource` is held as: `whole` as the cluster sent it, else trimmed for controllers. */
  transform(resource: InformerResource, whole: boolean): (obj: Json) => T;
  /** Reflector settings besides the name and transform (page size, timeouts, backoff). */
  reflector?: Partial<Omit<ReflectorOptions<T>, 'name' | 'transform'>>;
  /** The informers' key function, when an object knows its own key (metaNamespaceKeyFunc otherwise). */
  keyFunc?: KeyFunc<T>;
}

/** `<group>/<version>/<resource>`. */
function informerKey({ group, version, resource }: InformerResource): string {
  return `${group}/${version}/${resource}`;
}

/** `/api/v1`, or `/apis/<group>/<version>`: where a resource's collection is served. */
export function groupVersionPath({ group, version }: Pick<InformerResource, 'group' | 'version'>): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

export class SharedInformerFactory<T extends NonNullable<unknown>> {
  private readonly informers = new Map<string, SharedInformer<T>>();
  /** The informers holding objects whole. */
  private readonly whole = new Set<string>();
  private stopped = false;

  constructor(private readonly options: SharedInformerFactoryOptions<T>) {}

  get cluster(): string {
    return this.options.cluster;
  }

  /**
   * The informer of `resource`, made and run on the first request. After `stop`, a stopped one (it
   * never lists). `whole`: the consumer answers clients with the objects, so they are held whole.
   */
  informerFor(resource: InformerResource, { whole = false }: { whole?: boolean } = {}): SharedInformer<T> {
    const key = informerKey(resource);
    const known = this.informers.get(key);
    if (known) {
      if (whole && !this.whole.has(key)) {
        this.whole.add(key);
        detach(
          known.retransform(this.options.transform(resource, true)),
          `${this.options.cluster} ${resource.resource}: held whole`,
        );
      }
      return known;
    }
    const informer: SharedInformer<T> = new SharedInformer<T>(this.options.listerWatcher(resource), {
      ...this.options.reflector,
      name: `${this.options.cluster} ${resource.resource}.${resource.group || 'core'}`,
      transform: this.options.transform(resource, whole),
      ...(this.options.keyFunc ? { keyFunc: this.options.keyFunc } : {}),
      onIdle: () => {
        if (this.informers.get(key) !== informer) return;
        this.informers.delete(key);
        this.whole.delete(key);
        informer.stop();
      },
    });
    if (this.stopped) {
      informer.stop();
      return informer;
    }
    this.informers.set(key, informer);
    if (whole) this.whole.add(key);
    informer.run();
    return informer;
  }

  /** The resources with an informer now, as `<group>/<version>/<resource>`. */
  resources(): string[] {
    return [...this.informers.keys()];
  }

  /** Stops every informer: the cluster's connection is gone. */
  stop(): void {
    this.stopped = true;
    for (const informer of this.informers.values()) informer.stop();
    this.informers.clear();
    this.whole.clear();
  }
}
