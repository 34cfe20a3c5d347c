import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { createCertificateAuthority, renderKubeconfig } from '../../certs/index.js';
import { decodeKubernetesProtobuf, ProtobufDecodeError } from '../../apiserver/protobuf/decode.js';
import { MESSAGES, TOP_LEVEL_MESSAGES } from '../../apiserver/protobuf/schema.js';
import { makeTempDir } from '../support/temp-dir.js';

const KUBECTL = '/usr/lib/google-cloud-sdk/bin/kubectl.1.32';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

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
  { groupVersion: 'rbac.authorization.k8s.io/v1', name: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false },
  { groupVersion: 'scheduling.k8s.io/v1', name: 'priorityclasses', kind: 'PriorityClass', namespaced: false },
  { groupVersion: 'policy/v1', name: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true },
  { groupVersion: 'networking.k8s.io/v1', name: 'ingresses', kind: 'Ingress', namespaced: true },
  { groupVersion: 'authorization.k8s.io/v1', name: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false },
  { groupVersion: 'authorization.k8s.io/v1', name: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', namespaced: false },
  { groupVersion: 'authentication.k8s.io/v1', name: 'selfsubjectreviews', kind: 'SelfSubjectReview', namespaced: false },
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

interface CapturedPost {
  path: string;
  contentType: string;
  body: Buffer;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Answers version and discovery like an apiserver, records every POST and echoes a 201. */
function handle(req: IncomingMessage, res: ServerResponse, body: Buffer, posts: CapturedPost[]): void {
  const url = (req.url ?? '').split('?')[0]!;
  const groupVersions = [...new Set(RESOURCES.map((r) => r.groupVersion))];
  if (req.method === 'POST') {
    posts.push({ path: url, contentType: req.headers['content-type'] ?? '', body });
    const resource = RESOURCES.find((r) => r.name === url.split('/').at(-1))!;
    const status = RESPONSE_STATUS[resource.kind] ?? {};
    return json(res, 201, { apiVersion: resource.groupVersion, kind: resource.kind, metadata: { name: 'created' }, status });
  }
  if (url === '/version') return json(res, 200, { major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' });
  if (url === '/api') return json(res, 200, { kind: 'APIVersions', versions: ['v1'] });
  if (url === '/apis') {
    const groups = groupVersions.filter((gv) => gv.includes('/')).map((gv) => {
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

interface CaptureServer {
  kubectl: (args: string[]) => Promise<string>;
  posts: CapturedPost[];
  close: () => Promise<void>;
}

async function startCaptureServer(): Promise<CaptureServer> {
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
  return {
    kubectl,
    posts,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
      await remove();
    },
  };
}

/**
 * Go's JSON of the typed object, without what the decoder leaves out on purpose: nulls
 * (`creationTimestamp: null`) and empty objects (`resources: {}`, `strategy: {}`).
 */
function withoutEmpties(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmpties);
  if (typeof value !== 'object' || value === null) return value;
  const kept = Object.entries(value)
    .map(([key, inner]) => [key, withoutEmpties(inner)] as const)
    .filter(([, inner]) => inner !== null && !(typeof inner === 'object' && !Array.isArray(inner) && Object.keys(inner).length === 0));
  return Object.fromEntries(kept);
}

interface GeneratorCase {
  args: string[];
  /** Where kubectl posts the body. */
  path: string;
  expected: Record<string, unknown>;
  /** Whether `--dry-run=client -o json` prints the same object, a second witness of the decoding. */
  hasDryRun: boolean;
}

const CASES: GeneratorCase[] = [
  {
    args: ['create', 'namespace', 'x'],
    path: '/api/v1/namespaces',
    expected: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } },
    hasDryRun: true,
  },
  {
    args: ['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3', '--port=80'],
    path: '/apis/apps/v1/namespaces/default/deployments',
    expected: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
        },
      },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'configmap', 'c', '--from-literal=a=b'],
    path: '/api/v1/namespaces/default/configmaps',
    expected: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } },
    hasDryRun: true,
  },
  {
    args: ['create', 'secret', 'generic', 's', '--from-literal=p=q'],
    path: '/api/v1/namespaces/default/secrets',
    expected: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { p: Buffer.from('q').toString('base64') } },
    hasDryRun: true,
  },
  {
    args: ['create', 'serviceaccount', 'sa'],
    path: '/api/v1/namespaces/default/serviceaccounts',
    expected: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } },
    hasDryRun: true,
  },
  {
    args: ['create', 'role', 'r', '--verb=get', '--resource=pods'],
    path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
    expected: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'r' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'rolebinding', 'rb', '--role=r', '--user=alice', '--serviceaccount=default:sa'],
    path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
    expected: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb' },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
        { kind: 'ServiceAccount', name: 'sa', namespace: 'default' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'clusterrole', 'cr', '--verb=list', '--resource=nodes'],
    path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    expected: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'cr' },
      rules: [{ verbs: ['list'], apiGroups: [''], resources: ['nodes'] }],
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'clusterrolebinding', 'crb', '--clusterrole=cr', '--group=devs'],
    path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    expected: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'crb' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cr' },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'quota', 'q', '--hard=pods=10,cpu=2'],
    path: '/api/v1/namespaces/default/resourcequotas',
    expected: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '10', cpu: '2' } } },
    hasDryRun: true,
  },
  {
    args: ['create', 'job', 'j', '--image=busybox', '--', 'echo', 'hi'],
    path: '/apis/batch/v1/namespaces/default/jobs',
    expected: {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: {
        template: { spec: { containers: [{ name: 'j', image: 'busybox', command: ['echo', 'hi'] }], restartPolicy: 'Never' } },
      },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'cronjob', 'cj', '--image=busybox', '--schedule=*/5 * * * *', '--', 'echo', 'hi'],
    path: '/apis/batch/v1/namespaces/default/cronjobs',
    expected: {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'cj' },
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: {
          metadata: { name: 'cj' },
          spec: {
            template: {
              spec: { containers: [{ name: 'cj', image: 'busybox', command: ['echo', 'hi'] }], restartPolicy: 'OnFailure' },
            },
          },
        },
      },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'priorityclass', 'pc', '--value=1000'],
    path: '/apis/scheduling.k8s.io/v1/priorityclasses',
    expected: {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'pc' },
      value: 1000,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'poddisruptionbudget', 'pdb', '--selector=app=web', '--min-available=1'],
    path: '/apis/policy/v1/namespaces/default/poddisruptionbudgets',
    expected: {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'pdb' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'ingress', 'ing', '--rule=foo.com/bar=svc:80'],
    path: '/apis/networking.k8s.io/v1/namespaces/default/ingresses',
    expected: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'ing' },
      spec: {
        rules: [
          {
            host: 'foo.com',
            http: { paths: [{ path: '/bar', pathType: 'Exact', backend: { service: { name: 'svc', port: { number: 80 } } } }] },
          },
        ],
      },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'service', 'clusterip', 'svc', '--tcp=80:8080'],
    path: '/api/v1/namespaces/default/services',
    expected: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc', labels: { app: 'svc' } },
      spec: {
        ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }],
        selector: { app: 'svc' },
        type: 'ClusterIP',
      },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'token', 'sa', '--duration=1h', '--audience=aud1'],
    path: '/api/v1/namespaces/default/serviceaccounts/sa/token',
    expected: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { audiences: ['aud1'], expirationSeconds: 3600 },
    },
    hasDryRun: false,
  },
  {
    args: ['auth', 'can-i', 'create', 'pods'],
    path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    expected: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } },
    },
    hasDryRun: false,
  },
  {
    args: ['auth', 'can-i', '--list'],
    path: '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
    expected: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } },
    hasDryRun: false,
  },
  {
    args: ['auth', 'whoami'],
    path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    expected: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    hasDryRun: false,
  },
];

