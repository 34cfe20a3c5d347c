import { mutate, removeFinalizer } from '../apiserver/registry/object-mutation.js';
import type { GenericRegistry } from '../apiserver/registry/generic-registry.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';
import { ApiError } from '../apiserver/status.js';
import type { CertificateAuthority } from '../certs/index.js';
import { ElectedRunner } from '../store/elected-runner.js';
import { isStoreError, type Store } from '../store/index.js';
import { WatchLoop } from '../store/watch-loop.js';
import { clusterReadyStatus } from '../clusters/cluster-resource.js';
import { placeTenant } from './placement.js';
import { TenantsPerCluster } from './tenants-per-cluster.js';
import { ROTATE_ANNOTATION, TENANT_FINALIZER } from './tenant-resource.js';
import {
  CREDENTIALS_ANNOTATION,
  credentialsAnnotation,
  KUBECONFIG_ANNOTATION,
  storedCredentials,
} from './tenant-kubeconfig.js';
import { TENANTS_PREFIX } from './tenant-roster.js';
import type { UpstreamCluster } from '../clusters/upstream-clusters.js';
import { TenantSpaceInformers } from './tenant-space-informers.js';
import type { CachedObjectInformers } from '../search/cached-object-informers.js';
import { spaceClustersOf, withSpaceCluster } from './tenant-space-clusters.js';
import { ensureTenantSpace, healTenantSpaces, removeTenantSpace, tenantAdminUser } from './upstream-space.js';
import { detach } from '../apiserver/process-faults.js';
import { errorMessage, errorText, logger } from '../log/log.js';
import { syncKubernetesServices } from './kubernetes-service-sync.js';

/** A cluster tenants are placed on, and the shared informers the gateway keeps of it. */
export interface SpaceCluster extends UpstreamCluster {
  state: { informers: CachedObjectInformers };
}

export interface TenantControllerOptions {
  store: Store;
  /** The gateway's Tenant roster (reads and writes go through the store). */
  tenants: GenericRegistry;
  /**
   * The clusters tenants can be placed on right now (the gateway's cluster roster), each with the
   * shared informers the gateway keeps of it, through which the heal pass follows the tenants'
   * spaces.
   */
  clusters: () => readonly SpaceCluster[];
  /** Calls the listener whenever a cluster changes (its Ready condition, taints, labels); returns how to stop. */
  onClustersChange?: (listener: () => void) => () => void;
  ca: CertificateAuthority;
  keyAlgorithm: 'ecdsa' | 'rsa';
  certificateValidityDays: number;
  /** Who this replica is, in the election. */
  identity: string;
  electionTtlSeconds: number;
  /** How often a Terminating tenant is looked at again while its objects go away. */
  retryMs?: number;
  /** Tenants reconciled at the same time (default DEFAULT_TENANT_SYNCS). */
  concurrency?: number;
  /** How often every Active tenant's space upstream is healed (default 3 s). */
  healIntervalMs?: number;
}

const ELECTION = 'tenant-controller';

/**
 * A reconcile mostly waits: on the store's fsync, then on three rounds of upstream writes, each
 * behind the cluster's own. With 8 at a time, 32 tenants created at once left the machine 13%
 * idle and took 18.5 s for 3,000; with 32, 14.3 s (64: no faster), and less CPU a tenant, as
 * more writes share each fsync and each watch read (BENCHMARKS.md). kube-controller-manager's
 * `--concurrent-*-syncs` are 5-20 for controllers that do less waiting.
 */
const DEFAULT_TENANT_SYNCS = 32;
const log = logger('tenant controller');

/**
 * The tenant lifecycle, run by exactly one gateway replica (store election; the next leader
 * resumes whatever the last one left unfinished, since every step is idempotent):
 * - a new tenant is placed on a cluster (recorded in `status.spaceClusters` first), gets its
 *   namespaces and RBAC there, a certificate (serial recorded in status) and a kubeconfig
 *   (annotation), and turns Active;
 * - a rotation request (annotation) issues a new certificate and drops the old serials;
 * - a deleted tenant is Terminating at once (so its certificates stop working), its objects
 *   are removed from every cluster it holds or held part of its space on (a cluster that is
 *   down is waited for), progress is reported in a condition, and when nothing is left anywhere
 *   the finalizer goes and so does the Tenant.
 */
