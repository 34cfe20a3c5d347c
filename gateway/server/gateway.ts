import { createServer } from 'node:https';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import type { HostPort } from '../../apiserver/host-port.js';
import { closer, httpsUrl, listenOn, parseListen } from '../../apiserver/listening.js';
import { ApiServer } from '../../apiserver/api-server.js';
import { ResourceCatalog } from '../../apiserver/catalog.js';
import { customResourcePrinter } from '../../apiserver/table/printers/custom-resource.js';
import { printerFor, type Printer } from '../../apiserver/table/printers-by-resource.js';
import type { Strategy } from '../../apiserver/registry/strategy.js';
import type { ResourceInfo } from '../../apiserver/resources/resource-info.js';
import { parseServiceReference } from '../../clusters/advertised-service.js';
import { ServingCertificate } from './serving-certificate.js';
import { clusterPrinter } from '../../clusters/cluster-printer.js';
import { registerClusters, type UpstreamRegistration } from '../../clusters/cluster-registration.js';
import { CLUSTER_RESOURCE, clusterStrategy } from '../../clusters/cluster-resource.js';
import { ClusterRoster, type ClusterMember } from '../../clusters/cluster-roster.js';
import { clusterSecretNamespace, clusterSecretStrategy, SECRET_RESOURCE } from '../../clusters/cluster-secrets.js';
import { ClusterStatusController } from '../../clusters/cluster-status-controller.js';
import { renderKubeconfig } from '../../certs/index.js';
import { openStore, privateDataDir, writePrivateFile, type EtcdTls, type Store } from '../../store/index.js';
import { TenantController } from '../../tenants/tenant-controller.js';
import { TenantRoster } from '../../tenants/tenant-roster.js';
import { TenantKubeconfigs } from '../../tenants/tenant-kubeconfig.js';
import { TENANT_PRINTER_COLUMNS, TENANT_RESOURCE, tenantStrategy } from '../../tenants/tenant-resource.js';
import { Authenticator } from '../auth/authenticate.js';
import { clientCertificates } from '../auth/client-certificate.js';
import { serviceAccountTokens } from '../auth/service-account-token.js';
import { bootstrapCertificateAuthority, continueTokenKey, trustedCertificateAuthorities } from './ca-bootstrap.js';
import { GatewayMetrics } from '../observability/metrics.js';
import { DEFAULT_TENANT_LIMITS, TenantLimits, type TenantLimitValues } from './tenant-limits.js';
import { OpenStreams } from './open-streams.js';
import { OwnerReferenceHealer } from '../../tenants/owner-reference-healer.js';
import { clusterReadyStateMetric } from '../../eviction/eviction-metrics.js';
import { startEviction } from '../../eviction/eviction.js';
import { DEFAULT_EVICTION_SETTINGS, type EvictionSettings } from '../../eviction/eviction-settings.js';
import type { RequestLogSink } from '../observability/request-log.js';
import { AuditLog, type AuditLogOptions } from '../observability/audit-log.js';
import { RequestPipeline } from './pipeline.js';
import { PING, type HealthChecks } from './health-endpoints.js';
import { ServerDrain } from './server-drain.js';
import { AdminRouter } from '../admin/admin-router.js';
import { SearchCache } from '../search/search-cache.js';
import { TenantCache } from '../cached/tenant-cache.js';
import { DEFAULT_TENANT_CACHE_MAX_BYTES } from '../cached/tenant-cache-budget.js';
import { parseFailoverResources, parseTenantCache } from '../cached/tenant-cached-resources.js';
import { DEFAULT_FAILOVER_RESOURCES, DEFAULT_TENANT_CACHE } from '../cached/tenant-cache-defaults.js';
import {
  RESOURCE_REGISTRY_PRINTER,
  RESOURCE_REGISTRY_RESOURCE,
  resourceRegistryStrategy,
} from '../../search/resource-registry.js';
import { SELF_SUBJECT_REVIEW_RESOURCE } from '../auth/self-subject-review.js';
import { DEFAULT_UPSTREAM_SEATS, UpstreamSeats, type UpstreamSeatSettings } from '../../clusters/upstream-seats.js';
import { UpstreamConnection } from '../../clusters/upstream-connection.js';
import type { PodApi } from '../../translate/context.js';
import { GatewayClusterState } from '../upstream/gateway-cluster-state.js';
import { realClock } from '../../clusters/clock.js';