// --- a tiny protobuf writer for bodies kubectl's generators never produce ---

function varint(value: bigint | number): Buffer {
  let rest = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest === 0n ? low : low | 0x80);
  } while (rest !== 0n);
  return Buffer.from(bytes);
}
const tag = (field: number, wireType: number) => varint((field << 3) | wireType);
const intField = (field: number, value: bigint | number) => Buffer.concat([tag(field, 0), varint(value)]);
const lenField = (field: number, payload: Buffer | string) => {
  const bytes = Buffer.from(payload);
  return Buffer.concat([tag(field, 2), varint(bytes.length), bytes]);
};
const message = (...fields: Buffer[]) => Buffer.concat(fields);
const mapEntry = (field: number, key: string, value?: Buffer | string) =>
  lenField(field, message(lenField(1, key), ...(value === undefined ? [] : [lenField(2, value)])));

/** `k8s\0` + runtime.Unknown {typeMeta {apiVersion, kind}, raw, ...extra fields}. */
function envelope(apiVersion: string, kind: string, raw: Buffer, ...extra: Buffer[]): Buffer {
  const typeMeta = message(lenField(1, apiVersion), lenField(2, kind));
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), lenField(1, typeMeta), lenField(2, raw), ...extra]);
}

function decodeError(body: Buffer): ProtobufDecodeError {
  try {
    decodeKubernetesProtobuf(body);
  } catch (err) {
    expect(err).to.be.instanceOf(ProtobufDecodeError);
    return err as ProtobufDecodeError;
  }
  throw new Error('expected a ProtobufDecodeError');
}

