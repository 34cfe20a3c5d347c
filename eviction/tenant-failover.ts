/**
 * Moving one tenant off a cluster, as Karmada's graceful eviction moves a binding: an eviction
 * task in the Tenant's status (Karmada's GracefulEvictionTask shape), a new cluster chosen by
 * placement with the old one avoided, the tenant's space made there, its objects replayed from
 * the gateway's cache of the old cluster (tenant-replay.ts) through the checks of the tenant's
 * own writes (replay-admission.ts, replay-writes.ts), `status.cluster` switched (every
 * replica then routes the tenant there, and its open watches end with 410 so that clients list
 * again), and the old cluster purged by the purge mode:
 *
 * - Directly: as soon as the tenant is switched, whatever came of the replay;
 * - Gracefully: once the replay created everything, or after `--graceful-eviction-timeout`
 *   (10 min) — so what the new cluster refused is still on the old one for that long;
 * - Never: kept; the task stays, and keeps placement off that cluster for this tenant.
 *
 * A purge needs the old cluster to answer: a task waits, and `settle` (called every pass of the
 * taint manager) tries again, until it is done; then the task goes. Every step is idempotent, so
 * a step that failed, or a leader that changed, starts again from the stored task.
 */
import type { GenericRegistry } from '../apiserver/registry/generic-registry.js';
import { mutate } from '../apiserver/registry/object-mutation.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';
import { ApiError } from '../apiserver/status.js';
import type { ClusterResourceStore } from '../search/cluster-resource-store.js';
import { clusterReadyStatus } from '../clusters/cluster-resource.js';
import { placeTenant } from '../tenants/placement.js';
import type { UpstreamCluster } from '../clusters/upstream-clusters.js';
import { ensureTenantSpace, removeTenantSpaces, tenantSpaceObjects } from '../tenants/upstream-space.js';
import { forgetSpaceCluster, recordSpaceCluster } from '../tenants/tenant-space-clusters.js';
import type { Clock } from '../clusters/clock.js';
import type { Logger } from '../log/log.js';
import { tenantContext, tenantPrefix } from '../translate/context.js';
import { replayKindScope } from './replay-admission.js';
import { replayMessage, replayOnCluster } from './replay-writes.js';
import { replayPlan, type ReplaySource } from './tenant-replay.js';

export type PurgeMode = 'Directly' | 'Gracefully' | 'Never';

/** Karmada's GracefulEvictionTask, with what Paddock adds: where the tenant went, and whether all of it got there. */
export interface EvictionTask {
  fromCluster: string;
  purgeMode: PurgeMode;
  reason: string;
  message?: string;
  producer: string;
  creationTimestamp: string;
  /** Karmada's per-task grace period; absent: `--graceful-eviction-timeout`. */
  gracePeriodSeconds?: number | null;
  toCluster?: string;
  replayComplete?: boolean;
}

export const EVICTION_REASON_TAINT_UNTOLERATED = 'TaintUntolerated';
export const EVICTION_PRODUCER_TAINT_MANAGER = 'TaintManager';

export interface TenantFailoverOptions {
  /** The Tenant registry: tasks and the switch are written through its status subresource. */
  tenants: GenericRegistry;
  /** The clusters tenants can be placed on (the cluster roster). */
  clusters: () => readonly UpstreamCluster[];
  /** How many tenants live on each cluster: the load placement spreads. */
  load: () => ReadonlyMap<string, number>;
  /** What the cache holds (or last held) of a cluster (SearchCache.clusterStores). */
  cachedStores: (cluster: string) => readonly ClusterResourceStore[];
  /** `--no-execute-taint-eviction-purge-mode`, for tenants whose `spec.failover.purgeMode` is unset. */
  defaultPurgeMode: PurgeMode;
  gracefulEvictionTimeoutMs: number;
  clock: Clock;
  /** Progress, one entry per step that changes something. */
  log: Logger;
}

export class TenantFailover {
  constructor(private readonly options: TenantFailoverOptions) {}