/**
 * The names a workload in a cluster reaches its API server by (`kubernetes.default.svc` and its
 * shorter forms, the Service kube makes in `default`): the gateway's serving certificate names
 * them too, so a tenant's in-cluster clients verify the gateway as they would a cluster.
 */
const IN_CLUSTER_NAMES = [
  'kubernetes',
  'kubernetes.default',
  'kubernetes.default.svc',
  'kubernetes.default.svc.cluster.local',
];

export interface GatewayOptions {
  /** host:port to listen on; port 0 picks a free one. */
  listen: string;
  /** host:port clients reach this replica (or the load balancer) at; default: the listen address. */
  advertiseAddress?: string;
  /**
   * `namespace/name` of a Service on each cluster that its pods reach the gateway by
   * (`--advertise-service`, clusters/advertised-service.ts); where a cluster has none, pods are
   * given the advertised address.
   */
  advertiseService?: string;
  /** How often each cluster's advertised Service is looked up (default 30 s). */
  advertiseServicePeriodMs?: number;
  dataDir: string;
  etcdEndpoints?: string[];
  etcdPrefix?: string;
  /** TLS to `https://` etcd endpoints (`--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`). */
  etcdTls?: EtcdTls;
  caCert?: string;
  caKey?: string;
  /** A PEM bundle of more CAs to trust beside the signing one, while the CA is rotated (`--trusted-ca-file`). */
  trustedCaFile?: string;
  keyAlgorithm?: 'ecdsa' | 'rsa';
  tenantCertValidityDays?: number;
  /** Clusters registered (created, or updated when changed) as Cluster objects at start: a name and a kubeconfig's text each. */
  upstreams: UpstreamRegistration[];
  /** The cluster admin requests outside the gateway's own API pass through to (default: the first upstream, else `member1`). */
  defaultCluster?: string;
  /** How long `/readyz` waits for the search cache's first lists before it answers ok anyway (default 1 minute, as Karmada's `--storage-initialization-timeout`). */
  cacheSyncTimeoutMs?: number;
  /** The resources tenants read from the cache (`--tenant-cache`, tenant-cached-resources.ts); '' for none. */
  tenantCache?: string;
  /** The tenant cache's budget (`--tenant-cache-max-bytes`, tenant-cache-budget.ts); 0 for none. */
  tenantCacheMaxBytes?: number;
  /** The least time between two writes of a shared tenant watch to a watcher (`--watch-flush-interval`, cached-watch.ts); default 0. */
  watchFlushIntervalMs?: number;
  /** How often the elected replica probes every cluster's health (default 10 s, as Karmada's `--cluster-status-update-frequency`). */
  clusterStatusUpdateFrequencyMs?: number;
  /** `--cluster-success-threshold` and `--cluster-failure-threshold` (default 30 s each, as Karmada). */
  clusterSuccessThresholdMs?: number;
  clusterFailureThresholdMs?: number;
  /** `--no-execute-taint-after`: a cluster not Ready this long gets a NoExecute taint; undefined: never. */
  noExecuteTaintAfterMs?: number;
  /** `--enable-no-execute-taint-eviction`: the taint manager moves tenants off NoExecute-tainted clusters (default false, as Karmada). */
  enableNoExecuteTaintEviction?: boolean;
  /** The eviction's flags (eviction/eviction.ts); DEFAULT_EVICTION_SETTINGS where unset. */
  eviction?: Partial<EvictionSettings>;
  /** What the cache keeps of every cluster for replaying evicted tenants (`--failover-resources`), besides the tenant cache. */
  failoverResources?: string;
  electionTtlSeconds?: number;
  /** This replica's name in the election (default host_pid). */
  identity?: string;
  /** Largest request body accepted (default 3 MiB, as kube-apiserver). */
  maxRequestBytes?: number;
  /** How long an upstream may take to answer before the tenant gets 504 (default 60 s). */
  upstreamTimeoutMs?: number;
  /** Each tenant's share of this replica where its Tenant's `spec.limits` does not set it (default DEFAULT_TENANT_LIMITS; 0: no bound). */
  tenantLimits?: Partial<TenantLimitValues>;
  /** Each cluster's seats, shared fairly among tenants (upstream-seats.ts); DEFAULT_UPSTREAM_SEATS where unset. */
  upstreamSeats?: Partial<UpstreamSeatSettings>;
  /** Gets one entry per request when it ends (`paddock serve --request-log line`); none when absent. */
  onRequest?: RequestLogSink;
  /** The audit log (`--audit-log-path`, audit-log.ts): writes and admin actions, one event each; none when absent. */
  auditLog?: AuditLogOptions;
  /** A graceful stop (`drain`): how long requests are still served after `/readyz` fails (default 0). */
  shutdownDelayMs?: number;
  /** A graceful stop: from its start to the end, whatever is still open (default 30 s). */
  shutdownTimeoutMs?: number;
  /** `--metrics-per-tenant`: series per tenant in /metrics besides the bounded ones (docs/metrics.md); default false. */
  metricsPerTenant?: boolean;
}

