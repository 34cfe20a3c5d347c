/**
 * Owner references written directly upstream to another tenant's uid are made harmless
 * (docs/isolation.md, "Owner references stay inside the tenant"). The gateway refuses them on its
 * own write paths, but a tenant's token works against the cluster too, and there a dependent
 * with `blockOwnerDeletion` and a finalizer naming another tenant's uid holds that tenant's
 * foreground deletions: the garbage collector counts blocking dependents by uid. The collector
 * reports each such reference with a Warning event `OwnerRefInvalidNamespace` on the dependent;
 * this controller follows those events, and nothing else, on every cluster, and drops from each
 * dependent in a tenant's namespace the references that name no object where the collector looks
 * (tenants/owner-reference-heal.ts). The owner's deletion, waiting on the dependent, then goes on.
 *
 * Run by one elected replica. Per cluster one informer lists and watches the events of that
 * reason (informer/shared-informer.ts: relists when its watch cannot resume); an event added or
 * updated (the collector reports again when it sees the reference again) has its dependent
 * healed, one at a time. A heal that fails is tried again, later each time, while leading.
 */
import type { RestClient } from '../apiserver/client/rest-client.js';
import { isObject, type Json } from '../apiserver/json.js';
import { RestListWatcher } from '../informer/rest-list-watcher.js';
import { SharedInformer } from '../informer/shared-informer.js';
import { ElectedRunner } from '../store/elected-runner.js';
import type { Store } from '../store/index.js';
import type { UpstreamCluster } from '../clusters/upstream-clusters.js';
import { namespaceTenantId } from '../translate/context.js';
import { errorMessage, logger } from '../log/log.js';
import { healOwnerReferences, type InvolvedObject } from './owner-reference-heal.js';

export interface OwnerReferenceHealerOptions {
  store: Store;
  /** The registered clusters (the gateway's cluster roster), with the gateway's own clients. */
  clusters: () => readonly UpstreamCluster[];
  /** Calls the listener whenever a cluster is registered, changed or removed; returns how to stop. */
  onClustersChange: (listener: () => void) => () => void;
  /** Whether a tenant of this id exists: only tenants' namespaces are healed, never the admin's. */
  isTenant: (tenantId: string) => boolean;
  identity: string;
  electionTtlSeconds: number;
}

/** The events kube's garbage collector (and the devcluster's) records on a dependent naming an object of another namespace. */
const INVALID_NAMESPACE_REASON = 'OwnerRefInvalidNamespace';

const ELECTION = 'owner-reference-healer';
const log = logger('owner reference healer');
/** A failed heal is tried again after this, doubled each time up to the cap. */
const RETRY_FIRST_MS = 1_000;
const RETRY_CAP_MS = 30_000;
/** A heal the cluster has not finished by then fails (and is retried): one hung cluster must not hold the others' heals. */
const HEAL_TIMEOUT_MS = 30_000;

interface Heal {
  cluster: string;
  client: RestClient;
  involved: InvolvedObject;
}

export class OwnerReferenceHealer {
  private readonly runner: ElectedRunner;

  constructor(private readonly options: OwnerReferenceHealerOptions) {
    this.runner = new ElectedRunner({
      store: options.store,
      election: ELECTION,
      identity: options.identity,
      ttlSeconds: options.electionTtlSeconds,
      name: 'owner reference healer',
      lead: (leading) => this.lead(leading),
    });
  }

  start(): void {
    this.runner.start();
  }

  stop(): Promise<void> {
    return this.runner.stop();
  }

  private async lead(leading: AbortSignal): Promise<void> {
    // One informer per cluster, started as clusters are registered and stopped when they go (or their client changes).
    const informers = new Map<string, { client: RestClient; events: SharedInformer<Json> }>();
    // A heal for a cluster gone, or reached by another client now, is dropped: the new informer tells its events anew.
    const queue = new HealQueue(leading, (heal) => informers.get(heal.cluster)?.client === heal.client);
    const followClusters = () => {
      const current = new Map(this.options.clusters().map((cluster) => [cluster.name, cluster.client]));
      for (const [name, followed] of informers)
        if (current.get(name) !== followed.client) {
          followed.events.stop();
          informers.delete(name);
        }
      for (const [name, client] of current)
        if (!informers.has(name)) {
          const events = this.invalidNamespaceEvents(client, (involved) =>
            queue.add({ cluster: name, client, involved }),
          );
          events.run();
          informers.set(name, { client, events });
        }
    };
    followClusters();
    const unfollow = this.options.onClustersChange(followClusters);
    await new Promise<void>((resolve) => {
      if (leading.aborted) return resolve();
      leading.addEventListener('abort', () => resolve(), { once: true });
    });
    unfollow();
    for (const { events } of informers.values()) events.stop();
    await queue.stopped();
  }