  /** Moves the tenant off `from`; throws to be retried (no cluster to go to, a step that failed). */
  async evict(tenantId: string, from: string): Promise<void> {
    const tenant = await this.options.tenants.get('', tenantId);
    if (tenant.metadata.deletionTimestamp || tenant.status?.cluster !== from) return;
    const purgeMode = purgeModeOf(tenant, this.options.defaultPurgeMode);
    const tasked = await this.addTask(tenantId, {
      fromCluster: from,
      purgeMode,
      reason: EVICTION_REASON_TAINT_UNTOLERATED,
      producer: EVICTION_PRODUCER_TAINT_MANAGER,
      creationTimestamp: this.timestamp(),
    });
    const avoid = new Set(tasked);
    const target = placeTenant(this.options.clusters(), tenant.spec, this.options.load(), avoid);
    if (!target) throw new Error(`no Ready cluster the tenant tolerates and its affinity allows, besides ${from}`);
    // Recorded first: deleting the tenant purges every cluster recorded (tenants/tenant-space-clusters.ts).
    await recordSpaceCluster(this.options.tenants, tenantId, target.name);
    const api = target.podApi?.();
    await ensureTenantSpace(target.client, tenantId, api);
    // What making the space just made answers 409 to a replay: not sent (a third of a move's requests).
    const made = tenantSpaceObjects(tenantId, api);
    const steps = replayPlan(tenantId, this.sources(from, tenantId)).filter(
      (step) => !made.has(`${step.resource.resource}/${step.namespace}/${step.name}`),
    );
    const kinds = replayKindScope(
      tenantId,
      this.options.cachedStores(from).map((store) => store.resource),
    );
    // Pods and templates replayed are pointed at the gateway as the tenant's own writes are on the new cluster.
    const ctx = { ...tenantContext(tenantId, kinds), ...(api ? { podApi: api } : {}) };
    const outcome = await replayOnCluster(target.client, ctx, steps, this.options.clock, this.options.log);
    const replayComplete = outcome.refused.length === 0 && outcome.skipped.length === 0;
    await mutate(
      this.options.tenants,
      '',
      tenantId,
      (stored) => {
        if (stored.status?.cluster !== from) return false;
        stored.status = {
          ...stored.status,
          cluster: target.name,
          evictionTasks: tasksOf(stored).map((task) =>
            task.fromCluster === from
              ? {
                  ...task,
                  toCluster: target.name,
                  replayComplete,
                  message: replayMessage(outcome, target.name),
                }
              : task,
          ),
        };
        return true;
      },
      { subresource: 'status' },
    );
    // The purge follows in the taint manager's next pass (the switch is a change that starts one), beside the paced queue.
    this.options.log.info(
      `tenant ${tenantId}: moved from ${from} to ${target.name} (${outcome.replayed} of ${outcome.planned} objects replayed)`,
      { tenant: tenantId, from, to: target.name, replayed: outcome.replayed, objects: outcome.planned },
    );
  }

