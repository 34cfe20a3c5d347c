import { detach } from '../apiserver/process-faults.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';
import type { KeyValue, Store, WatchEvent } from '../store/index.js';
import { WatchLoop } from '../store/watch-loop.js';
import { upgradeTarget, type UpgradeTarget } from './upgrade-target.js';
import type { UpstreamConnection } from './upstream-connection.js';
import type { UpstreamCluster } from './upstream-clusters.js';
import { clusterKubeconfig } from './cluster-credentials.js';
import { CLUSTER_SECRET_NAMESPACE, CLUSTER_SECRETS_PREFIX } from './cluster-secrets.js';
import { errorText, logger } from '../log/log.js';

const log = logger('cluster roster');

export const CLUSTERS_PREFIX = '/registry/cluster.karmada.io/clusters/';

/** Makes the connection to a cluster from its kubeconfig, with the replica's settings (timeout, seats, observers); throws when the credentials cannot be used. */
export type ConnectCluster = (name: string, kubeconfig: string) => UpstreamConnection;

/**
 * What the layers above clusters/ keep per cluster (the gateway's: its shared informers, namespace
 * index and authorizers, gateway/upstream/gateway-cluster-state.ts): made by the roster's `attach`
 * with each connection, and stopped before that connection closes.
 */
export interface ClusterState {
  stop(): void;
}

/** A registered cluster the gateway can reach: what placement, the tenant proxy, upgrades and the status controller use. */
export interface ClusterMember<S extends ClusterState = ClusterState> extends UpstreamCluster {
  connection: UpstreamConnection;
  /** What the layers above keep of the cluster, made with `connection` (ClusterState). */
  state: S;
  upgradeTarget: UpgradeTarget;
  provider?: string;
  region?: string;
  zones: string[];
  taints: { key: string; value?: string; effect: string }[];
  /** The kubeconfig the connections were built from: a new one (credentials changed) replaces them. */
  kubeconfig: string;
}

/**
 * Every replica's view of the clusters tenants live on: it follows the Cluster objects and the
 * Secrets of `karmada-cluster` in the store by watch (as the tenant roster follows Tenants) and
 * keeps, per reachable cluster, its connection (upstream-connection.ts, made by the `connect` it
 * is given, which sets it up with the replica's settings), REST client and upgrade target, and
 * the state the layers above keep of it, made by `attach` (ClusterState), so clusters/ imports
 * nothing above it. A cluster removed, or whose credentials changed, has its state stopped and its
 * connections closed (open watches and streams to it end); listeners hear of every cluster that
 * changed.
 */
export class ClusterRoster<S extends ClusterState = ClusterState> {
  private readonly clusters = new Map<string, ApiObject>();
  private readonly secrets = new Map<string, ApiObject>();
  private readonly members = new Map<string, ClusterMember<S>>();
  /** Why a Cluster has no connection (no endpoint, a missing Secret, unusable credentials). */
  private readonly problems = new Map<string, string>();
  private readonly listeners = new Set<(name: string) => void>();
  private readonly clusterLoop: WatchLoop;
  private readonly secretLoop: WatchLoop;

  constructor(
    store: Store,
    private readonly connect: ConnectCluster,
    private readonly attach: (connection: UpstreamConnection) => S,
  ) {
    this.secretLoop = new WatchLoop(
      store,
      CLUSTER_SECRETS_PREFIX,
      {
        onList: (items) => this.relist(this.secrets, items, (secret) => this.clustersUsing(secret)),
        onEvent: (event) => this.apply(this.secrets, event, (secret) => this.clustersUsing(secret)),
      },
      'cluster roster (secrets)',
    );
    this.clusterLoop = new WatchLoop(
      store,
      CLUSTERS_PREFIX,
      {
        onList: (items) => this.relist(this.clusters, items, (cluster) => [cluster.metadata.name]),
        onEvent: (event) => this.apply(this.clusters, event, (cluster) => [cluster.metadata.name]),
      },
      'cluster roster',
    );
  }