  /** The cluster's `OwnerRefInvalidNamespace` events, each added or updated one telling of its dependent in a tenant's namespace. */
  private invalidNamespaceEvents(client: RestClient, heal: (involved: InvolvedObject) => void): SharedInformer<Json> {
    const events = new SharedInformer<Json>(
      new RestListWatcher(client, {
        groupVersionPath: '/api/v1',
        resource: 'events',
        fieldSelector: `reason=${INVALID_NAMESPACE_REASON}`,
      }),
      {
        name: 'owner reference healer: events',
        // The informer keeps what a heal reads of each event, not its message and history.
        transform: (event) => ({
          metadata: {
            namespace: event.metadata?.namespace,
            name: event.metadata?.name,
            resourceVersion: event.metadata?.resourceVersion,
          },
          involvedObject: event.involvedObject,
        }),
      },
    );
    const tell = (event: Json) => {
      const involved = involvedObjectOf(event);
      const tenantId = involved && namespaceTenantId(involved.namespace);
      if (involved && tenantId && this.options.isTenant(tenantId)) heal(involved);
    };
    events.addEventHandler({ onAdd: tell, onUpdate: (_, event) => tell(event) });
    return events;
  }
}

function involvedObjectOf(event: Json): InvolvedObject | undefined {
  const involved: unknown = event.involvedObject;
  if (!isObject(involved)) return undefined;
  const { apiVersion, kind, namespace, name } = involved;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || typeof name !== 'string') return undefined;
  if (typeof namespace !== 'string' || namespace === '') return undefined;
  return { apiVersion, kind, namespace, name };
}

/** The dependents to heal, one at a time, each once however often it is told; failures come back later. */
class HealQueue {
  private readonly pending = new Map<string, Heal>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private running: Promise<void> | undefined;

  constructor(
    private readonly leading: AbortSignal,
    /** Whether the heal's cluster is still followed with the heal's client. */
    private readonly followed: (heal: Heal) => boolean,
  ) {
    leading.addEventListener(
      'abort',
      () => {
        for (const timer of this.timers) clearTimeout(timer);
        this.timers.clear();
        this.pending.clear();
      },
      { once: true },
    );
  }

  add(heal: Heal): void {
    if (this.leading.aborted) return;
    const { cluster, involved } = heal;
    this.pending.set(`${cluster}/${involved.apiVersion}/${involved.kind}/${involved.namespace}/${involved.name}`, heal);
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  /** Resolves when the heal under way (if any) has ended. */
  async stopped(): Promise<void> {
    await this.running;
  }

  private async drain(): Promise<void> {
    for (let next = this.take(); next && !this.leading.aborted; next = this.take()) {
      const [key, heal] = next;
      if (!this.followed(heal)) {
        this.failures.delete(key);
        continue;
      }
      const { cluster, involved } = heal;
      const what = `${involved.kind} ${involved.namespace}/${involved.name} on ${cluster}`;
      try {
        const signal = AbortSignal.any([this.leading, AbortSignal.timeout(HEAL_TIMEOUT_MS)]);
        const dropped = await healOwnerReferences(heal.client, involved, signal);
        this.failures.delete(key);
        if (dropped.length === 0) continue;
        const refs = dropped.map((ref) => `${String(ref.kind)}/${String(ref.name)} (uid ${String(ref.uid)})`);
        log.info(`${what}: dropped owner references naming no object it can have: ${refs.join(', ')}`, {
          cluster,
          namespace: involved.namespace,
          kind: involved.kind,
          name: involved.name,
          dropped: refs,
        });
      } catch (err) {
        if (this.leading.aborted) return;
        const failures = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, failures);
        const delay = Math.min(RETRY_CAP_MS, RETRY_FIRST_MS * 2 ** (failures - 1));
        log.warn(`${what}: healing failed, retrying in ${delay} ms`, { cluster, error: errorMessage(err) });
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.add(heal);
        }, delay);
        this.timers.add(timer);
      }
    }
  }

  private take(): [string, Heal] | undefined {
    const first = this.pending.entries().next();
    if (first.done) return undefined;
    this.pending.delete(first.value[0]);
    return first.value;
  }
}