export class TenantController {
  private stopped = false;
  private readonly runner: ElectedRunner;
  /** Tenant → cluster, from the watch: the load that placement spreads. */
  private readonly placed = new TenantsPerCluster();
  /** The Active tenants, from the watch: whose spaces the heal pass looks after. */
  private readonly active = new Set<string>();
  /** Per cluster, the tenants whose space there is to be healed at the next pass. */
  private readonly toHeal = new Map<string, Set<string>>();
  /** Per cluster, the address its tenants' `kubernetes` Services were last made to name by this leader. */
  private readonly kubernetesServicesName = new Map<string, string>();
  /** Tenants not placed yet (no cluster qualified): looked at again whenever a cluster changes. */
  private readonly unplaced = new Set<string>();
  private readonly queue = new Set<string>();
  /** Tenants being reconciled now: each by one worker at a time. */
  private readonly busy = new Set<string>();
  private workers = 0;
  private readonly retryMs: number;

  constructor(private readonly options: TenantControllerOptions) {
    this.retryMs = options.retryMs ?? 300;
    this.runner = new ElectedRunner({
      store: options.store,
      election: ELECTION,
      identity: options.identity,
      ttlSeconds: options.electionTtlSeconds,
      name: 'tenant controller',
      lead: (leading) => this.lead(leading),
    });
  }

  start(): void {
    this.runner.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.runner.stop();
  }

  /** Follows the Tenants and heals their spaces until leadership ends. */
  private async lead(leading: AbortSignal): Promise<void> {
    const loop = new WatchLoop(
      this.options.store,
      TENANTS_PREFIX,
      {
        onList: (items) => {
          this.placed.clear();
          this.active.clear();
          this.unplaced.clear();
          for (const kv of items) this.enqueue(this.follow(JSON.parse(kv.value) as ApiObject));
        },
        onEvent: (event) => {
          const tenant = JSON.parse(event.value) as ApiObject;
          if (event.type === 'delete') {
            this.placed.delete(tenant.metadata.name);
            this.active.delete(tenant.metadata.name);
            this.unplaced.delete(tenant.metadata.name);
          } else this.enqueue(this.follow(tenant));
        },
      },
      'tenant controller',
    );
    await loop
      .start()
      .catch((err: unknown) => log.warn('first list failed', { error: errorMessage(err) }, errorMessage(err)));
    // A cluster turning Ready, losing a taint or gaining a label may be where a waiting tenant fits.
    const unfollowClusters = this.options.onClustersChange?.(() => {
      for (const name of this.unplaced) this.enqueue(name);
    });
    const healing = this.healWhileLeading(leading);
    await new Promise<void>((resolve) => {
      if (leading.aborted) return resolve();
      leading.addEventListener('abort', () => resolve(), { once: true });
    });
    unfollowClusters?.();
    await Promise.all([loop.stop(), healing]);
  }

  /** Records where the tenant lives, for placing the next ones, and whether it is Active; returns its name. */
  private follow(tenant: ApiObject): string {
    const cluster = tenant.status?.cluster;
    if (typeof cluster === 'string') {
      this.placed.set(tenant.metadata.name, cluster);
      // Turned Active, moved, or anything else: its space is looked at in the next heal pass.
      this.dirty(cluster).add(tenant.metadata.name);
    }
    if (tenant.status?.phase === 'Active' && !tenant.metadata.deletionTimestamp) this.active.add(tenant.metadata.name);
    else this.active.delete(tenant.metadata.name);
    if (typeof cluster !== 'string' && !tenant.metadata.deletionTimestamp) this.unplaced.add(tenant.metadata.name);
    else this.unplaced.delete(tenant.metadata.name);
    return tenant.metadata.name;
  }