describe('Kubernetes protobuf request bodies', () => {
  describe('captured from the real kubectl 1.32', function () {
    this.timeout(120_000);
    let capture: CaptureServer;
    const bodies = new Map<GeneratorCase, Buffer>();

    before(async () => {
      capture = await startCaptureServer();
      for (const generator of CASES) {
        const before = capture.posts.length;
        await capture.kubectl(generator.args);
        const posts = capture.posts.slice(before);
        expect(posts.map((post) => [post.path, post.contentType])).to.deep.equal([[generator.path, PROTOBUF]]);
        bodies.set(generator, posts[0]!.body);
      }
    });

    after(async () => {
      await capture?.close();
    });

    for (const generator of CASES) {
      it(`decodes kubectl ${generator.args.join(' ')}`, () => {
        const decoded = decodeKubernetesProtobuf(bodies.get(generator)!);
        expect(decoded.apiVersion).to.equal(generator.expected.apiVersion);
        expect(decoded.kind).to.equal(generator.expected.kind);
        expect(decoded.object).to.deep.equal(generator.expected);
      });
    }

    it("matches kubectl's own JSON of the same object (--dry-run=client -o json)", async () => {
      for (const generator of CASES.filter((c) => c.hasDryRun)) {
        // The flags go before `--`, after which everything is the container's command.
        const args = [...generator.args];
        const commandStart = args.includes('--') ? args.indexOf('--') : args.length;
        args.splice(commandStart, 0, '--dry-run=client', '-o', 'json');
        const printed = JSON.parse(await capture.kubectl(args)) as Record<string, unknown>;
        // Status is the server's to fill; the decoder leaves it out (schema.ts).
        delete printed.status;
        expect(decodeKubernetesProtobuf(bodies.get(generator)!).object, generator.args.join(' ')).to.deep.equal(withoutEmpties(printed));
      }
    });

    it('answers every truncation of a real body with an object or a ProtobufDecodeError, never another error', () => {
      for (const body of bodies.values()) {
        for (let length = 0; length < body.length; length++) {
          try {
            decodeKubernetesProtobuf(body.subarray(0, length));
          } catch (err) {
            expect(err, `${length} of ${body.length} bytes`).to.be.instanceOf(ProtobufDecodeError);
          }
        }
      }
    });

    it('answers corrupted real bodies with an object or a ProtobufDecodeError, never another error', () => {
      const realBodies = [...bodies.values()];
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: realBodies.length - 1 }),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
          (which, edits) => {
            const body = Buffer.from(realBodies[which]!);
            // The magic stays intact so that corruption reaches the wire decoder.
            for (const [position, byte] of edits) body[4 + (position % (body.length - 4))] = byte;
            try {
              expect(decodeKubernetesProtobuf(body).object).to.be.an('object');
            } catch (err) {
              if (!(err instanceof ProtobufDecodeError)) throw err;
            }
          },
        ),
        { seed: 20251129, numRuns: 2000 },
      );
    });
  });

  describe('envelope', () => {
    const namespace = message(lenField(1, message(lenField(1, 'x'))));

    it('rejects a body without the k8s\\0 magic, such as JSON', () => {
      expect(decodeError(Buffer.from('{"kind":"Namespace"}')).message).to.match(/does not start with "k8s\\0"/);
      expect(decodeError(Buffer.from('k8s')).message).to.match(/does not start with/);
    });

    it('names the kind and its apiVersion when the kind is not supported', () => {
      const error = decodeError(envelope('example.com/v1', 'Foo', message()));
      expect(error.message).to.equal('protobuf bodies of kind "Foo" (apiVersion "example.com/v1") are not supported; send JSON');
    });

    it('does not take a known kind in another apiVersion for the one it knows', () => {
      const error = decodeError(envelope('apps/v1beta1', 'Deployment', message()));
      expect(error.message).to.match(/kind "Deployment" \(apiVersion "apps\/v1beta1"\)/);
    });

    it('rejects an envelope without apiVersion and kind', () => {
      const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), lenField(2, namespace)]);
      expect(decodeError(body).message).to.match(/names no apiVersion and kind/);
    });

    it('rejects an encoded raw object', () => {
      expect(decodeError(envelope('v1', 'Namespace', namespace, lenField(3, 'gzip'))).message).to.match(/contentEncoding "gzip"/);
    });

    it('accepts an empty contentEncoding and ignores contentType, as kubectl sends them', () => {
      const decoded = decodeKubernetesProtobuf(envelope('v1', 'Namespace', namespace, lenField(3, ''), lenField(4, '')));
      expect(decoded).to.deep.equal({
        apiVersion: 'v1',
        kind: 'Namespace',
        object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } },
      });
    });
  });

  describe('malformed wire data', () => {
    const decodeRaw = (raw: Buffer) => decodeError(envelope('v1', 'Namespace', raw)).message;

    it('rejects a length that runs past the end', () => {
      expect(decodeRaw(Buffer.concat([tag(1, 2), varint(50), Buffer.from('short')]))).to.match(/malformed.*runs past the end/);
    });

    it('rejects a truncated varint', () => {
      expect(decodeRaw(Buffer.concat([tag(99, 0), Buffer.from([0x80])]))).to.match(/malformed.*truncated varint/);
    });

    it('rejects a varint longer than ten bytes', () => {
      expect(decodeRaw(Buffer.concat([tag(99, 0), Buffer.alloc(11, 0x80), Buffer.from([0])]))).to.match(/malformed.*longer than ten bytes/);
    });

    it('rejects field number 0 and group wire types', () => {
      expect(decodeRaw(Buffer.from([0x02, 0x00]))).to.match(/malformed.*invalid field number 0/);
      expect(decodeRaw(tag(7, 3))).to.match(/malformed.*group wire type/);
      expect(decodeRaw(tag(7, 6))).to.match(/malformed.*invalid wire type 6/);
    });

    it('rejects a known field sent with the wrong wire type', () => {
      const nameAsVarint = message(lenField(1, message(intField(1, 5))));
      expect(decodeRaw(nameAsVarint)).to.match(/ObjectMeta\.name has wire type Varint, expected LengthDelimited/);
    });

    it('rejects an int64 that JSON cannot carry exactly', () => {
      const generation = message(lenField(1, message(lenField(1, 'x'), intField(7, 2n ** 60n))));
      expect(decodeRaw(generation)).to.match(/ObjectMeta\.generation is 1152921504606846976/);
    });

    it('rejects a time outside the years 0001 to 9999', () => {
      const deletion = message(lenField(1, message(lenField(9, message(intField(1, 253402300800))))));
      expect(decodeRaw(deletion)).to.match(/outside years 0001 to 9999/);
    });
  });

  describe('field semantics beyond what the generators send', () => {
    const decode = (apiVersion: string, kind: string, raw: Buffer) => decodeKubernetesProtobuf(envelope(apiVersion, kind, raw)).object;

    it('skips unknown fields of every wire type', () => {
      const meta = message(
        intField(90, 7),
        Buffer.concat([tag(91, 1), Buffer.alloc(8, 0xff)]),
        lenField(92, 'ignored'),
        Buffer.concat([tag(93, 5), Buffer.alloc(4, 0xff)]),
        lenField(1, 'x'),
      );
      expect(decode('v1', 'Namespace', message(lenField(1, meta), lenField(3, message(lenField(1, 'Active')))))).to.deep.equal({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'x' },
      });
    });

    it('reads metadata: maps, owner references, finalizers, times and pointer fields set to zero', () => {
      const meta = message(
        lenField(2, 'gen-'),
        lenField(3, 'team-a'),
        intField(7, 4),
        lenField(8, message()),
        lenField(9, message(intField(1, 1700000000), intField(2, 5))),
        intField(10, 0),
        mapEntry(11, 'app', 'web'),
        mapEntry(11, 'tier', 'front'),
        mapEntry(12, 'note', ''),
        lenField(13, message(lenField(5, 'apps/v1'), lenField(1, 'ReplicaSet'), lenField(3, 'rs'), lenField(4, 'u-1'), intField(6, 1))),
        lenField(14, 'example.com/cleanup'),
      );
      expect(decode('v1', 'ConfigMap', message(lenField(1, meta))).metadata).to.deep.equal({
        generateName: 'gen-',
        namespace: 'team-a',
        generation: 4,
        deletionTimestamp: '2023-11-14T22:13:20Z',
        deletionGracePeriodSeconds: 0,
        labels: { app: 'web', tier: 'front' },
        annotations: { note: '' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u-1', controller: true }],
        finalizers: ['example.com/cleanup'],
      });
    });

    it('keeps a "__proto__" map key as an ordinary key, as JSON.parse does', () => {
      const meta = message(mapEntry(11, '__proto__', 'x'), mapEntry(11, 'a', 'b'));
      const { labels } = decode('v1', 'Namespace', message(lenField(1, meta))).metadata as { labels: Record<string, string> };
      expect(Object.getPrototypeOf(labels)).to.equal(Object.prototype);
      expect(Object.entries(labels)).to.deep.equal([
        ['__proto__', 'x'],
        ['a', 'b'],
      ]);
    });

    it('keeps pointer fields that are present even when zero, and drops zero omitempty fields', () => {
      const spec = message(intField(1, 0), lenField(4, message(lenField(1, ''))), intField(5, 0), intField(7, 0));
      expect(decode('apps/v1', 'Deployment', message(lenField(2, spec))).spec).to.deep.equal({ replicas: 0 });
    });

    it('sign-extends negative int32 values', () => {
      expect(decode('scheduling.k8s.io/v1', 'PriorityClass', message(intField(2, -5))).value).to.equal(-5);
    });

    it('reads IntOrString as a number or a string by its type', () => {
      const spec = message(lenField(1, message(intField(1, 1), lenField(3, '50%'))), lenField(3, message(intField(1, 0), intField(2, 2))));
      expect(decode('policy/v1', 'PodDisruptionBudget', message(lenField(2, spec))).spec).to.deep.equal({
        minAvailable: '50%',
        maxUnavailable: 2,
      });
    });

    it('encodes bytes as base64 and gives a map entry without a value its zero value', () => {
      const secret = message(
        mapEntry(2, 'bin', Buffer.from([0, 255, 10])),
        mapEntry(2, 'empty'),
        mapEntry(4, 'plain', 'text'),
        lenField(3, 'Opaque'),
      );
      expect(decode('v1', 'Secret', secret)).to.deep.include({
        data: { bin: 'AP8K', empty: '' },
        stringData: { plain: 'text' },
        type: 'Opaque',
      });
    });

    it('inlines embedded structs and keeps a present empty volume source', () => {
      const configMapKeyRef = message(lenField(1, message(lenField(1, 'cfg'))), lenField(2, 'level'));
      const container = message(
        lenField(1, 'app'),
        lenField(7, message(lenField(1, 'LEVEL'), lenField(3, message(lenField(3, configMapKeyRef))))),
        lenField(8, message(mapEntry(1, 'memory', message(lenField(1, '64Mi'))))),
        lenField(9, message(lenField(1, 'scratch'), lenField(3, '/tmp'))),
      );
      const emptyDirVolume = message(lenField(1, 'scratch'), lenField(2, message(lenField(2, message()))));
      const podSpec = message(lenField(1, emptyDirVolume), lenField(2, container));
      const jobSpec = message(lenField(6, message(lenField(2, podSpec))));
      expect(decode('batch/v1', 'Job', message(lenField(2, jobSpec))).spec).to.deep.equal({
        template: {
          spec: {
            volumes: [{ name: 'scratch', emptyDir: {} }],
            containers: [
              {
                name: 'app',
                env: [{ name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'level' } } }],
                resources: { limits: { memory: '64Mi' } },
                volumeMounts: [{ name: 'scratch', mountPath: '/tmp' }],
              },
            ],
          },
        },
      });
    });

    it('reads a SubjectAccessReview with user, groups and extra as lists', () => {
      const spec = message(
        lenField(2, message(lenField(1, '/healthz'), lenField(2, 'get'))),
        lenField(3, 'bob'),
        lenField(4, 'devs'),
        lenField(4, 'ops'),
        mapEntry(5, 'scopes', message(lenField(1, 'a'), lenField(1, 'b'))),
      );
      expect(decode('authorization.k8s.io/v1', 'SubjectAccessReview', message(lenField(2, spec))).spec).to.deep.equal({
        nonResourceAttributes: { path: '/healthz', verb: 'get' },
        user: 'bob',
        groups: ['devs', 'ops'],
        extra: { scopes: ['a', 'b'] },
      });
    });
  });

  describe('schema', () => {
    it('defines every message that a field or a top-level kind refers to', () => {
      const scalars = new Set(['string', 'bytes', 'int32', 'int64', 'bool']);
      const referenced = [
        ...TOP_LEVEL_MESSAGES.values(),
        ...Object.values(MESSAGES).flatMap((spec) => Object.values(spec).map((field) => field.type)),
      ].filter((type) => !scalars.has(type));
      expect(referenced.filter((type) => !(type in MESSAGES))).to.deep.equal([]);
    });

    it('gives metadata field number 1 in every top-level kind', () => {
      for (const name of TOP_LEVEL_MESSAGES.values()) expect(MESSAGES[name]![1]?.name, name).to.equal('metadata');
    });
  });
});
