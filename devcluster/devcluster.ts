import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { ApiServer, type UserInfo } from '../apiserver/api-server.js';
import { ResourceCatalog } from '../apiserver/catalog.js';
import { sendStatus } from '../apiserver/handlers/http-io.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';
import { BUILTIN_RESOURCES } from '../apiserver/resources/builtin.js';
import type { ResourceInfo } from '../apiserver/resources/resource-info.js';
import { ApiError, unauthorized } from '../apiserver/status.js';
import { printerFor } from '../apiserver/table/printers-by-resource.js';
import { customResourcePrinter } from '../apiserver/table/printers/custom-resource.js';
import { nonResourceAttributes, type Attributes } from '../apiserver/authorization/attributes.js';
import {
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  BOOTSTRAP_CLUSTER_ROLES,
} from '../apiserver/authorization/bootstrap-policy.js';
import { forbiddenMessage, RbacAuthorizer } from '../apiserver/authorization/rbac-authorizer.js';
import { parseRequestInfo, requestUrl, type RequestInfo } from '../apiserver/request-info.js';
import { LongRunningRequests } from '../apiserver/longrunning-requests.js';
import { ClusterRoleBindingWalks } from './cluster-role-binding-walks.js';
import {
  createCertificateAuthority,
  loadCertificateAuthority,
  renderKubeconfig,
  type CertificateAuthority,
} from '../certs/index.js';
import { authenticateRequest, readTokenFile, type AuthenticatedUser } from './authentication.js';
import { impersonate } from './impersonation.js';
import { RbacObjectCache } from './rbac-objects.js';
import { handlePodLog, handlePodUpgrade } from './pod-streams.js';
import { handleProxy, handleProxyUpgrade } from './simulated-workload-proxy.js';
import { handleReview } from './reviews.js';
import { refuseUpgrade } from './streaming/upgrade-answers.js';
import { ServiceAccountTokens } from './service-account-tokens.js';
import { openStore, privateDataDir, writePrivateFile, type EtcdTls, type Store } from '../store/index.js';
import { ClusterRoleAggregationController } from './controllers/clusterrole-aggregation.js';
import { CrdController } from './controllers/crd-controller.js';
import { EndpointsController } from './controllers/endpoints-controller.js';
import { GarbageCollector } from './controllers/garbage-collector.js';
import { NamespaceController } from './controllers/namespace-controller.js';
import { KubernetesServiceReconciler } from './controllers/kubernetes-service.js';
import { serviceAccountsController } from './controllers/serviceaccounts-controller.js';
import { rootCaCertPublisher } from './controllers/root-ca-cert-publisher.js';
import { PodLifecycle } from './controllers/pod-lifecycle.js';
import { JobController } from './controllers/job-controller.js';
import { CronJobController } from './controllers/cronjob-controller.js';
import { SimulatedNode, simulatedNodeName } from './simulated-node.js';
import { SimulatedScheduler } from './simulated-scheduler.js';
import { WorkloadControllers } from './controllers/workload-controllers.js';
import { ServiceIpAllocator } from './service-ips.js';
import { devclusterStrategies } from './strategies.js';
import { serviceAccountAdmission } from './service-account-admission.js';
import { ContainerFilesystems } from './container-files/container-filesystems.js';
import { kubeletVolumeSources } from './container-files/kubelet-volume-sources.js';
import { detach } from '../apiserver/process-faults.js';
import { closer, httpsUrl, listenOn, parseListen } from '../apiserver/listening.js';

/**
 * The devcluster stands for a cluster, whose etcd kube compacts every 5 minutes: its benchmarks
 * write thousands of revisions a second (pods, each tenant's ten objects) while informers list in
 * pages at one revision, so it keeps more history than the store's default.
 */
const CLUSTER_HISTORY_WINDOW = 20_000;

