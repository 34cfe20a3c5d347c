import { createServer, type Server } from 'node:https';
import { existsSync, promises as fs } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import path from 'node:path';
import { ApiServer } from '../apiserver/api-server.js';
import { ResourceCatalog } from '../apiserver/catalog.js';
import { sendStatus } from '../apiserver/handlers/http-io.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';
import { BUILTIN_RESOURCES } from '../apiserver/resources/builtin.js';
import type { ResourceInfo } from '../apiserver/resources/resource-info.js';
import { ApiError, unauthorized } from '../apiserver/status.js';
import { printerFor } from '../apiserver/table/registry.js';
import { customResourcePrinter } from '../apiserver/table/printers/custom-resource.js';
import { createCertificateAuthority, identityFromPeerCertificate, loadCertificateAuthority, renderKubeconfig, type CertificateAuthority } from '../certs/index.js';
import { openStore, type Store } from '../store/index.js';
import { CrdController } from './controllers/crd-controller.js';
import { GarbageCollector } from './controllers/garbage-collector.js';
import { NamespaceController } from './controllers/namespace-controller.js';
import { allocateServiceIp } from './service-ips.js';
import { devclusterStrategies } from './strategies.js';

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
  bookmarkIntervalMs?: number;
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
 * deletion, garbage collection, CRD cleanup). Several can run in one process.
 */
export async function startDevCluster(options: DevClusterOptions): Promise<DevCluster> {
  const name = options.name ?? 'devcluster';
  const dataDir = path.resolve(options.dataDir);
  await fs.mkdir(dataDir, { recursive: true });
  const store = await openStore({
    dataDir: path.join(dataDir, 'store'),
    etcdEndpoints: options.etcdEndpoints,
    etcdPrefix: `${(options.etcdPrefix ?? '/devcluster').replace(/\/+$/, '')}/${name}`,
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
    const api: ApiServer = new ApiServer({
      store,
      catalog,
      strategyFor: devclusterStrategies(catalog, onCrd, (): Promise<string> => allocateServiceIp(() => serviceIpsInUse(api))),
      printerFor: (info: ResourceInfo) =>
        info.builtin ? printerFor(info.group, info.resource) : customResourcePrinter((printerColumns.get(`${info.group}/${info.resource}/${info.version}`) ?? []) as never),
      version: DEVCLUSTER_VERSION,
      get serverAddress() {
        return address;
      },
      bookmarkIntervalMs: options.bookmarkIntervalMs,
    });

    const crdController = new CrdController(api, catalog, store, onCrd);
    await crdController.start();
    await bootstrapNamespaces(api);
    const namespaceController = new NamespaceController(api, catalog, store);
    const garbageCollector = new GarbageCollector(api, store);
    await namespaceController.start();
    await garbageCollector.start();

    const server = createServer({ key: serving.keyPem, cert: serving.certPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const socket = req.socket as TLSSocket;
      if (!socket.authorized) return sendStatus(req, res, unauthorized());
      let user;
      try {
        const identity = identityFromPeerCertificate(socket.getPeerCertificate());
        user = { name: identity.user, groups: identity.groups };
      } catch {
        return sendStatus(req, res, unauthorized());
      }
      api.handle(req, res, user).catch((err: Error) => {
        if (!res.headersSent) sendStatus(req, res, err instanceof ApiError ? err : unauthorized());
      });
    });
    await listen(server, host, port);
    const actualPort = (server.address() as { port: number }).port;
    address = `${host}:${actualPort}`;
    const url = `https://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;

    const admin = await ca.issueClientCertificate({ commonName: 'admin', organizations: ['system:masters'] });
    const kubeconfigPath = path.join(dataDir, 'admin.kubeconfig');
    await fs.writeFile(
      kubeconfigPath,
      renderKubeconfig({ clusterName: name, server: url, caPem: ca.certPem, userName: 'admin', certPem: admin.certPem, keyPem: admin.keyPem, contextName: `admin@${name}` }),
      { mode: 0o600 },
    );

    return {
      name,
      url,
      kubeconfigPath,
      store,
      api,
      stop: async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await Promise.all([crdController.stop(), namespaceController.stop(), garbageCollector.stop()]);
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
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
  await fs.mkdir(dir, { recursive: true });
  const ca = await createCertificateAuthority({ commonName: `${name}-ca` });
  await fs.writeFile(keyFile, ca.keyPem, { mode: 0o600 });
  await fs.writeFile(certFile, ca.certPem);
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

export function parseListen(listen: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(listen);
  if (!match) throw new Error(`--listen must be HOST:PORT, got ${JSON.stringify(listen)}`);
  return { host: match[1] ?? match[2]!, port: Number(match[3]) };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