  /**
   * The tenant's space heals: a tenant (or anyone) deleting its cluster-admin role or binding, or a
   * grant in one of its namespaces, has it back at once; any other change to what its space is made
   * of (an edited grant, a new namespace or binding, a live binding from before bindings were
   * dormant) is healed at the next pass, at most one interval later, as is a tenant that turned
   * Active or moved. Each cluster's spaces are followed by informers (tenant-space-informers.ts),
   * so a pass reads nothing from the cluster and looks only at the tenants something happened to.
   */
  private async healWhileLeading(signal: AbortSignal): Promise<void> {
    const interval = this.options.healIntervalMs ?? 3000;
    // Another leader may have made them name another address meanwhile.
    this.kubernetesServicesName.clear();
    let wake: (() => void) | undefined;
    let woken = false;
    const changed = (cluster: string) => (tenantId: string, deleted: boolean) => {
      this.dirty(cluster).add(tenantId);
      if (!deleted) return;
      woken = true;
      wake?.();
    };
    // Each cluster's tenant spaces, followed as clusters are registered and let go when they go (or their connection changes).
    const informers = new Map<string, { shared: CachedObjectInformers; spaces: TenantSpaceInformers }>();
    const followClusters = () => {
      const current = new Map(this.options.clusters().map((cluster) => [cluster.name, cluster.state.informers]));
      for (const [name, followed] of informers)
        if (current.get(name) !== followed.shared) {
          followed.spaces.stop();
          informers.delete(name);
        }
      for (const [name, shared] of current)
        if (!informers.has(name)) {
          const spaces = new TenantSpaceInformers(shared, changed(name));
          spaces.run();
          informers.set(name, { shared, spaces });
        }
    };
    signal.addEventListener('abort', () => wake?.(), { once: true });
    try {
      while (!signal.aborted && !this.stopped) {
        followClusters();
        await new Promise<void>((resolve) => {
          if (woken) return resolve();
          const timer = setTimeout(resolve, interval);
          wake = () => (clearTimeout(timer), resolve());
        });
        wake = undefined;
        woken = false;
        if (signal.aborted || this.stopped) return;
        await Promise.all(
          this.options.clusters().map(async (cluster) => {
            const spaces = informers.get(cluster.name)?.spaces;
            // A cluster that is not Ready would only time out, and a view behind its cluster could
            // undo what it has not seen: its tenants wait, still marked, until both are right.
            if (!spaces?.isCurrent() || clusterReadyStatus(cluster.cluster) !== 'True') return;
            const marked = this.dirty(cluster.name);
            const tenants = [...marked].filter(
              (name) => this.active.has(name) && this.placed.get(name) === cluster.name,
            );
            marked.clear();
            await this.syncKubernetesServices(cluster);
            if (!tenants.length) return;
            await healTenantSpaces(cluster.client, spaces, tenants, cluster.podApi?.()).catch((err: Error) => {
              for (const name of tenants) marked.add(name);
              log.warn(`healing on ${cluster.name}`, { cluster: cluster.name, error: err.message });
            });
          }),
        );
      }
    } finally {
      for (const { spaces } of informers.values()) spaces.stop();
    }
  }

  /**
   * When where the cluster's pods reach the gateway is not what this leader last made its tenants'
   * `kubernetes` Services name (or it made none yet), they are made to name it (kubernetes-service-sync.ts).
   */
  private async syncKubernetesServices(cluster: SpaceCluster): Promise<void> {
    const api = cluster.podApi?.();
    if (!api) return;
    const address = `${api.host}:${api.port}`;
    if (this.kubernetesServicesName.get(cluster.name) === address) return;
    const tenants = [...this.active].filter((name) => this.placed.get(name) === cluster.name);
    try {
      const writes = await syncKubernetesServices(cluster.client, tenants, api);
      this.kubernetesServicesName.set(cluster.name, address);
      if (writes)
        log.info(`the tenants' kubernetes Services on ${cluster.name} name ${address}`, {
          cluster: cluster.name,
          writes,
        });
    } catch (err) {
      log.warn(`updating the kubernetes Services on ${cluster.name}`, { cluster: cluster.name, error: errorText(err) });
    }
  }

  /** The tenants of a cluster to be healed at the next pass. */
  private dirty(cluster: string): Set<string> {
    let marked = this.toHeal.get(cluster);
    if (!marked) this.toHeal.set(cluster, (marked = new Set()));
    return marked;
  }

  private enqueue(name: string): void {
    this.queue.add(name);
    if (this.workers < (this.options.concurrency ?? DEFAULT_TENANT_SYNCS))
      detach(this.work(), 'tenant controller worker');
  }