export interface DevClusterOptions {
  /** Names the cluster in its kubeconfig and its etcd prefix (default `devcluster`). */
  name?: string;
  /** host:port; port 0 picks a free one (default 127.0.0.1:6444). */
  listen?: string;
  /** Holds the CA, the admin kubeconfig and (without etcd) the embedded store. */
  dataDir: string;
  etcdEndpoints?: string[];
  /** Keys go under `<etcdPrefix>/<name>` (default `/devcluster`). */
  etcdPrefix?: string;
  /** TLS to `https://` etcd endpoints. */
  etcdTls?: EtcdTls;
  bookmarkIntervalMs?: number;
  /** kube-apiserver's --token-auth-file: lines `token,user,uid,"group1,group2"`. */
  tokenAuthFile?: string;
  /**
   * Runs before each plain request is served and may hold it: fault injection for tests (a
   * request the gateway made, held while the gateway's own client hangs up).
   */
  beforeRequest?: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
  /** The CronJob controller's clock (default: the real one); tests set it ahead to reach a schedule. */
  cronJobClock?: () => Date;
  /** The clock ServiceAccount tokens are checked against for expiry (default: the real one); tests set it ahead to expire them. */
  tokenClock?: () => Date;
}

export interface DevCluster {
  name: string;
  /** https://host:port */
  url: string;
  kubeconfigPath: string;
  store: Store;
  api: ApiServer;
  stop(): Promise<void>;
}

export const DEVCLUSTER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-paddock-devcluster',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23.4',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/**
 * A Kubernetes-compatible API server for development and tests: HTTPS with client-certificate
 * authentication against its own CA, the REST API of `apiserver/` over its own store, and the
 * controllers that do kube-apiserver's and kube-controller-manager's bookkeeping (namespace
 * deletion, each namespace's `default` ServiceAccount and `kube-root-ca.crt`, garbage collection, CRD cleanup, ClusterRole aggregation, workloads, Jobs and
 * CronJobs, endpoints), and one simulated node whose scheduler and kubelet run the pods. Several
 * can run in one process.
 */
