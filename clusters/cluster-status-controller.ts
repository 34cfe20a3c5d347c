import type { GenericRegistry } from '../apiserver/registry/generic-registry.js';
import { mutate } from '../apiserver/registry/object-mutation.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';
import { ElectedRunner } from '../store/elected-runner.js';
import type { Store } from '../store/index.js';
import {
  apiEnablementsCondition,
  collectionFailedCondition,
  readyCondition,
  setConditions,
  type ClusterCondition,
} from './cluster-conditions.js';
import { probeCluster, type ClusterObservation } from './cluster-probe.js';
import type { ClusterRoster } from './cluster-roster.js';

export interface ClusterStatusControllerOptions {
  store: Store;
  /** The Cluster registry, written through its status subresource. */
  clusters: GenericRegistry;
  roster: ClusterRoster;
  /** How often every cluster is looked at (`--cluster-status-update-frequency`, default 10 s, as Karmada). */
  frequencyMs: number;
  identity: string;
  electionTtlSeconds: number;
}

const ELECTION = 'cluster-status-controller';
/** How long a probe waits for an answer at least, however often clusters are probed: a slow cluster is not an unreachable one. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * Karmada's cluster status controller, run by one elected replica: every `frequencyMs` each
 * registered cluster is probed (clusters/cluster-probe.ts) and its status written — the Ready
 * condition with Karmada's reasons, `kubernetesVersion` and `apiEnablements` — only when it
 * changed. Observations go straight into the condition; failure and success thresholds and the
 * taints they lead to belong between the two, in the eviction work still to come.
 */
export class ClusterStatusController {
  private readonly runner: ElectedRunner;

  constructor(private readonly options: ClusterStatusControllerOptions) {
    this.runner = new ElectedRunner({
      store: options.store,
      election: ELECTION,
      identity: options.identity,
      ttlSeconds: options.electionTtlSeconds,
      name: 'cluster status controller',
      lead: (leading) => this.lead(leading),
    });
  }

  start(): void {
    this.runner.start();
  }

  stop(): Promise<void> {
    return this.runner.stop();
  }

  /** Every cluster looked at each `frequencyMs`, and at once when one is registered or changed, until leadership ends. */
  private async lead(leading: AbortSignal): Promise<void> {
    let wake: (() => void) | undefined;
    const unfollow = this.options.roster.onChange(() => wake?.());
    leading.addEventListener('abort', () => wake?.(), { once: true });
    while (!leading.aborted) {
      await this.syncAll(leading);
      if (leading.aborted) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.frequencyMs);
        wake = () => (clearTimeout(timer), resolve());
      });
      wake = undefined;
    }
    unfollow();
  }

  private async syncAll(signal: AbortSignal): Promise<void> {
    await Promise.all(
      this.options.roster.objects().map((cluster) =>
        this.sync(cluster, signal).catch((err: Error) => {
          if (!signal.aborted)
            process.stderr.write(`cluster status controller: ${cluster.metadata.name}: ${err.message}\n`);
        }),
      ),
    );
  }

  private async sync(cluster: ApiObject, signal: AbortSignal): Promise<void> {
    const name = String(cluster.metadata.name);
    const member = this.options.roster.get(name);
    const problem = this.options.roster.problemOf(name);
    let observation: ClusterObservation | undefined;
    if (member)
      observation = await probeCluster(member.connection, Math.max(this.options.frequencyMs, PROBE_TIMEOUT_MS));
    if (signal.aborted) return;
    await mutate(
      this.options.clusters,
      '',
      name,
      (stored) => {
        const status = nextStatus(stored.status ?? {}, observation, problem, new Date());
        if (JSON.stringify(status) === JSON.stringify(stored.status ?? {})) return false;
        stored.status = status;
        return true;
      },
      { subresource: 'status' },
    );
  }
}

/** The status an observation leads to: only Ready when the cluster is not healthy (what it runs is kept from before). */
function nextStatus(
  current: Record<string, any>,
  observation: ClusterObservation | undefined,
  problem: string | undefined,
  now: Date,
): Record<string, any> {
  const conditions: ClusterCondition[] = Array.isArray(current.conditions) ? current.conditions : [];
  if (!observation)
    return {
      ...current,
      conditions: setConditions(
        conditions,
        [collectionFailedCondition(problem ?? 'the cluster cannot be reached')],
        now,
      ),
    };
  const updates = [readyCondition(observation)];
  const next: Record<string, any> = { ...current };
  if (observation.healthy) {
    if (observation.kubernetesVersion) next.kubernetesVersion = observation.kubernetesVersion;
    if (observation.apiEnablements) {
      next.apiEnablements = observation.apiEnablements.enablements;
      updates.unshift(
        apiEnablementsCondition(observation.apiEnablements.enablements.length, observation.apiEnablements.partial),
      );
    }
  }
  next.conditions = setConditions(conditions, updates, now);
  return next;
}