export interface Gateway {
  url: string;
  adminKubeconfigPath: string;
  store: Store;
  /** The registered clusters this replica follows; `onChange` hears of each one added, changed or removed. */
  clusters: ClusterRoster<GatewayClusterState>;
  /** Sets the eviction rate while running (a replica restarted with `--resource-eviction-rate` does the same); throws when eviction is off. */
  setEvictionRate(rate: number): void;
  /**
   * The graceful stop's serving half (server-drain.ts): `/readyz` fails, the listener closes,
   * streams end cleanly, requests in flight finish, within the shutdown timeout. `stop` then
   * stops the rest; `stop` alone cuts whatever is open.
   */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

const FALLBACK_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-paddock',
  gitCommit: '',
  gitTreeState: 'clean',
  buildDate: '',
  goVersion: 'go1.23.4',
  compiler: 'gc',
  platform: 'linux/amd64',
};

/**
 * A gateway replica: HTTPS with client certificates, identities as docs/design.md describes, the admin API
 * (Tenants) served by `apiserver/` from the store, the tenant roster every replica follows,
 * and the tenant controller that one elected replica runs. Replicas share nothing but the store.
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const dataDir = path.resolve(options.dataDir);
  await privateDataDir(dataDir);
  const store = await openStore({
    dataDir: path.join(dataDir, 'store'),
    etcdEndpoints: options.etcdEndpoints,
    etcdPrefix: options.etcdPrefix,
    etcdTls: options.etcdTls,
  });
  const stops: (() => Promise<void>)[] = [() => store.close()];
  const stop = async () => {
    for (const fn of stops.reverse()) await fn().catch(() => undefined);
  };
  try {
    const ca = await bootstrapCertificateAuthority(store, { cert: options.caCert, key: options.caKey });
    const trustedCas = await trustedCertificateAuthorities(ca, options.trustedCaFile);
    const { host, port } = parseListen(options.listen);
    const metrics = new GatewayMetrics({ perTenant: options.metricsPerTenant });
    // Closed late in the stop (stops run last first), after the server: the events of what the stop cuts are in it.
    const audit = options.auditLog ? new AuditLog(options.auditLog) : undefined;
    if (audit) stops.push(async () => audit.close());

    const catalog = new ResourceCatalog([
      SELF_SUBJECT_REVIEW_RESOURCE,
      TENANT_RESOURCE,
      CLUSTER_RESOURCE,
      SECRET_RESOURCE,
      RESOURCE_REGISTRY_RESOURCE,
    ]);
    /** What tenant kubeconfigs are read as: made once the gateway's URL is known. */
    let tenantKubeconfigs: TenantKubeconfigs | undefined = undefined;
    // The kinds the gateway serves from its store, with their strategies and Table printers.
    const ownKinds = new Map<ResourceInfo, { strategy: Strategy; printer: Printer }>([
      [
        TENANT_RESOURCE,
        { strategy: tenantStrategy(() => tenantKubeconfigs), printer: customResourcePrinter(TENANT_PRINTER_COLUMNS) },
      ],
      [CLUSTER_RESOURCE, { strategy: clusterStrategy, printer: clusterPrinter }],
      [SECRET_RESOURCE, { strategy: clusterSecretStrategy, printer: printerFor('', 'secrets') }],
      [RESOURCE_REGISTRY_RESOURCE, { strategy: resourceRegistryStrategy, printer: RESOURCE_REGISTRY_PRINTER }],
    ]);
    let address = options.advertiseAddress ?? options.listen;
    /** Where the tenants' pods reach the gateway: the advertised address, once the gateway listens. */
    let podApi: PodApi | undefined = undefined;
    const advertiseService = options.advertiseService ? parseServiceReference(options.advertiseService) : undefined;
    /** Each advertised Service's address as pods are given it: read on every pod conversion, made once per address. */
    const servicePodApis = new WeakMap<HostPort, PodApi>();
    /** Where the pods of a cluster's tenants reach the gateway: its advertised Service, else the advertised address. */
    const podApiOn = (cluster: string): PodApi | undefined => {
      const service = clusters.get(cluster)?.state.advertisedService?.address();
      if (!podApi || !service) return podApi;
      let made = servicePodApis.get(service);
      if (!made) servicePodApis.set(service, (made = podApiOf(service, ca.certPem)));
      return made;
    };
    // Issued again whenever a cluster's advertised Service gives a new address.
    const serving = new ServingCertificate(ca, trustedCas, () => [
      ...new Set([
        parseListen(address).host,
        host,
        '127.0.0.1',
        'localhost',
        ...IN_CLUSTER_NAMES,
        ...clusters
          .list()
          .flatMap((member) => member.state.advertisedService?.address()?.host ?? [])
          .sort(),
      ]),
    ]);
    let version = FALLBACK_VERSION as Record<string, string>;
    const api = new ApiServer({
      store,
      catalog,
      strategyFor: (info) => ownKinds.get(info)?.strategy ?? {},
      printerFor: (info) => ownKinds.get(info)?.printer ?? printerFor(info.group, info.resource),
      get version() {
        return version;
      },
      get serverAddress() {
        return address;
      },
      namespaces: async (name) => clusterSecretNamespace(name),
    });
    await registerClusters(api.registryFor(CLUSTER_RESOURCE), api.registryFor(SECRET_RESOURCE), options.upstreams);
    const seatSettings = { ...DEFAULT_UPSTREAM_SEATS, ...options.upstreamSeats };
    const clusters = new ClusterRoster(
      store,
      (name, kubeconfig) =>
        new UpstreamConnection(
          name,
          kubeconfig,
          options.upstreamTimeoutMs,
          new UpstreamSeats(
            name,
            seatSettings,
            realClock,
            (level, reason) => metrics.seatRefused(name, level, reason),
            (level, ms, executed) => metrics.seatWaited(name, level, ms, executed),
          ),
          (resource) => metrics.upstreamWatchOpened(name, resource),
          () => podApiOn(name),
        ),
      (connection) =>
        new GatewayClusterState(
          connection,
          advertiseService && {
            service: advertiseService,
            periodMs: options.advertiseServicePeriodMs,
            onChange: () => serving.namesChanged(),
          },
        ),
    );
    metrics.followFlowControl(() =>
      clusters.list().flatMap((m) => m.connection.seats.state().map((level) => ({ cluster: m.name, ...level }))),
    );
    await clusters.start();
    stops.push(() => clusters.stop());
    const defaultClusterName = options.defaultCluster ?? options.upstreams[0]?.name ?? 'member1';
    version = await upstreamVersion(clusters.get(defaultClusterName));
    const searchCache = new SearchCache({
      store,
      clusters,
      defaultCluster: defaultClusterName,
      metrics,
      syncTimeoutMs: options.cacheSyncTimeoutMs ?? 60_000,
      tenantResources: parseTenantCache(options.tenantCache ?? DEFAULT_TENANT_CACHE),
      tenantCacheMaxBytes: options.tenantCacheMaxBytes ?? DEFAULT_TENANT_CACHE_MAX_BYTES,
      failoverResources: options.enableNoExecuteTaintEviction
        ? parseFailoverResources(options.failoverResources ?? DEFAULT_FAILOVER_RESOURCES)
        : [],
    });
    await searchCache.start();
    stops.push(() => searchCache.stop());
    const admin = new AdminRouter({
      api,
      catalog,
      defaultCluster: () => clusters.get(defaultClusterName),
      search: searchCache,
      metrics,
    });
    const tenants = new TenantRoster(store);
    await tenants.start();
    stops.push(() => tenants.stop());
    const limits = new TenantLimits({ ...DEFAULT_TENANT_LIMITS, ...options.tenantLimits }, (tenantId) =>
      tenants.limitsOf(tenantId),
    );
    const tenantCache = new TenantCache(searchCache, metrics, options.watchFlushIntervalMs ?? 0);
    // What a certificate opened ends when the certificate stops being accepted (docs/gateway.md, Identities).
    const openStreams = new OpenStreams(tenants);
    const unfollow = tenants.onChange((tenant) => openStreams.recheck(tenant));
    stops.push(async () => void unfollow());
    // A failover replays the tenant's CRDs on its new cluster before recording the move: every replica reads discovery again.
    const unfollowMoves = tenants.onMove((_tenant, cluster) => clusters.get(cluster)?.connection.invalidate());
    stops.push(async () => void unfollowMoves());

    const drain = new ServerDrain();
    const health: HealthChecks = {
      readyz: [
        PING,
        { name: 'search-cache-synced', passes: () => searchCache.ready() },
        { name: 'shutdown', passes: () => !drain.isDraining },
      ],
      livez: [PING],
    };
    const pipeline = new RequestPipeline({
      authenticator: new Authenticator([
        clientCertificates(tenants),
        serviceAccountTokens(tenants, (tenant) => {
          const cluster = tenants.clusterOf(tenant);
          return cluster === undefined ? undefined : clusters.get(cluster)?.connection.admin;
        }),
      ]),
      api,
      admin,
      tenants,
      clusters,
      limits,
      metrics,
      health,
      drain,
      openStreams,
      audit,
      onRequest: options.onRequest,
      cache: tenantCache,
      continueKey: await continueTokenKey(store),
      maxRequestBytes: options.maxRequestBytes,
    });

    const server = createServer(
      { ...(await serving.first()), ca: trustedCas, requestCert: true, rejectUnauthorized: false },
      (req, res) => pipeline.handle(req, res),
    );
    serving.serve(server);

    const closeServer = closer(server);
    server.on('upgrade', (req, socket, head) => pipeline.upgrade(req, socket, head));
    await listenOn(server, host, port);
    stops.push(closeServer);
    const actualPort = (server.address() as { port: number }).port;
    if (!options.advertiseAddress) address = `${host}:${actualPort}`;
    podApi = podApiOf(parseListen(address), ca.certPem);
    const url = httpsUrl(parseListen(address).host, parseListen(address).port);
    tenantKubeconfigs = new TenantKubeconfigs({ server: url, caPem: trustedCas.join('') });

    const adminCertificate = await ca.issueClientCertificate({
      commonName: 'admin',
      organizations: ['system:masters'],
    });
    const adminKubeconfigPath = path.join(dataDir, 'admin.kubeconfig');
    await writePrivateFile(
      adminKubeconfigPath,
      renderKubeconfig({
        clusterName: 'paddock',
        server: url,
        caPem: trustedCas.join(''),
        userName: 'admin',
        certPem: adminCertificate.certPem,
        keyPem: adminCertificate.keyPem,
        contextName: 'admin@paddock',
      }),
    );

    const electionIdentity = options.identity ?? `${hostname()}_${process.pid}_${actualPort}`;
    const controller = new TenantController({
      store,
      tenants: api.registryFor(TENANT_RESOURCE),
      clusters: () => clusters.list(),
      onClustersChange: (listener) => clusters.onChange(listener),
      ca,
      keyAlgorithm: options.keyAlgorithm ?? 'ecdsa',
      certificateValidityDays: options.tenantCertValidityDays ?? 365,
      identity: electionIdentity,
      electionTtlSeconds: options.electionTtlSeconds ?? 5,
    });
    controller.start();
    stops.splice(1, 0, () => controller.stop());
    const statusController = new ClusterStatusController({
      store,
      clusters: api.registryFor(CLUSTER_RESOURCE),
      roster: clusters,
      frequencyMs: options.clusterStatusUpdateFrequencyMs ?? 10_000,
      successThresholdMs: options.clusterSuccessThresholdMs,
      failureThresholdMs: options.clusterFailureThresholdMs,
      noExecuteTaintAfterMs: options.noExecuteTaintAfterMs,
      identity: electionIdentity,
      electionTtlSeconds: options.electionTtlSeconds ?? 5,
    });
    statusController.start();
    stops.splice(1, 0, () => statusController.stop());
    const ownerReferenceHealer = new OwnerReferenceHealer({
      store,
      clusters: () => clusters.list(),
      onClustersChange: (listener) => clusters.onChange(listener),
      isTenant: (tenantId) => tenants.has(tenantId),
      identity: electionIdentity,
      electionTtlSeconds: options.electionTtlSeconds ?? 5,
    });
    ownerReferenceHealer.start();
    stops.splice(1, 0, () => ownerReferenceHealer.stop());
    clusterReadyStateMetric(metrics.registry, () => clusters.list());
    const eviction = options.enableNoExecuteTaintEviction
      ? startEviction({
          settings: { ...DEFAULT_EVICTION_SETTINGS, ...options.eviction },
          store,
          identity: electionIdentity,
          electionTtlSeconds: options.electionTtlSeconds ?? 5,
          clusters: () => clusters.list(),
          onClustersChange: (listener) => clusters.onChange(listener),
          tenants,
          tenantRegistry: api.registryFor(TENANT_RESOURCE),
          cachedStores: (cluster) => searchCache.clusterStores(cluster),
          metrics: metrics.registry,
        })
      : undefined;
    if (eviction) stops.splice(1, 0, () => eviction.stop());
    const setEvictionRate = (rate: number) => {
      if (!eviction) throw new Error('eviction is off: start the gateway with --enable-no-execute-taint-eviction');
      eviction.setRate(rate);
    };
    const drainServer = () =>
      drain.drain(server, {
        delayMs: options.shutdownDelayMs ?? 0,
        timeoutMs: options.shutdownTimeoutMs ?? 30_000,
      });
    return { url, adminKubeconfigPath, store, clusters, setEvictionRate, drain: drainServer, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function upstreamVersion(cluster: ClusterMember | undefined): Promise<Record<string, string>> {
  if (!cluster) return FALLBACK_VERSION;
  const res = await cluster.client.request('GET', '/version').catch(() => undefined);
  return res?.status === 200 && res.body?.minor ? res.body : FALLBACK_VERSION;
}

/** The gateway as the tenants' pods reach it (translate/kinds/pod-api.ts): at the address given, trusted by its CA. */
function podApiOf({ host, port }: HostPort, caPem: string): PodApi {
  return { host, port, caPem, adds: 'all', ...(isIP(host) ? { ip: host } : {}) };
}