export async function startDevCluster(options: DevClusterOptions): Promise<DevCluster> {
  const name = options.name ?? 'devcluster';
  const dataDir = path.resolve(options.dataDir);
  await privateDataDir(dataDir);
  const store = await openStore({
    dataDir: path.join(dataDir, 'store'),
    etcdEndpoints: options.etcdEndpoints,
    etcdPrefix: `${(options.etcdPrefix ?? '/devcluster').replace(/\/+$/, '')}/${name}`,
    etcdTls: options.etcdTls,
    historyWindow: CLUSTER_HISTORY_WINDOW,
  });
  try {
    const ca = await loadOrCreateCa(path.join(dataDir, 'pki'), name);
    const { host, port } = parseListen(options.listen ?? '127.0.0.1:6444');
    const serving = await ca.issueServingCertificate({ hosts: [...new Set([host, '127.0.0.1', 'localhost'])] });

    const catalog = new ResourceCatalog(BUILTIN_RESOURCES);
    const printerColumns = new Map<string, unknown[]>();
    const onCrd = (crd: ApiObject, deleted: boolean) => {
      for (const version of crd.spec?.versions ?? []) {
        const key = `${crd.spec.group}/${crd.spec.names?.plural}/${version.name}`;
        if (deleted) printerColumns.delete(key);
        else printerColumns.set(key, version.additionalPrinterColumns ?? []);
      }
    };
    let address = `${host}:${port}`;
    const rbacObjects = new RbacObjectCache(store);
    const longRunningRequests = new LongRunningRequests();
    const walks = new ClusterRoleBindingWalks(longRunningRequests.registry);
    const authorizer = new RbacAuthorizer(() => rbacObjects.index, walks.observe);
    const authorize = (attributes: Attributes) => authorizer.authorize(attributes);
    const tokens = options.tokenAuthFile
      ? await readTokenFile(options.tokenAuthFile)
      : new Map<string, AuthenticatedUser>();
    const tokenClock = options.tokenClock;
    const serviceAccounts = new ServiceAccountTokens(tokenClock && (() => tokenClock().getTime()));
    const scheduler = new SimulatedScheduler(simulatedNodeName(name));
    const filesystems = new ContainerFilesystems(kubeletVolumeSources(() => api, serviceAccounts));
    const api: ApiServer = new ApiServer({
      longRunningRequests,
      authorize: (user, info) => {
        const attributes = attributesOf(user, info);
        const decision = authorizer.authorize(attributes);
        return decision.allowed
          ? null
          : { allowed: false, message: decision.message ?? forbiddenMessage(attributes, decision.reason) };
      },
      virtualResources: async (req, res, info, user) =>
        (await handleProxy(req, res, info, api)) ||
        (await handlePodLog(req, res, info, api)) ||
        handleReview(req, res, info, user, { authorizer, authorize, tokens, serviceAccounts, api }),
      store,
      catalog,
      strategyFor: devclusterStrategies(
        catalog,
        onCrd,
        new ServiceIpAllocator(() => serviceIpsInUse(api)),
        {
          scheduler,
          admit: (pod) => admitPod(pod),
          deleted: (pod) => {
            filesystems.forget(pod.metadata.uid);
            serviceAccounts.revoke(pod.metadata.uid);
          },
        },
        (account) => serviceAccounts.revoke(account.metadata.uid),
      ),
      printerFor: (info: ResourceInfo) =>
        info.builtin
          ? printerFor(info.group, info.resource)
          : customResourcePrinter(
              (printerColumns.get(`${info.group}/${info.resource}/${info.version}`) ?? []) as never,
            ),
      version: DEVCLUSTER_VERSION,
      get serverAddress() {
        return address;
      },
      bookmarkIntervalMs: options.bookmarkIntervalMs,
    });

    const admitPod = serviceAccountAdmission(api);
    const crdController = new CrdController(api, catalog, store, onCrd);
    await crdController.start();
    await bootstrapNamespaces(api);
    await bootstrapRbac(api);
    await rbacObjects.start();
    const namespaceController = new NamespaceController(api, catalog, store);
    const garbageCollector = new GarbageCollector(api, store);
    const clusterRoleAggregation = new ClusterRoleAggregationController(api, store);
    const endpointsController = new EndpointsController(api, store);
    const serviceAccountsInNamespaces = serviceAccountsController(api, store);
    const rootCaConfigMaps = rootCaCertPublisher(api, store, ca.certPem);
    await namespaceController.start();
    await serviceAccountsInNamespaces.start();
    await rootCaConfigMaps.start();
    await garbageCollector.start();
    await clusterRoleAggregation.start();
    await endpointsController.start();
    const node = new SimulatedNode(api, scheduler.nodeName);
    await node.start();
    const podLifecycle = new PodLifecycle(api, store, scheduler);
    const jobController = new JobController(api, store);
    const cronJobController = new CronJobController(api, store, options.cronJobClock);
    await podLifecycle.start();
    await jobController.start();
    await cronJobController.start();
    const workloadControllers = new WorkloadControllers(api, store);
    await workloadControllers.start();

    const server = createServer(
      { key: serving.keyPem, cert: serving.certPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        const hook = options.beforeRequest;
        if (!hook) return serve(req, res);
        detach(
          Promise.resolve(hook(req, res)).then(() => serve(req, res)),
          `devcluster request hook ${req.method} ${req.url}`,
        );
      },
    );
    function serve(req: IncomingMessage, res: ServerResponse): void {
      const authenticated = authenticateRequest(req, tokens, serviceAccounts);
      if (!authenticated) return sendStatus(req, res, unauthorized());
      let user: AuthenticatedUser;
      try {
        user = impersonate(req, authenticated, authorize);
      } catch (err) {
        return sendStatus(req, res, err instanceof ApiError ? err : unauthorized());
      }
      api.handle(req, res, user).catch((err: Error) => {
        if (!res.headersSent) sendStatus(req, res, err instanceof ApiError ? err : unauthorized());
      });
    }
    const closeServer = closer(server);
    server.on('upgrade', (req, socket, head) => {
      const authenticated = authenticateRequest(req, tokens, serviceAccounts);
      if (!authenticated) return refuseUpgrade(socket, unauthorized().status);
      let user: AuthenticatedUser;
      try {
        user = impersonate(req, authenticated, authorize);
      } catch (err) {
        return refuseUpgrade(socket, (err instanceof ApiError ? err : unauthorized()).status);
      }
      const url = requestUrl(req.url);
      const upgrade = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
      if (upgrade.isResourceRequest) longRunningRequests.track(upgrade, url.searchParams, socket);
      const authorizeUpgrade = (who: UserInfo, info: RequestInfo) => {
        const attributes = attributesOf(who, info);
        const decision = authorizer.authorize(attributes);
        return decision.allowed ? null : (decision.message ?? forbiddenMessage(attributes, decision.reason));
      };
      detach(
        handleProxyUpgrade(req, socket, head, user, api, authorizeUpgrade).then(async (handled) => {
          if (!handled) await handlePodUpgrade(req, socket, head, user, api, authorizeUpgrade, filesystems);
        }),
        `upgrade ${req.method} ${req.url}`,
      );
    });
    await listenOn(server, host, port);
    const actualPort = (server.address() as { port: number }).port;
    address = `${host}:${actualPort}`;
    const url = httpsUrl(host, actualPort);
    const kubernetesService = new KubernetesServiceReconciler(api, store, host, actualPort);
    await kubernetesService.start();

    const admin = await ca.issueClientCertificate({ commonName: 'admin', organizations: ['system:masters'] });
    const kubeconfigPath = path.join(dataDir, 'admin.kubeconfig');
    await writePrivateFile(
      kubeconfigPath,
      renderKubeconfig({
        clusterName: name,
        server: url,
        caPem: ca.certPem,
        userName: 'admin',
        certPem: admin.certPem,
        keyPem: admin.keyPem,
        contextName: `admin@${name}`,
      }),
    );

    return {
      name,
      url,
      kubeconfigPath,
      store,
      api,
      stop: async () => {
        await closeServer();
        node.stop();
        await Promise.all([
          podLifecycle.stop(),
          jobController.stop(),
          cronJobController.stop(),
          crdController.stop(),
          namespaceController.stop(),
          serviceAccountsInNamespaces.stop(),
          rootCaConfigMaps.stop(),
          garbageCollector.stop(),
          clusterRoleAggregation.stop(),
          endpointsController.stop(),
          kubernetesService.stop(),
          workloadControllers.stop(),
          rbacObjects.stop(),
        ]);
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** kube-apiserver's bootstrap RBAC policy: cluster-admin for system:masters, discovery for everyone. */
async function bootstrapRbac(api: ApiServer): Promise<void> {
  for (const [resource, objects] of [
    ['clusterroles', BOOTSTRAP_CLUSTER_ROLES],
    ['clusterrolebindings', BOOTSTRAP_CLUSTER_ROLE_BINDINGS],
  ] as const) {
    const registry = api.registryOf('rbac.authorization.k8s.io', resource)!;
    for (const object of objects) {
      try {
        await registry.create('', object);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 409)) throw err;
      }
    }
  }
}

/** The authorizer's view of a parsed request. */
function attributesOf(
  user: { name: string; groups: string[]; extra?: Record<string, string[]> },
  info: RequestInfo,
): Attributes {
  if (info.isResourceRequest) {
    return {
      user,
      verb: info.verb,
      isResourceRequest: true,
      namespace: info.namespace,
      apiGroup: info.group,
      resource: info.resource,
      subresource: info.subresource,
      name: info.name,
      path: '',
    };
  }
  return nonResourceAttributes(user, info.verb, info.path);
}

async function serviceIpsInUse(api: ApiServer): Promise<Set<string>> {
  const { objects } = await api.registryOf('', 'services')!.objects.list('', {});
  return new Set(objects.flatMap((s) => (s.spec?.clusterIPs ?? [s.spec?.clusterIP]).filter(Boolean)));
}

async function loadOrCreateCa(dir: string, name: string): Promise<CertificateAuthority> {
  const certFile = path.join(dir, 'ca.crt');
  const keyFile = path.join(dir, 'ca.key');
  if (existsSync(certFile) && existsSync(keyFile)) {
    return loadCertificateAuthority(await fs.readFile(certFile, 'utf8'), await fs.readFile(keyFile, 'utf8'));
  }
  await privateDataDir(dir);
  const ca = await createCertificateAuthority({ commonName: `${name}-ca` });
  await writePrivateFile(keyFile, ca.keyPem);
  await writePrivateFile(certFile, ca.certPem);
  return ca;
}

async function bootstrapNamespaces(api: ApiServer): Promise<void> {
  const namespaces = api.registryOf('', 'namespaces')!;
  for (const name of DEFAULT_NAMESPACES) {
    try {
      await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) throw err;
    }
  }
}