  /**
   * Purges the old clusters of the tenants' tasks that are due (by purge mode, once the tenant no
   * longer lives there and the old cluster is Ready again), one batch per cluster, and drops the
   * tasks whose purge is done.
   */
  async settle(tenantIds: readonly string[]): Promise<void> {
    const due = new Map<string, string[]>();
    for (const tenantId of tenantIds) {
      let tenant: ApiObject;
      try {
        tenant = await this.options.tenants.get('', tenantId);
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) continue;
        throw err;
      }
      for (const task of tasksOf(tenant)) {
        if (tenant.status?.cluster === task.fromCluster) continue;
        if (!purgeDue(task, this.options.clock.now(), this.options.gracefulEvictionTimeoutMs)) continue;
        due.set(task.fromCluster, [...(due.get(task.fromCluster) ?? []), tenantId]);
      }
    }
    for (const [from, tenants] of due) {
      const cluster = this.options.clusters().find((c) => c.name === from);
      // Not Ready: nothing would answer. Unregistered: nothing left to purge there.
      if (cluster && clusterReadyStatus(cluster.cluster) !== 'True') continue;
      const leftovers = cluster ? await removeTenantSpaces(cluster.client, tenants) : new Map<string, string[]>();
      for (const tenantId of tenants) {
        if ((leftovers.get(tenantId) ?? []).length > 0) continue;
        await this.dropTask(tenantId, from, cluster !== undefined);
      }
    }
  }

  /** Drops the task of `from`; `purged` (nothing of the tenant is left there) also forgets it as a space cluster. */
  private async dropTask(tenantId: string, from: string, purged: boolean): Promise<void> {
    let mode: string | undefined;
    await mutate(
      this.options.tenants,
      '',
      tenantId,
      (stored) => {
        const tasks = tasksOf(stored);
        mode = tasks.find((task) => task.fromCluster === from)?.purgeMode;
        const kept = tasks.filter((task) => task.fromCluster !== from);
        if (kept.length === tasks.length) return false;
        stored.status = { ...stored.status, evictionTasks: kept };
        if (purged && stored.status.cluster !== from) forgetSpaceCluster(stored, from);
        return true;
      },
      { subresource: 'status' },
    );
    // Another pass (or leader) may have dropped it first: said once, by whoever dropped it.
    if (mode !== undefined)
      this.options.log.info(`tenant ${tenantId}: purged from ${from} (${mode})`, {
        tenant: tenantId,
        cluster: from,
        purgeMode: mode,
      });
  }

  /**
   * A task per cluster left, as Karmada keeps one per evicted cluster: a repeated eviction finds it
   * there. Returns the clusters of the tenant's tasks, this one among them.
   */
  private async addTask(tenantId: string, task: EvictionTask): Promise<string[]> {
    let clusters = [task.fromCluster];
    await mutate(
      this.options.tenants,
      '',
      tenantId,
      (stored) => {
        const tasks = tasksOf(stored);
        clusters = [...new Set([...tasks.map((t) => t.fromCluster), task.fromCluster])];
        if (tasks.some((t) => t.fromCluster === task.fromCluster)) return false;
        stored.status = { ...stored.status, evictionTasks: [...tasks, task] };
        return true;
      },
      { subresource: 'status' },
    );
    return clusters;
  }

  /** The cached objects that may be the tenant's: a namespaced resource's or a Namespace's keys start with its prefix (a run of the key order), anything else is looked at whole. */
  private *sources(cluster: string, tenantId: string): Generator<ReplaySource> {
    for (const store of this.options.cachedStores(cluster)) {
      const { resource } = store;
      const byKey = resource.namespaced || (resource.group === '' && resource.resource === 'namespaces');
      const prefix = byKey ? tenantPrefix(tenantId).prefix : '';
      yield {
        resource,
        objects: (function* () {
          for (const [, object] of store.withKeyPrefix(prefix)) yield JSON.parse(object.text) as unknown;
        })(),
      };
    }
  }

  private timestamp(): string {
    return new Date(this.options.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
}

/**
 * Whether a task's old cluster is to be purged now — Karmada's graceful eviction controller's rule
 * for dropping a task (pkg/controllers/gracefuleviction): Directly at once; Gracefully once the
 * tenant runs whole on its new cluster (the replay created everything: Karmada's "every scheduled
 * cluster reports healthy") or once its grace period is over (the task's `gracePeriodSeconds`, else
 * `--graceful-eviction-timeout`); Never, never.
 */
export function purgeDue(task: EvictionTask, nowMs: number, gracefulEvictionTimeoutMs: number): boolean {
  switch (task.purgeMode) {
    case 'Directly':
      return true;
    case 'Gracefully': {
      const graceMs = task.gracePeriodSeconds != null ? task.gracePeriodSeconds * 1000 : gracefulEvictionTimeoutMs;
      return task.replayComplete === true || nowMs > Date.parse(task.creationTimestamp) + graceMs;
    }
    case 'Never':
      return false;
  }
}

export function tasksOf(tenant: ApiObject): EvictionTask[] {
  return Array.isArray(tenant.status?.evictionTasks) ? tenant.status.evictionTasks : [];
}

function purgeModeOf(tenant: ApiObject, fallback: PurgeMode): PurgeMode {
  const mode = tenant.spec?.failover?.purgeMode;
  return mode === 'Directly' || mode === 'Gracefully' || mode === 'Never' ? mode : fallback;
}
