/**
 * A stand-in apiserver that records the request bodies the real kubectl 1.32 sends: it answers
 * version and discovery, records every POST and answers 201. kubectl's generators (`create ...`)
 * and `auth` reviews send protobuf and never fall back to JSON, so these are the bytes any
 * protobuf reader must handle.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createCertificateAuthority, renderKubeconfig } from '../../certs/index.js';
import { makeTempDir } from './temp-dir.js';
import { KUBECTL_1_32 as KUBECTL } from './kubectl.js';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** What the capture server serves in discovery, and the kinds it echoes back for POSTs. */
const RESOURCES = [
  { groupVersion: 'v1', name: 'namespaces', kind: 'Namespace', namespaced: false },
  { groupVersion: 'v1', name: 'nodes', kind: 'Node', namespaced: false },
  { groupVersion: 'v1', name: 'pods', kind: 'Pod', namespaced: true },
  { groupVersion: 'v1', name: 'configmaps', kind: 'ConfigMap', namespaced: true },
  { groupVersion: 'v1', name: 'secrets', kind: 'Secret', namespaced: true },
  { groupVersion: 'v1', name: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
  { groupVersion: 'v1', name: 'services', kind: 'Service', namespaced: true },
  { groupVersion: 'v1', name: 'resourcequotas', kind: 'ResourceQuota', namespaced: true },
  { groupVersion: 'apps/v1', name: 'deployments', kind: 'Deployment', namespaced: true },
  { groupVersion: 'batch/v1', name: 'jobs', kind: 'Job', namespaced: true },
  { groupVersion: 'batch/v1', name: 'cronjobs', kind: 'CronJob', namespaced: true },
  { groupVersion: 'rbac.authorization.k8s.io/v1', name: 'roles', kind: 'Role', namespaced: true },
  { groupVersion: 'rbac.authorization.k8s.io/v1', name: 'rolebindings', kind: 'RoleBinding', namespaced: true },
  { groupVersion: 'rbac.authorization.k8s.io/v1', name: 'clusterroles', kind: 'ClusterRole', namespaced: false },
  {
    groupVersion: 'rbac.authorization.k8s.io/v1',
    name: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    namespaced: false,
  },
  { groupVersion: 'scheduling.k8s.io/v1', name: 'priorityclasses', kind: 'PriorityClass', namespaced: false },
  { groupVersion: 'policy/v1', name: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true },
  { groupVersion: 'networking.k8s.io/v1', name: 'ingresses', kind: 'Ingress', namespaced: true },
  {
    groupVersion: 'authorization.k8s.io/v1',
    name: 'selfsubjectaccessreviews',
    kind: 'SelfSubjectAccessReview',
    namespaced: false,
  },
  {
    groupVersion: 'authorization.k8s.io/v1',
    name: 'selfsubjectrulesreviews',
    kind: 'SelfSubjectRulesReview',
    namespaced: false,
  },
  {
    groupVersion: 'authentication.k8s.io/v1',
    name: 'selfsubjectreviews',
    kind: 'SelfSubjectReview',
    namespaced: false,
  },
  // `create token` posts to the serviceaccounts/token subresource.
  { groupVersion: 'authentication.k8s.io/v1', name: 'token', kind: 'TokenRequest', namespaced: true },
];

/** Statuses that make kubectl's review and token commands succeed. */
const RESPONSE_STATUS: Record<string, unknown> = {
  SelfSubjectAccessReview: { allowed: true },
  SelfSubjectRulesReview: { resourceRules: [], nonResourceRules: [], incomplete: false },
  SelfSubjectReview: { userInfo: { username: 'alice' } },
  TokenRequest: { token: 'captured-token', expirationTimestamp: '2030-01-01T00:00:00Z' },
};

export interface CapturedPost {
  path: string;
  contentType: string;
  body: Buffer;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Answers version and discovery like an apiserver, records every POST and echoes a 201. */
function handle(req: IncomingMessage, res: ServerResponse, body: Buffer, posts: CapturedPost[]): void {
  const url = (req.url ?? '').split('?')[0];
  const groupVersions = [...new Set(RESOURCES.map((r) => r.groupVersion))];
  if (req.method === 'POST') {
    posts.push({ path: url, contentType: req.headers['content-type'] ?? '', body });
    const resource = RESOURCES.find((r) => r.name === url.split('/').at(-1))!;
    const status = RESPONSE_STATUS[resource.kind] ?? {};
    return json(res, 201, {
      apiVersion: resource.groupVersion,
      kind: resource.kind,
      metadata: { name: 'created' },
      status,
    });
  }
  if (url === '/version')
    return json(res, 200, { major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' });
  if (url === '/api') return json(res, 200, { kind: 'APIVersions', versions: ['v1'] });
  if (url === '/apis') {
    const groups = groupVersions
      .filter((gv) => gv.includes('/'))
      .map((gv) => {
        const version = { groupVersion: gv, version: gv.split('/')[1] };
        return { name: gv.split('/')[0], versions: [version], preferredVersion: version };
      });
    return json(res, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups });
  }
  const groupVersion = groupVersions.find((gv) => url === (gv === 'v1' ? '/api/v1' : `/apis/${gv}`));
  if (groupVersion) {
    const resources = RESOURCES.filter((r) => r.groupVersion === groupVersion && r.name !== 'token').map((r) => ({
      name: r.name,
      singularName: '',
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: ['create', 'get', 'list'],
    }));
    return json(res, 200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources });
  }
  json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
}

export interface CaptureServer {
  kubectl: (args: string[]) => Promise<string>;
  /** Runs kubectl and returns the one POST it made (an error for none or several). */
  post: (args: string[]) => Promise<CapturedPost>;
  close: () => Promise<void>;
}

export async function startCaptureServer(): Promise<CaptureServer> {
  const ca = await createCertificateAuthority({ commonName: 'protobuf-capture-ca' });
  const serving = await ca.issueServingCertificate({ hosts: ['127.0.0.1'] });
  const client = await ca.issueClientCertificate({ commonName: 'alice' });
  const posts: CapturedPost[] = [];
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks), posts));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { dir, remove } = await makeTempDir('protobuf-capture');
  const kubeconfig = path.join(dir, 'kubeconfig');
  await writeFile(
    kubeconfig,
    renderKubeconfig({
      clusterName: 'capture',
      server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      caPem: ca.certPem,
      userName: 'alice',
      certPem: client.certPem,
      keyPem: client.keyPem,
      contextName: 'capture',
    }),
  );
  const env = { PATH: process.env.PATH, HOME: dir, KUBECACHEDIR: path.join(dir, 'cache') };
  const kubectl = (args: string[]) =>
    new Promise<string>((resolve, reject) => {
      execFile(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { env }, (err, stdout, stderr) =>
        err ? reject(new Error(`kubectl ${args.join(' ')} failed: ${err.message}\n${stderr}`)) : resolve(stdout),
      );
    });
  const post = async (args: string[]) => {
    const before = posts.length;
    await kubectl(args);
    const made = posts.slice(before);
    if (made.length !== 1) throw new Error(`kubectl ${args.join(' ')} made ${made.length} POSTs, not one`);
    return made[0];
  };
  return {
    kubectl,
    post,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
      await remove();
    },
  };
}