  /** A worker: takes queued tenants no other worker holds, until none is left. */
  private async work(): Promise<void> {
    this.workers++;
    try {
      for (;;) {
        const name = this.nextQueued();
        if (name === undefined || !this.isLeader()) return;
        this.queue.delete(name);
        this.busy.add(name);
        const again = await this.reconcile(name).catch((err: Error) => {
          if (this.isLeader()) log.warn(name, { tenant: name, error: err.message });
          return true;
        });
        this.busy.delete(name);
        if (again && this.isLeader()) setTimeout(() => this.enqueue(name), this.retryMs).unref();
      }
    } finally {
      this.workers--;
      if (this.isLeader() && this.nextQueued() !== undefined) detach(this.work(), 'tenant controller worker');
    }
  }

  /**
   * The first queued tenant no worker holds: it passes over at most the busy ones, and copies
   * nothing (a relist queues every tenant, and each worker's take copied the whole queue).
   */
  private nextQueued(): string | undefined {
    for (const name of this.queue) if (!this.busy.has(name)) return name;
    return undefined;
  }

  private isLeader(): boolean {
    return this.runner.isLeader();
  }

  /** Returns true when the tenant needs another look later. */
  private async reconcile(name: string): Promise<boolean> {
    let stored;
    try {
      stored = await this.options.tenants.objects.get('', name);
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return false;
      throw err;
    }
    let { object: tenant, revision } = stored;
    if (tenant.metadata.deletionTimestamp) return this.finalize(tenant, revision);

    const status = { ...(tenant.status ?? {}) };
    const annotations = { ...(tenant.metadata.annotations ?? {}) };
    const rotation: string | undefined = annotations[ROTATE_ANNOTATION];
    const credentials = storedCredentials(annotations);
    // A kubeconfig an earlier version stored becomes the certificate and key it holds.
    const legacy = annotations[KUBECONFIG_ANNOTATION] !== undefined;
    if (legacy) {
      delete annotations[KUBECONFIG_ANNOTATION];
      if (credentials) annotations[CREDENTIALS_ANNOTATION] = credentialsAnnotation(credentials);
    }
    const needsCertificate =
      !status.certificateSerials?.length || !credentials || (rotation !== undefined && rotation !== status.rotation);
    const cluster = await this.clusterFor(tenant);
    if (status.phase === 'Active' && !needsCertificate && !legacy && cluster?.name === status.cluster) return false;
    if (!cluster) {
      return this.writeStatus(
        tenant,
        revision,
        { ...status, phase: 'Pending' },
        annotations,
        condition(
          'Ready',
          'False',
          'NoCluster',
          "no Ready cluster matches the tenant's clusterAffinity and has only taints its clusterTolerations tolerate",
        ),
      );
    }
    const recorded = withSpaceCluster(tenant, cluster.name);
    if (recorded) {
      // Recorded before anything is made there, so that a deletion from now on purges it too.
      status.spaceClusters = recorded;
      try {
        ({ object: tenant, revision } = await this.options.tenants.objects.update({ ...tenant, status }, revision));
      } catch (err) {
        if (isConflict(err)) return true;
        throw err;
      }
    }
    await ensureTenantSpace(cluster.client, name, cluster.podApi?.());
    if (needsCertificate) {
      const issued = await this.options.ca.issueClientCertificate({
        commonName: tenantAdminUser(name),
        organizationalUnits: [name],
        keyAlgorithm: this.options.keyAlgorithm,
        validityDays: this.options.certificateValidityDays,
      });
      status.certificateSerials = [issued.serial];
      if (rotation !== undefined) status.rotation = rotation;
      annotations[CREDENTIALS_ANNOTATION] = credentialsAnnotation(issued);
    }
    return this.writeStatus(
      tenant,
      revision,
      { ...status, phase: 'Active', cluster: cluster.name },
      annotations,
      condition('Ready', 'True', 'Active', `the tenant's space is ready on ${cluster.name}`),
    );
  }