  /** Resolves once every Cluster and Secret in the store is known. */
  async start(): Promise<void> {
    await this.secretLoop.start();
    await this.clusterLoop.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.clusterLoop.stop(), this.secretLoop.stop()]);
    // Stopping: whatever is still open to a cluster is cut rather than waited for.
    await Promise.all(
      [...this.members.values()].map((m) => {
        m.state.stop();
        return m.connection.destroy();
      }),
    );
    this.members.clear();
  }

  /** The reachable clusters, by name. */
  list(): ClusterMember<S>[] {
    return [...this.members.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): ClusterMember<S> | undefined {
    return this.members.get(name);
  }

  /** Every Cluster object, reachable or not (the status controller reports why one is not). */
  objects(): ApiObject[] {
    return [...this.clusters.values()];
  }

  /** Why a registered cluster has no connection, or undefined when it has one (or is not registered). */
  problemOf(name: string): string | undefined {
    return this.problems.get(name);
  }

  /** Calls `listener` with a cluster's name after each change to it (added, changed, removed); returns how to stop. */
  onChange(listener: (name: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private relist(into: Map<string, ApiObject>, items: KeyValue[], affected: (object: ApiObject) => string[]): void {
    const changed = new Set<string>();
    for (const object of into.values()) affected(object).forEach((name) => changed.add(name));
    into.clear();
    for (const kv of items) {
      const object = JSON.parse(kv.value) as ApiObject;
      into.set(object.metadata.name, object);
      affected(object).forEach((name) => changed.add(name));
    }
    for (const name of changed) this.reconcile(name);
  }

  private apply(into: Map<string, ApiObject>, event: WatchEvent, affected: (object: ApiObject) => string[]): void {
    const object = JSON.parse(event.value) as ApiObject;
    if (event.type === 'delete') into.delete(object.metadata.name);
    else into.set(object.metadata.name, object);
    for (const name of affected(object)) this.reconcile(name);
  }

  private clustersUsing(secret: ApiObject): string[] {
    return [...this.clusters.values()]
      .filter(
        (c) =>
          c.spec?.secretRef?.namespace === CLUSTER_SECRET_NAMESPACE && c.spec.secretRef.name === secret.metadata.name,
      )
      .map((c) => c.metadata.name as string);
  }

  /** Brings one cluster's member in line with its Cluster and Secret; synchronous, so a listener never sees half a change. */
  private reconcile(name: string): void {
    const cluster = this.clusters.get(name);
    const previous = this.members.get(name);
    const ref = cluster?.spec?.secretRef;
    const secret = ref?.namespace === CLUSTER_SECRET_NAMESPACE ? this.secrets.get(ref.name) : undefined;
    const access = cluster ? clusterKubeconfig(cluster, secret) : undefined;
    if (!cluster || !access || 'problem' in access) {
      if (access && 'problem' in access) this.problems.set(name, access.problem);
      else this.problems.delete(name);
      if (previous) {
        this.members.delete(name);
        this.close(previous);
      }
    } else {
      this.problems.delete(name);
      let connection = previous?.connection;
      let target = previous?.upgradeTarget;
      let state = previous?.state;
      if (!previous || previous.kubeconfig !== access.kubeconfig) {
        try {
          connection = this.connect(name, access.kubeconfig);
          target = upgradeTarget(access.kubeconfig);
        } catch (err) {
          this.problems.set(name, `its credentials cannot be used: ${(err as Error).message}`);
          this.members.delete(name);
          if (previous) this.close(previous);
          this.changed(name);
          return;
        }
        if (previous) this.close(previous);
        state = this.attach(connection);
      }
      this.members.set(name, memberOf(cluster, connection!, state!, target!, access.kubeconfig));
    }
    this.changed(name);
  }

  private close(member: ClusterMember<S>): void {
    member.state.stop();
    detach(member.connection.destroy(), `cluster roster: closing the connections to ${member.name}`);
  }

  private changed(name: string): void {
    for (const listener of this.listeners) {
      try {
        listener(name);
      } catch (err) {
        log.error(`a change listener failed for ${name}`, { cluster: name, error: errorText(err) });
      }
    }
  }
}

function memberOf<S extends ClusterState>(
  cluster: ApiObject,
  connection: UpstreamConnection,
  state: S,
  target: UpgradeTarget,
  kubeconfig: string,
): ClusterMember<S> {
  const spec = cluster.spec ?? {};
  const zones: string[] = Array.isArray(spec.zones) ? spec.zones : spec.zone ? [spec.zone] : [];
  return {
    name: cluster.metadata.name,
    labels: cluster.metadata.labels ?? {},
    client: connection.admin,
    cluster,
    podApi: () => connection.podApiNow(),
    connection,
    state,
    upgradeTarget: target,
    ...(spec.provider ? { provider: spec.provider } : {}),
    ...(spec.region ? { region: spec.region } : {}),
    zones,
    taints: Array.isArray(spec.taints) ? spec.taints : [],
    kubeconfig,
  };
}
