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
import { ClusterConditionCache } from './cluster-condition-cache.js';
import { probeCluster, type ClusterObservation } from './cluster-probe.js';
import { CLUSTER_READY } from './cluster-resource.js';
import type { ClusterRoster } from './cluster-roster.js';
import { taintsForReadiness } from './cluster-taints.js';
import { logger } from '../log/log.js';

export interface ClusterStatusControllerOptions {
  store: Store;
  /** The Cluster registry, written through its status subresource. */
  clusters: GenericRegistry;
  roster: ClusterRoster;
  /** How often every cluster is looked at (`--cluster-status-update-frequency`, default 10 s, as Karmada). */
  frequencyMs: number;
  identity: string;
  electionTtlSeconds: number;
  /** How long a cluster must answer healthy again before Ready turns True (`--cluster-success-threshold`, default 30 s). */
  successThresholdMs?: number;
  /** How long a cluster must fail before Ready turns False (`--cluster-failure-threshold`, default 30 s). */
  failureThresholdMs?: number;
  /** Not Ready this long adds the NoExecute taint of the same key (`--no-execute-taint-after`); undefined: never. */
  noExecuteTaintAfterMs?: number;
}

const ELECTION = 'cluster-status-controller';
const log = logger('cluster status controller');
/** How long a probe waits for an answer at least, however often clusters are probed: a slow cluster is not an unreachable one. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * Karmada's cluster status and cluster controllers in one, run by one elected replica: every
 * `frequencyMs` each registered cluster is probed (clusters/cluster-probe.ts) and its status
 * written — the Ready condition with Karmada's reasons once a flip has lasted its threshold
 * (cluster-condition-cache.ts), `kubernetesVersion` and `apiEnablements` — only when it changed;
 * then the taints its Ready condition asks for (cluster-taints.ts).
 */
export class ClusterStatusController {
  private readonly runner: ElectedRunner;
  private readonly conditions: ClusterConditionCache;

  constructor(private readonly options: ClusterStatusControllerOptions) {
    this.conditions = new ClusterConditionCache({
      successMs: options.successThresholdMs ?? 30_000,
      failureMs: options.failureThresholdMs ?? 30_000,
    });
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
    const clusters = this.options.roster.objects();
    this.conditions.retainOnly(new Set(clusters.map((cluster) => String(cluster.metadata.name))));
    await Promise.all(
      clusters.map((cluster) =>
        this.sync(cluster, signal).catch((err: Error) => {
          if (!signal.aborted)
            log.warn(String(cluster.metadata.name), { cluster: String(cluster.metadata.name), error: err.message });
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
    const now = new Date();
    await mutate(
      this.options.clusters,
      '',
      name,
      (stored) => {
        const current = stored.status ?? {};
        const conditions: ClusterCondition[] = Array.isArray(current.conditions) ? current.conditions : [];
        const ready = observation
          ? this.conditions.adjust(name, readyOf(conditions), readyCondition(observation), now.getTime())
          : undefined;
        const status = nextStatus(current, conditions, observation, ready, problem, now);
        if (JSON.stringify(status) === JSON.stringify(current)) return false;
        stored.status = status;
        return true;
      },
      { subresource: 'status' },
    );
    await mutate(this.options.clusters, '', name, (stored) => {
      const taints = Array.isArray(stored.spec?.taints) ? stored.spec.taints : [];
      const next = taintsForReadiness(
        taints,
        readyOf(stored.status?.conditions ?? []),
        now,
        this.options.noExecuteTaintAfterMs,
      );
      if (next === taints) return false;
      stored.spec = { ...stored.spec, taints: next };
      return true;
    });
  }
}

function readyOf(conditions: readonly ClusterCondition[]): ClusterCondition | undefined {
  return conditions.find((c) => c.type === CLUSTER_READY);
}

/**
 * The status an observation leads to, with `ready` as the thresholds let it be: only Ready when
 * the cluster is not healthy (what it runs is kept from before).
 */
function nextStatus(
  current: Record<string, any>,
  conditions: ClusterCondition[],
  observation: ClusterObservation | undefined,
  ready: ClusterCondition | undefined,
  problem: string | undefined,
  now: Date,
): Record<string, any> {
  if (!observation || !ready)
    return {
      ...current,
      conditions: setConditions(
        conditions,
        [collectionFailedCondition(problem ?? 'the cluster cannot be reached')],
        now,
      ),
    };
  const updates = [ready];
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