  /** The tenant's cluster, or a new placement: the least loaded cluster its affinity allows. */
  private async clusterFor(tenant: ApiObject) {
    const clusters = this.options.clusters();
    const current = clusters.find((c) => c.name === tenant.status?.cluster);
    if (current) return current;
    // Counted from the watch, not listed from the store: with 10,000 tenants a list per creation
    // cost more than the rest of the creation.
    return placeTenant(clusters, tenant.spec, this.placed.load);
  }

  /**
   * Terminating: remove the tenant's objects from every cluster that holds or held part of its
   * space (`status.spaceClusters`), forgetting each once nothing is left there; a cluster that is
   * not Ready (or not registered) is waited for, and the Ready condition says which. When none is
   * left, the finalizer goes and so does the Tenant — not before: the id could be taken again, and
   * its new owner placed where the old one's objects, grants and ServiceAccounts still are.
   */
  private async finalize(tenant: ApiObject, revision: number): Promise<boolean> {
    if (!tenant.metadata.finalizers?.includes(TENANT_FINALIZER)) return false;
    const purges = await Promise.all(
      spaceClustersOf(tenant).map((name) => this.purgeSpace(name, tenant.metadata.name)),
    );
    const pending = purges.filter((why): why is { cluster: string; why: string } => why !== null);
    const again = await this.writeStatus(
      tenant,
      revision,
      { ...(tenant.status ?? {}), phase: 'Terminating', spaceClusters: pending.map((p) => p.cluster) },
      tenant.metadata.annotations ?? {},
      pending.length
        ? condition('Ready', 'False', 'Terminating', `waiting for ${pending.map((p) => p.why).join('; ')}`)
        : condition('Ready', 'False', 'Terminating', "the tenant's space is removed from every cluster"),
    );
    if (again || pending.length) return true;
    await mutate(this.options.tenants, '', tenant.metadata.name, (object) => removeFinalizer(object, TENANT_FINALIZER));
    return false;
  }

  /** Removes the tenant's space from one cluster; null once nothing is left, else what it waits for. */
  private async purgeSpace(name: string, tenantId: string): Promise<{ cluster: string; why: string } | null> {
    const cluster = this.options.clusters().find((c) => c.name === name);
    const waitFor = (why: string) => ({ cluster: name, why });
    if (!cluster) return waitFor(`${name} to be registered again, to remove the tenant's objects there`);
    if (clusterReadyStatus(cluster.cluster) !== 'True')
      return waitFor(`${name} to be Ready, to remove the tenant's objects there`);
    let leftovers: string[];
    try {
      leftovers = await removeTenantSpace(cluster.client, tenantId);
    } catch (err) {
      return waitFor(`${name} to answer, to remove the tenant's objects there: ${errorMessage(err)}`);
    }
    if (!leftovers.length) return null;
    const shown = leftovers.slice(0, 5).join(', ') + (leftovers.length > 5 ? ', …' : '');
    return waitFor(
      `${leftovers.length} object${leftovers.length === 1 ? '' : 's'} to be removed from ${name}: ${shown}`,
    );
  }

  /** One write of status and annotations, skipped when nothing changes; a conflict retries later. */
  private async writeStatus(
    tenant: ApiObject,
    revision: number,
    status: Record<string, any>,
    annotations: Record<string, string>,
    ready: Record<string, string>,
  ): Promise<boolean> {
    const previous = (tenant.status?.conditions ?? []).find((c: { type: string }) => c.type === ready.type);
    const sameCondition =
      previous &&
      previous.status === ready.status &&
      previous.reason === ready.reason &&
      previous.message === ready.message;
    status.conditions = [
      ...(tenant.status?.conditions ?? []).filter((c: { type: string }) => c.type !== ready.type),
      sameCondition ? previous : ready,
    ];
    const next = { ...tenant, metadata: { ...tenant.metadata, annotations }, status };
    if (JSON.stringify(next) === JSON.stringify(tenant)) return false;
    try {
      await this.options.tenants.objects.update(next, revision);
      return false;
    } catch (err) {
      if (isConflict(err)) return true;
      throw err;
    }
  }
}

function isConflict(err: unknown): boolean {
  return (err instanceof ApiError && err.code === 409) || isStoreError(err, 'Conflict');
}

function condition(type: string, status: string, reason: string, message: string): Record<string, string> {
  return { type, status, reason, message, lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') };
}
