/**
 * The isolation property: two tenants share ONE gateway and perform a couple of thousand random
 * operations (fast-check, fixed seed; `PADDOCK_TEST_SEED=<n>` overrides it) on namespaced,
 * cluster-scoped and custom kinds, with names that look like the other tenant's prefix, plus
 * Tables, discovery, OpenAPI and error paths, while watches on both sides collect every event.
 *
 * - Zero leaks: every byte a tenant receives (bodies, watch lines, headers, continue tokens) is
 *   scanned for the other tenant's id and secret token. A tenant legitimately sends strings with
 *   the other's id in them (`<other>-x`, `<other>-default`, `<other>-tools.example.com`), so
 *   exactly those are masked first; everything the other tenant creates carries its token
 *   (annotations, data, image names, CRD short names and schema descriptions, unique names), so
 *   any of its objects or documents reaching the wrong tenant is caught even where names coincide.
 *   Structurally, the uids two tenants see are disjoint and, looked up upstream at the end,
 *   belong to objects under the receiving tenant's prefix.
 * - Well-formed: every answer is JSON and a Kubernetes object, list, Table, Status (code = HTTP
 *   status), discovery or OpenAPI document; no 5xx; every watch line a proper event.
 * - Consistency: per-operation statuses and echoed fields follow a model of each tenant's objects;
 *   lists (plain, paged, Table, selectors) equal the model; watches saw exactly the tenant's own
 *   objects; namespaces and paged lists agree at the end.
 * - A tenant never sees its own upstream prefix (`<tid>-name`) except in its own user name.
 * - Last, collection deletes (cluster-scoped kinds, namespaced kinds across namespaces) leave the
 *   other tenant's objects alone.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { readFile, writeFile } from 'node:fs/promises';
import type { ClientRequest } from 'node:http';
import { dirname } from 'node:path';
import { parseKubeconfig } from '../../certs/index.js';
import type { Gateway } from '../../gateway/server/gateway.js';
import { BUILTIN_GROUPS } from '../../translate/context.js';
import { ApiClient, type ApiResponse } from '../support/api-client.js';
import { waitUntil, type WaitOptions } from '../support/eventually.js';
import { testSeed } from '../support/seed.js';
import { startStage, type Stage } from '../support/stage.js';

type Json = Record<string, any>;

/** The seed the operations have always been drawn with; PADDOCK_TEST_SEED replaces it (test/support/seed.ts). */
const PINNED_SEED = 424242;
const OPS_PER_TENANT = 1500;
/** How long a tenant's view may take to settle (a controller's pass, a watch's delivery). */
const SETTLES: WaitOptions = { timeout: 20_000 };
/** Tenant ids with letters that are not hex digits, so no uid, hash or resourceVersion can contain them by chance. */
const IDS = ['qxaaaa', 'qxbbbb'] as const;
const OWNER = 'paddock.test/owner';
/** The ServiceAccount whose token is each tenant's second credential (a name outside the operations' pool). */
const TOKEN_ACCOUNT = 'isolation-prop';
const RBAC = 'rbac.authorization.k8s.io';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const KUBE_NAMESPACES = ['kube-node-lease', 'kube-public', 'kube-system'];
const LABEL_SELECTORS = ['', 'tier=web', 'tier!=web', 'app in (alpha,beta)', 'tier', '!tier'];
const DISCOVERY_KINDS = new Set([
  'APIVersions',
  'APIGroupList',
  'APIGroup',
  'APIResourceList',
  'APIGroupDiscoveryList',
]);
const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** Set in `before`, where the operations are drawn: the seed, and how to replay it for every failure message. */
let seed = PINNED_SEED;
let seedNote = '';
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const b64 = (s: string) => Buffer.from(s).toString('base64');
const tierOf = (v: number) => (v % 2 ? 'db' : 'web');

// ---------------------------------------------------------------------------------------------
/** What the gateway writes into a tenant's pods and templates upstream, which the tenant never reads back. */
const POD_API_ADDED = ['"paddock.io/', 'KUBERNETES_SERVICE_HOST', 'kube-api-access-'];

// The leak detector (pure, self-checked below)

interface LeakKeys {
  /** The receiving tenant's own strings that contain the other tenant's id (its look-alike names). */
  lookalike: RegExp;
  /** What must never reach the receiver: the other tenant's id and secret token. */
  forbidden: string[];
}

function leakKeys(other: string, otherToken: string): LeakKeys {
  // Kebab forms as the tenant wrote them (not followed by more name characters, so `<other>-xyz`,
  // which the receiver never wrote, is not masked), the names the workload controllers derive from
  // the tenant's Deployment `<other>-x` (its ReplicaSet `<other>-x-<hash>` and their pods
  // `<…>-<5 random>`, in the alphabet of generated names), and the joined form kube derives from a
  // group for OpenAPI operation ids and tags (`listQxbbbbToolsExampleComV1Gadget`).
  return {
    lookalike: new RegExp(
      `${other}-(?:x(?:-[bcdfghjklmnpqrstvwxz2456789]+){0,2}|default|tools|things)(?![A-Za-z0-9_-])|${other}tools`,
      'gi',
    ),
    forbidden: [other, otherToken],
  };
}

/** Excerpts of `text` where a forbidden string appears after the receiver's own look-alikes are masked. */
function leaksIn(keys: LeakKeys, text: string): string[] {
  const masked = text.replace(keys.lookalike, '\u2592');
  const lower = masked.toLowerCase();
  const hits: string[] = [];
  for (const needle of keys.forbidden) {
    for (let at = lower.indexOf(needle); at >= 0 && hits.length < 5; at = lower.indexOf(needle, at + 1)) {
      hits.push(`…${masked.slice(Math.max(0, at - 80), at + needle.length + 80)}…`);
    }
  }
  return hits;
}

/** A continue token decoded as far as possible (it should be opaque: sealed with AES-GCM). */
function decodedToken(token: string): string {
  return Buffer.from(token, 'base64url').toString('latin1');
}

// ---------------------------------------------------------------------------------------------
// Kinds, names and the model

interface KindSpec {
  key: string;
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  /** Everything but apiVersion, kind and metadata. */
  body?: (name: string, v: number) => Json;
  /** Extra merge-patch fields (labels and annotations are always patched). */
  patch?: (v: number) => Json;
  /** Extra JSON-patch operations. */
  ops?: (v: number) => Json[];
}

const apiPath = (k: KindSpec) => (k.group ? `/apis/${k.group}/${k.version}` : `/api/${k.version}`);
const apiVersionOf = (k: KindSpec) => (k.group ? `${k.group}/${k.version}` : k.version);
const collection = (k: KindSpec, ns?: string) =>
  k.namespaced && ns !== undefined ? `${apiPath(k)}/namespaces/${ns}/${k.resource}` : `${apiPath(k)}/${k.resource}`;
const qualified = (k: KindSpec) => (k.group ? `${k.resource}.${k.group}` : k.resource);

type State = 'yes' | 'no' | 'unknown';
interface Entry {
  kind: string;
  ns?: string;
  name: string;
  state: State;
  labels: Record<string, string>;
}

interface RawEvent {
  type: string;
  object: Json;
}

/** A watch read line by line, keeping the raw lines for the leak scan. */
class Watch {
  readonly lines: string[] = [];
  readonly events: RawEvent[] = [];
  readonly malformed: string[] = [];
  status = 0;
  ended = false;
  headersText = '';
  private buffer = '';
  private readonly req: ClientRequest;
  readonly ready: Promise<void>;

  constructor(
    client: ApiClient,
    readonly spec: WatchSpec,
  ) {
    this.req = client.open('GET', spec.path, { Accept: spec.table ? TABLE : 'application/json' });
    this.ready = new Promise((resolve, reject) => {
      this.req.on('response', (res) => {
        this.status = res.statusCode ?? 0;
        this.headersText = Object.entries(res.headers)
          .map(([k, v]) => `${k}: ${String(v)}`)
          .join('\n');
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          this.buffer += chunk;
          let newline: number;
          while ((newline = this.buffer.indexOf('\n')) >= 0) {
            const line = this.buffer.slice(0, newline);
            this.buffer = this.buffer.slice(newline + 1);
            if (!line.trim()) continue;
            this.lines.push(line);
            try {
              this.events.push(JSON.parse(line));
            } catch {
              this.malformed.push(line.slice(0, 300));
            }
          }
        });
        res.on('error', () => undefined);
        res.on('close', () => (this.ended = true));
        resolve();
      });
      this.req.on('error', (err) => (this.status ? undefined : reject(err)));
    });
    this.req.end();
  }

  close(): void {
    this.req.destroy();
  }
}

/** An object kube-controller-manager makes in every namespace, which the operations do not track. */
function madeByTheCluster(kind: string, object: Json): boolean {
  return kind === 'configmaps' && object?.metadata?.name === 'kube-root-ca.crt';
}

interface WatchSpec {
  path: string;
  kind: string;
  ns?: string;
  table?: boolean;
}

interface Tenant {
  id: string;
  other: string;
  token: string;
  client: ApiClient;
  /**
   * The same tenant with a ServiceAccount token (bound to its cluster-admin by a
   * ClusterRoleBinding, its token from `serviceaccounts/<sa>/token` through the gateway): every
   * other request goes with it instead of the certificate.
   */
  tokenClient?: ApiClient;
  /** The gateway's CA, from the tenant's kubeconfig. */
  caPem: string;
  /** Requests sent with the token. */
  tokenRequests: number;
  keys: LeakKeys;
  nsPool: string[];
  names: string[];
  kinds: KindSpec[];
  model: Map<string, Entry>;
  /** uids of objects this tenant created (201), with kind and namespace. */
  created: { kind: string; ns?: string; uid: string }[];
  /** Every uid any response to this tenant carried. */
  uids: Set<string>;
  continueTokens: string[];
  watches: Watch[];
  initialWatchUids: Map<Watch, Set<string>>;
  leaks: string[];
  exposures: string[];
  failures: string[];
  requests: number;
  /** Requests by method and status, for the summary line. */
  stats: Map<string, number>;
}

function namesFor(other: string, token: string) {
  return {
    nsPool: ['default', 'ns-red', 'ns-blue', `${other}-default`, `n${token}`],
    names: ['alpha', 'beta', 'gamma', `${other}-x`, `u${token}`],
  };
}

function kindsFor(t: Pick<Tenant, 'other' | 'token' | 'nsPool' | 'names'>): KindSpec[] {
  const subjects = (v: number) => [
    { kind: 'User', apiGroup: RBAC, name: ['alice', `${t.other}-x`, 'system:serviceaccount:ns-red:robot'][v % 3] },
    { kind: 'ServiceAccount', name: 'robot', namespace: t.nsPool[1 + (v % 4)] },
    { kind: 'Group', apiGroup: RBAC, name: ['devs', 'system:authenticated'][v % 2] },
  ];
  const gadget = (group: string, key: string): KindSpec => ({
    key,
    group,
    version: 'v1',
    resource: 'gadgets',
    kind: 'Gadget',
    namespaced: false,
    body: (_name, v) => ({ spec: { owner: t.token, v } }),
    patch: (v) => ({ spec: { v } }),
    ops: (v) => [{ op: 'add', path: '/spec/v', value: v + 1 }],
  });
  return [
    {
      key: 'configmaps',
      group: '',
      version: 'v1',
      resource: 'configmaps',
      kind: 'ConfigMap',
      namespaced: true,
      body: (_name, v) => ({ data: { owner: t.token, v: String(v) } }),
      patch: (v) => ({ data: { v: String(v) } }),
      ops: (v) => [
        { op: 'replace', path: '/data/owner', value: t.token },
        { op: 'add', path: '/data/v', value: String(v) },
      ],
    },
    {
      key: 'secrets',
      group: '',
      version: 'v1',
      resource: 'secrets',
      kind: 'Secret',
      namespaced: true,
      body: () => ({ type: 'Opaque', data: { owner: b64(t.token) } }),
      patch: (v) => ({ data: { v: b64(String(v)) } }),
      ops: (v) => [{ op: 'add', path: '/data/v', value: b64(String(v)) }],
    },
    {
      key: 'services',
      group: '',
      version: 'v1',
      resource: 'services',
      kind: 'Service',
      namespaced: true,
      body: (name, v) => ({ spec: { selector: { app: name }, ports: [{ port: 80 + (v % 3), protocol: 'TCP' }] } }),
      patch: (v) => ({ spec: { ports: [{ port: 90 + (v % 3), protocol: 'TCP' }] } }),
      ops: (v) => [{ op: 'replace', path: '/spec/ports/0/port', value: 100 + (v % 3) }],
    },
    {
      key: 'deployments',
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      kind: 'Deployment',
      namespaced: true,
      body: (name, v) => ({
        spec: {
          replicas: 1 + (v % 2),
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: {
              containers: [
                {
                  name: 'app',
                  image: `registry.example/${t.token}:1`,
                  env: [{ name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
                },
              ],
              // A token for an audience of its own, for one that names the other tenant, or for its API (none).
              volumes: [
                {
                  name: 'aud',
                  projected: {
                    sources: [
                      {
                        serviceAccountToken: {
                          path: 't',
                          ...[{ audience: 'vault' }, { audience: `${t.other}-tools` }, {}][v % 3],
                        },
                      },
                    ],
                  },
                },
              ],
            },
          },
        },
      }),
      // Some patches would let the cluster mount its own token: the field unset, the gateway's volume gone.
      patch: (v) => ({
        spec: {
          replicas: v % 3,
          ...(v % 4 === 0 ? { template: { spec: { automountServiceAccountToken: null } } } : {}),
        },
      }),
      ops: (v) => [
        { op: 'replace', path: '/spec/replicas', value: v % 4 },
        { op: 'replace', path: '/spec/template/spec/containers/0/env', value: [{ name: 'V', value: String(v) }] },
        ...(v % 4 === 1 ? [{ op: 'remove', path: '/spec/template/spec/automountServiceAccountToken' }] : []),
      ],
    },
    {
      key: 'widgets',
      group: 'example.com',
      version: 'v1',
      resource: 'widgets',
      kind: 'Widget',
      namespaced: true,
      body: (_name, v) => ({ spec: { owner: t.token, size: v } }),
      patch: (v) => ({ spec: { size: v } }),
      ops: (v) => [{ op: 'add', path: '/spec/size', value: v + 1 }],
    },
    { key: 'namespaces', group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false },
    {
      key: 'clusterroles',
      group: RBAC,
      version: 'v1',
      resource: 'clusterroles',
      kind: 'ClusterRole',
      namespaced: false,
      body: (_name, v) => ({
        rules: [
          {
            apiGroups: ['', ['example.com', 'tools.example.com', `${t.other}-tools.example.com`][v % 3]],
            resources: ['configmaps', 'widgets', 'gadgets'],
            verbs: ['get', 'list'],
          },
        ],
      }),
      patch: () => ({
        rules: [{ apiGroups: [`${t.other}-tools.example.com`], resources: ['gadgets'], verbs: ['watch'] }],
      }),
      ops: () => [
        {
          op: 'add',
          path: '/rules/-',
          value: { apiGroups: ['tools.example.com'], resources: ['gadgets'], verbs: ['get'] },
        },
      ],
    },
    {
      key: 'clusterrolebindings',
      group: RBAC,
      version: 'v1',
      resource: 'clusterrolebindings',
      kind: 'ClusterRoleBinding',
      namespaced: false,
      body: (_name, v) => ({
        roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: t.names[v % t.names.length] },
        subjects: subjects(v),
      }),
      patch: (v) => ({ subjects: subjects(v + 1) }),
      ops: (v) => [{ op: 'add', path: '/subjects/-', value: { kind: 'User', apiGroup: RBAC, name: `carol${v % 3}` } }],
    },
    {
      key: 'persistentvolumes',
      group: '',
      version: 'v1',
      resource: 'persistentvolumes',
      kind: 'PersistentVolume',
      namespaced: false,
      body: (_name, v) => ({
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Retain',
          hostPath: { path: `/tmp/${t.token}` },
          storageClassName: t.names[v % t.names.length],
          claimRef: { namespace: t.nsPool[1 + (v % 4)], name: `claim-${v % 3}` },
        },
      }),
      patch: (v) => ({ spec: { storageClassName: t.names[(v + 1) % t.names.length] } }),
      ops: (v) => [{ op: 'replace', path: '/spec/storageClassName', value: t.names[(v + 2) % t.names.length] }],
    },
    {
      key: 'storageclasses',
      group: 'storage.k8s.io',
      version: 'v1',
      resource: 'storageclasses',
      kind: 'StorageClass',
      namespaced: false,
      body: () => ({ provisioner: 'paddock.test/fake', parameters: { owner: t.token }, reclaimPolicy: 'Delete' }),
    },
    {
      key: 'priorityclasses',
      group: 'scheduling.k8s.io',
      version: 'v1',
      resource: 'priorityclasses',
      kind: 'PriorityClass',
      namespaced: false,
      body: (_name, v) => ({ value: 1000 + v, description: `priority of ${t.token}` }),
    },
    {
      // Its target is a name in its own namespace the tenant never makes, so the HPA controller
      // scales nothing the model tracks; one name looks like the other tenant's (a masked look-alike).
      key: 'horizontalpodautoscalers',
      group: 'autoscaling',
      version: 'v2',
      resource: 'horizontalpodautoscalers',
      kind: 'HorizontalPodAutoscaler',
      namespaced: true,
      body: (_name, v) => ({
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: [`${t.other}-x`, 'absent'][v % 2] },
          minReplicas: 1,
          maxReplicas: 2 + (v % 3),
        },
      }),
      patch: (v) => ({ spec: { maxReplicas: 5 + (v % 3) } }),
      ops: (v) => [{ op: 'replace', path: '/spec/maxReplicas', value: 8 + (v % 3) }],
    },
    gadget('tools.example.com', 'gadgets'),
    gadget(`${t.other}-tools.example.com`, 'lookalike-gadgets'),
  ];
}

/** The CRDs every tenant creates: the same group as the other, a group like the other's prefix, a plural like it. */
function crdsFor(t: Pick<Tenant, 'other' | 'token'>): Json[] {
  const crd = (group: string, plural: string, kind: string, scope: string, short: string) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, annotations: { [OWNER]: t.token } },
    spec: {
      group,
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, shortNames: [`${short}${t.token}`] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: `${kind} of ${t.token}`,
              'x-kubernetes-preserve-unknown-fields': true,
            },
          },
        },
      ],
    },
  });
  return [
    crd('example.com', 'widgets', 'Widget', 'Namespaced', 'w'),
    crd('tools.example.com', 'gadgets', 'Gadget', 'Cluster', 'g'),
    crd(`${t.other}-tools.example.com`, 'gadgets', 'Gadget', 'Cluster', 'h'),
    crd('stuff.example.com', `${t.other}-things`, 'Thing', 'Namespaced', 't'),
  ];
}

const ownGroups = (t: Pick<Tenant, 'other'>) =>
  ['example.com', 'stuff.example.com', 'tools.example.com', `${t.other}-tools.example.com`].sort();
const ownCrdNames = (t: Pick<Tenant, 'other'>) =>
  crdsFor({ other: t.other, token: '' })
    .map((c) => c.metadata.name as string)
    .sort();

// ---------------------------------------------------------------------------------------------
// Operations

type ObjectVerb = 'create' | 'get' | 'merge' | 'json' | 'directive' | 'put' | 'stale' | 'delete';
type Op =
  | { t: ObjectVerb; k: number; ns: number; n: number; v: number }
  | {
      t: 'list';
      k: number;
      ns: number;
      all: boolean;
      limit: number;
      label: number;
      field: number;
      table: boolean;
      v: number;
    }
  | { t: 'discovery'; d: number }
  | { t: 'error'; e: number; k: number; v: number };

const KIND_COUNT = 14;
const DISCOVERY_COUNT = 16;
const ERROR_COUNT = 12;
/** Paths only the admin reaches: a tenant gets 403 and none of what they hold. */
const ADMIN_PATHS = [
  '/apis/tenant.kubezoo.io/v1alpha1/tenants',
  '/apis/cluster.karmada.io/v1alpha1/clusters',
  '/apis/search.karmada.io/v1alpha1/resourceregistries',
  '/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy/api/v1/configmaps',
  '/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy/api/v1/namespaces/default/secrets',
  '/apis/search.karmada.io/v1alpha1/search/cache/api/v1/configmaps',
  '/api/v1/namespaces/karmada-cluster/secrets',
];

const nat = (n: number) => fc.nat({ max: n - 1 });
const objectOp = (t: ObjectVerb): fc.Arbitrary<Op> =>
  fc.record({ t: fc.constant(t), k: nat(KIND_COUNT), ns: nat(5), n: nat(5), v: nat(1000) });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: objectOp('create'), weight: 28 },
  { arbitrary: objectOp('get'), weight: 12 },
  {
    arbitrary: fc.record({
      t: fc.constant('list' as const),
      k: nat(KIND_COUNT),
      ns: nat(5),
      all: fc.boolean(),
      limit: nat(5),
      label: nat(LABEL_SELECTORS.length),
      field: nat(4),
      table: fc.boolean(),
      v: nat(1000),
    }),
    weight: 20,
  },
  { arbitrary: objectOp('merge'), weight: 8 },
  { arbitrary: objectOp('json'), weight: 8 },
  { arbitrary: objectOp('directive'), weight: 4 },
  { arbitrary: objectOp('put'), weight: 4 },
  { arbitrary: objectOp('stale'), weight: 2 },
  { arbitrary: objectOp('delete'), weight: 9 },
  { arbitrary: fc.record({ t: fc.constant('discovery' as const), d: nat(DISCOVERY_COUNT) }), weight: 4 },
  {
    arbitrary: fc.record({ t: fc.constant('error' as const), e: nat(ERROR_COUNT), k: nat(KIND_COUNT), v: nat(1000) }),
    weight: 5,
  },
);
const tokenArb = fc.stringMatching(/^zq[g-z]{6}$/);

// ---------------------------------------------------------------------------------------------

describe('gateway: tenant isolation under random operations (property)', function () {
  this.timeout(180_000);
  let stage: Stage;
  let gateway: Gateway;
  let upstreamAdmin: ApiClient;
  const tenants: Tenant[] = [];
  let plans: Op[][] = [];

  // ---- recording every response ----

  function record(t: Tenant, where: string, text: string, headersText: string, body: unknown): void {
    for (const hit of leaksIn(t.keys, `${text}\n${headersText}`)) t.leaks.push(`${where}: ${hit}`);
    // The tenant never writes its own prefix: seeing it means an upstream name escaped translation.
    // (Its user name, `<tid>-admin` from its certificate, is its own to see.)
    const own = text.replace(new RegExp(`${t.id}-admin(?![A-Za-z0-9_-])`, 'g'), '').indexOf(`${t.id}-`);
    if (own >= 0) t.exposures.push(`${where}: …${text.slice(Math.max(0, own - 100), own + 60)}…`);
    // Nor what the gateway adds to a pod template to point its pods at itself (translate/kinds/pod-api.ts).
    for (const added of POD_API_ADDED) {
      const at = text.indexOf(added);
      if (at >= 0) t.exposures.push(`${where}: …${text.slice(Math.max(0, at - 100), at + 60)}…`);
    }
    const token = isObj(body) && isObj(body.metadata) ? body.metadata.continue : undefined;
    if (typeof token === 'string' && token) {
      t.continueTokens.push(token);
      for (const hit of leaksIn(t.keys, decodedToken(token))) t.leaks.push(`${where} (continue token): ${hit}`);
    }
    if (!where.includes(' /openapi/')) collectUids(body, t.uids);
  }

  function collectUids(node: unknown, into: Set<string>): void {
    if (Array.isArray(node)) return node.forEach((n) => collectUids(n, into));
    if (!isObj(node)) return;
    if (isObj(node.metadata) && typeof node.metadata.uid === 'string') into.add(node.metadata.uid);
    for (const value of Object.values(node)) if (typeof value === 'object') collectUids(value, into);
  }

  function wellFormed(res: ApiResponse, path: string): string | undefined {
    if (res.status >= 500) return `HTTP ${res.status}`;
    const b = res.body;
    if (!isObj(b)) return `body is not a JSON object: ${res.text.slice(0, 200)}`;
    if (res.status >= 400) {
      return b.kind === 'Status' && b.code === res.status && b.status === 'Failure' && typeof b.message === 'string'
        ? undefined
        : `error body is not a Status with code ${res.status}`;
    }
    if (path.startsWith('/openapi/v3'))
      return isObj(b.paths) && (path === '/openapi/v3' || typeof b.openapi === 'string')
        ? undefined
        : 'not an OpenAPI document';
    if (typeof b.kind !== 'string') return 'no kind';
    if (b.kind === 'Status') return b.status === 'Success' ? undefined : 'a 2xx Status that is not Success';
    if (DISCOVERY_KINDS.has(b.kind)) return undefined;
    if (typeof b.apiVersion !== 'string') return 'no apiVersion';
    if (b.kind === 'Table')
      return Array.isArray(b.columnDefinitions) && Array.isArray(b.rows) ? undefined : 'malformed Table';
    if (b.kind.endsWith('List')) return Array.isArray(b.items) && isObj(b.metadata) ? undefined : 'malformed list';
    return isObj(b.metadata) && typeof b.metadata.name === 'string' ? undefined : 'object without metadata.name';
  }

  async function call(
    t: Tenant,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> {
    // The generator must never make a tenant write the other's id (outside its look-alikes) or token.
    const sent = `${path}\n${body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body)}`;
    if (leaksIn(t.keys, sent).length)
      t.failures.push(`test bug: ${t.id} would send another tenant's strings: ${sent.slice(0, 300)}`);
    const client = t.tokenClient && t.requests % 2 === 1 ? t.tokenClient : t.client;
    if (client === t.tokenClient) t.tokenRequests++;
    const res = await client.request(method, path, body, headers);
    t.requests++;
    const stat = `${method} ${res.status}`;
    t.stats.set(stat, (t.stats.get(stat) ?? 0) + 1);
    const where = `${t.id} ${method} ${path}`;
    record(
      t,
      where,
      res.text,
      Object.entries(res.headers)
        .map(([k, v]) => `${k}: ${String(v)}`)
        .join('\n'),
      res.body,
    );
    const problem = wellFormed(res, path.split('?')[0]);
    if (problem) t.failures.push(`${where}: malformed answer: ${problem}`);
    return res;
  }

  // ---- the model ----

  const keyOf = (k: KindSpec, ns: string | undefined, name: string) => `${k.key}|${ns ?? ''}|${name}`;

  function entry(t: Tenant, k: KindSpec, ns: string | undefined, name: string): Entry {
    const key = keyOf(k, ns, name);
    let e = t.model.get(key);
    if (!e) t.model.set(key, (e = { kind: k.key, ns, name, state: 'no', labels: {} }));
    return e;
  }

  const namespaceKind = (t: Tenant) => t.kinds.find((k) => k.key === 'namespaces')!;
  const nsState = (t: Tenant, ns: string): State => entry(t, namespaceKind(t), undefined, ns).state;

  /** A namespace is being deleted: what was in it may or may not be there. */
  function namespaceDeleted(t: Tenant, ns: string): void {
    for (const e of t.model.values()) if (e.ns === ns && e.state === 'yes') e.state = 'unknown';
  }

  /** A namespace is known gone or freshly created: nothing of the old one is left. */
  function namespaceFresh(t: Tenant, ns: string): void {
    for (const e of t.model.values()) if (e.ns === ns && e.state === 'unknown') e.state = 'no';
  }

  function target(t: Tenant, k: KindSpec, op: { ns: number; n: number }): { ns?: string; name: string } {
    if (k.key === 'namespaces') return { name: t.nsPool[op.ns] };
    return k.namespaced ? { ns: t.nsPool[op.ns], name: t.names[op.n] } : { name: t.names[op.n] };
  }

  function objectBody(t: Tenant, k: KindSpec, ns: string | undefined, name: string, v: number): Json {
    return {
      apiVersion: apiVersionOf(k),
      kind: k.kind,
      metadata: {
        name,
        ...(ns !== undefined ? { namespace: ns } : {}),
        labels: { app: name, tier: tierOf(v) },
        annotations: { [OWNER]: t.token },
      },
      ...(k.body?.(name, v) ?? {}),
    };
  }

  /**
   * `got` has every field of `want` (arrays element by element; null means no value: absent, or
   * null as Go prints a field it always prints, such as a template's creationTimestamp).
   */
  function containsDeep(got: unknown, want: unknown, path = ''): string | undefined {
    if (Array.isArray(want)) {
      if (!Array.isArray(got) || got.length !== want.length)
        return `${path}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`;
      for (let i = 0; i < want.length; i++) {
        const d = containsDeep(got[i], want[i], `${path}[${i}]`);
        if (d) return d;
      }
      return undefined;
    }
    if (isObj(want)) {
      if (!isObj(got)) return `${path}: expected an object, got ${JSON.stringify(got)}`;
      for (const [key, value] of Object.entries(want)) {
        if (value === null) {
          if (got[key] !== undefined && got[key] !== null)
            return `${path}.${key}: expected absent, got ${JSON.stringify(got[key])}`;
          continue;
        }
        const d = containsDeep(got[key], value, `${path}.${key}`);
        if (d) return d;
      }
      return undefined;
    }
    return got === want ? undefined : `${path}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`;
  }

  /** The answer is this tenant's object, as it named it. */
  function checkIdentity(
    t: Tenant,
    k: KindSpec,
    ns: string | undefined,
    name: string,
    body: Json,
    where: string,
    ours: boolean,
  ): void {
    const meta = isObj(body?.metadata) ? body.metadata : {};
    const problems: string[] = [];
    if (body?.kind !== k.kind) problems.push(`kind ${JSON.stringify(body?.kind)}`);
    if (body?.apiVersion !== apiVersionOf(k)) problems.push(`apiVersion ${JSON.stringify(body?.apiVersion)}`);
    if (meta.name !== name) problems.push(`name ${JSON.stringify(meta.name)}`);
    if ((meta.namespace ?? undefined) !== ns) problems.push(`namespace ${JSON.stringify(meta.namespace)}`);
    if (ours && meta.annotations?.[OWNER] !== t.token)
      problems.push(`owner annotation ${JSON.stringify(meta.annotations?.[OWNER])}`);
    if (problems.length)
      t.failures.push(`${where}: not the tenant's ${k.kind} ${ns ?? ''}/${name}: ${problems.join(', ')}`);
  }

  function expectStatus(t: Tenant, where: string, res: ApiResponse, allowed: number[]): boolean {
    if (allowed.includes(res.status)) return true;
    t.failures.push(`${where}: HTTP ${res.status}, expected ${allowed.join(' or ')}: ${res.text.slice(0, 300)}`);
    return false;
  }

  /** Expected answers by model state. */
  function allowedFor(verb: 'get' | 'write' | 'delete', state: State, k: KindSpec): number[] {
    if (state === 'yes') return [200];
    if (state === 'no') return [404];
    if (verb === 'delete' && k.key === 'namespaces') return [200, 404, 409];
    return verb === 'write' ? [200, 404, 409] : [200, 404];
  }

  // ---- executing one operation ----

  async function execute(t: Tenant, op: Op, index: number): Promise<void> {
    const tag = `${t.id} op#${index} ${JSON.stringify(op)}`;
    switch (op.t) {
      case 'list':
        return list(t, op, tag);
      case 'discovery':
        return discovery(t, op.d, tag);
      case 'error':
        return errorPath(t, op, tag);
      default:
        return objectOperation(t, op, tag);
    }
  }

  async function objectOperation(t: Tenant, op: Extract<Op, { t: ObjectVerb }>, tag: string): Promise<void> {
    const k = t.kinds[op.k];
    const { ns, name } = target(t, k, op);
    const e = entry(t, k, ns, name);
    const ns0 = ns === undefined ? 'yes' : nsState(t, ns);
    const path = `${collection(k, ns)}/${name}`;
    const where = `${tag} ${path}`;
    const ours = !(k.key === 'namespaces' && name === 'default');
    // kube refuses to delete `default` (403); the devcluster and the gateway do not, which is not
    // what this test is about, so the tenant's default namespace stays.
    const verb = op.t === 'delete' && !ours ? 'get' : op.t;
    switch (verb) {
      case 'create': {
        const body = objectBody(t, k, ns, name, op.v);
        const res = await call(t, 'POST', collection(k, ns), body);
        let allowed: number[];
        if (ns0 === 'no') allowed = [404];
        else if (ns0 === 'unknown') allowed = [201, 403, 404, 409];
        else allowed = e.state === 'yes' ? [409] : e.state === 'no' ? [201] : [201, 409];
        if (k.key === 'namespaces' && e.state === 'unknown') allowed = [201, 409];
        if (!expectStatus(t, where, res, allowed)) break;
        if (res.status === 201) {
          checkIdentity(t, k, ns, name, res.body, where, true);
          const diff = containsDeep(res.body, body);
          if (diff) t.failures.push(`${where}: the created object does not echo what was sent: ${diff}`);
          if (k.key === 'namespaces') namespaceFresh(t, name);
          e.state = 'yes';
          e.labels = { ...body.metadata.labels };
          t.created.push({ kind: k.key, ns, uid: res.body.metadata.uid });
        } else if (res.status === 404 && ns !== undefined) {
          entry(t, namespaceKind(t), undefined, ns).state = 'no';
          namespaceFresh(t, ns);
        } else if (res.status === 409 && ns0 === 'yes' && k.key !== 'namespaces') {
          e.state = 'yes';
        }
        break;
      }
      case 'get': {
        const res = await call(t, 'GET', path);
        if (!expectStatus(t, where, res, allowedFor('get', e.state, k))) break;
        if (res.status === 200) checkIdentity(t, k, ns, name, res.body, where, ours);
        else if (res.status === 404) {
          if (res.body?.message !== `${qualified(k)} "${name}" not found`)
            t.failures.push(`${where}: NotFound message ${JSON.stringify(res.body?.message)}`);
          e.state = 'no';
          if (k.key === 'namespaces') namespaceFresh(t, name);
        }
        break;
      }
      case 'merge': {
        const tier = [tierOf(op.v), tierOf(op.v + 1), null][op.v % 3]!;
        const patch = {
          metadata: { labels: { tier }, annotations: { 'paddock.test/v': String(op.v) } },
          ...(k.patch?.(op.v) ?? {}),
        };
        const res = await call(t, 'PATCH', path, patch, { 'Content-Type': 'application/merge-patch+json' });
        if (!expectStatus(t, where, res, allowedFor('write', e.state, k))) break;
        if (res.status === 200) {
          checkIdentity(t, k, ns, name, res.body, where, ours);
          const diff = containsDeep(res.body, patch);
          if (diff) t.failures.push(`${where}: the patched object does not show the merge patch: ${diff}`);
          if (tier === null) delete e.labels.tier;
          else e.labels.tier = tier;
        } else if (res.status === 404) e.state = 'no';
        break;
      }
      case 'json': {
        const tier = tierOf(op.v);
        const ops = [
          { op: 'test', path: '/metadata/name', value: name },
          { op: 'add', path: '/metadata/labels/tier', value: tier },
          ...(k.ops?.(op.v) ?? []),
        ];
        const res = await call(t, 'PATCH', path, ops, { 'Content-Type': 'application/json-patch+json' });
        if (!expectStatus(t, where, res, allowedFor('write', e.state, k))) break;
        if (res.status === 200) {
          checkIdentity(t, k, ns, name, res.body, where, ours);
          for (const o of ops) {
            const segments = o.path
              .split('/')
              .slice(1)
              .map((s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
            let node: any = res.body;
            for (const s of segments)
              node = Array.isArray(node) ? node[s === '-' ? node.length - 1 : Number(s)] : node?.[s];
            const diff = containsDeep(node, o.value, o.path);
            if (diff) t.failures.push(`${where}: the JSON patch ${o.op} ${o.path} is not reflected: ${diff}`);
          }
          e.labels.tier = tier;
        } else if (res.status === 404) e.state = 'no';
        break;
      }
      case 'directive': {
        // Patches that could undo the conversion rules: a copy or move of an isolation-critical
        // field is refused before anything is sent; a remove or a `$patch` directive is checked
        // on the upstream's dry-run result. Custom resources take no strategic merge (415).
        const attacks: { type: string; body: unknown; allowed: number[] }[] = [
          {
            type: 'application/json-patch+json',
            body: [
              {
                op: 'copy',
                from: k.namespaced ? '/metadata/namespace' : '/metadata/name',
                path: '/metadata/labels/copied',
              },
            ],
            allowed: [403],
          },
          {
            type: 'application/json-patch+json',
            body: [{ op: 'move', from: '/metadata/ownerReferences', path: '/metadata/labels/moved' }],
            allowed: [403],
          },
          {
            type: 'application/json-patch+json',
            body: [{ op: 'remove', path: '/metadata/ownerReferences' }],
            allowed: [...allowedFor('write', e.state, k), 422],
          },
          {
            type: 'application/strategic-merge-patch+json',
            body: { metadata: { ownerReferences: [{ $patch: 'replace' }], '$setElementOrder/finalizers': [] } },
            allowed: [...allowedFor('write', e.state, k), 415],
          },
        ];
        if (k.key === 'deployments')
          attacks.push({
            type: 'application/strategic-merge-patch+json',
            body: {
              spec: {
                template: {
                  spec: { $patch: 'replace', containers: [{ name: 'app', image: `registry.example/${t.token}:2` }] },
                },
              },
            },
            allowed: allowedFor('write', e.state, k),
          });
        const attack = attacks[op.v % attacks.length];
        const res = await call(t, 'PATCH', path, attack.body, { 'Content-Type': attack.type });
        if (!expectStatus(t, where, res, attack.allowed)) break;
        if (res.status === 200) checkIdentity(t, k, ns, name, res.body, where, ours);
        else if (res.status === 404) e.state = 'no';
        break;
      }
      case 'put':
      case 'stale': {
        const got = await call(t, 'GET', path);
        if (!expectStatus(t, where, got, allowedFor('get', e.state, k))) break;
        if (got.status !== 200) {
          e.state = 'no';
          break;
        }
        const tier = tierOf(op.v);
        const object = structuredClone(got.body);
        object.metadata.labels = { ...(object.metadata.labels ?? {}), tier };
        if (op.t === 'stale') object.metadata.resourceVersion = '1';
        const res = await call(t, 'PUT', path, object);
        const allowed = op.t === 'stale' ? (e.state === 'yes' ? [409] : [404, 409]) : allowedFor('write', e.state, k);
        if (!expectStatus(t, where, res, allowed)) break;
        if (res.status === 200) {
          checkIdentity(t, k, ns, name, res.body, where, ours);
          const diff = containsDeep(res.body, {
            metadata: { labels: object.metadata.labels },
            ...(k.body ? Object.fromEntries(Object.keys(k.body(name, 0)).map((f) => [f, object[f]])) : {}),
          });
          if (diff) t.failures.push(`${where}: the replaced object does not echo what was sent: ${diff}`);
          e.labels.tier = tier;
        } else if (res.status === 409 && op.t === 'stale' && res.body?.reason !== 'Conflict') {
          t.failures.push(`${where}: a stale update answered 409 ${res.body?.reason}, expected Conflict`);
        }
        break;
      }
      case 'delete': {
        const res = await call(t, 'DELETE', path);
        if (!expectStatus(t, where, res, allowedFor('delete', e.state, k))) break;
        if (res.status === 200) {
          if (res.body?.kind !== 'Status') checkIdentity(t, k, ns, name, res.body, where, ours);
          if (k.key === 'namespaces') {
            e.state = 'unknown';
            namespaceDeleted(t, name);
          } else e.state = 'no';
        } else if (res.status === 404) {
          e.state = 'no';
          if (k.key === 'namespaces') namespaceFresh(t, name);
        }
        break;
      }
    }
  }

  function labelMatch(i: number, labels: Record<string, string>): boolean {
    switch (i) {
      case 1:
        return labels.tier === 'web';
      case 2:
        return labels.tier !== 'web';
      case 3:
        return labels.app === 'alpha' || labels.app === 'beta';
      case 4:
        return 'tier' in labels;
      case 5:
        return !('tier' in labels);
      default:
        return true;
    }
  }

  interface FieldSel {
    text: string;
    match: (e: { ns?: string; name: string }) => boolean;
  }

  function fieldSelector(
    t: Tenant,
    k: KindSpec,
    op: Extract<Op, { t: 'list' }>,
    inNamespace: boolean,
  ): FieldSel | undefined {
    const pool = k.key === 'namespaces' ? t.nsPool : t.names;
    switch (op.field) {
      case 1: {
        const name = pool[op.v % pool.length];
        return { text: `metadata.name=${name}`, match: (e) => e.name === name };
      }
      case 2:
        return { text: 'metadata.name!=alpha', match: (e) => e.name !== 'alpha' };
      case 3: {
        if (!k.namespaced || inNamespace) return undefined;
        const ns = t.nsPool[op.v % t.nsPool.length];
        return { text: `metadata.namespace=${ns}`, match: (e) => e.ns === ns };
      }
      default:
        return undefined;
    }
  }

  /** Names in the model a list must return, or null when some are unknown. */
  function expectedList(
    t: Tenant,
    k: KindSpec,
    ns: string | undefined,
    label: number,
    field: FieldSel | undefined,
  ): string[] | null {
    if (ns !== undefined && nsState(t, ns) === 'unknown') return null;
    const out: string[] = [];
    for (const e of t.model.values()) {
      if (e.kind !== k.key || (ns !== undefined && e.ns !== ns)) continue;
      if (e.state === 'unknown') return null;
      if (e.state === 'yes' && labelMatch(label, e.labels) && (!field || field.match(e)))
        out.push(`${e.ns ?? ''}/${e.name}`);
    }
    return out.sort();
  }

  /** The names a list (or Table) returned, restricted to the names the tenant uses for this kind. */
  function listedNames(t: Tenant, k: KindSpec, body: Json): string[] {
    const pool = new Set(k.key === 'namespaces' ? [...t.nsPool, ...KUBE_NAMESPACES] : t.names);
    const metas: Json[] =
      body.kind === 'Table'
        ? (body.rows ?? []).map((r: Json) => r.object?.metadata ?? {})
        : (body.items ?? []).map((i: Json) => i.metadata ?? {});
    return metas
      .filter((m) => pool.has(m.name))
      .map((m) => `${m.namespace ?? ''}/${m.name}`)
      .sort();
  }

  /** Every page of a list; null when a page failed (recorded). */
  async function readList(
    t: Tenant,
    path: string,
    query: URLSearchParams,
    limit: number,
    table: boolean,
    where: string,
  ): Promise<Json | null> {
    const headers: Record<string, string> = table ? { Accept: TABLE } : {};
    let combined: Json | undefined;
    let token = '';
    for (let page = 0; page < 200; page++) {
      const q = new URLSearchParams(query);
      if (limit) q.set('limit', String(limit));
      if (token) q.set('continue', token);
      const qs = q.toString();
      const res = await call(t, 'GET', qs ? `${path}?${qs}` : path, undefined, headers);
      if (!expectStatus(t, where, res, [200])) return null;
      const body = res.body as Json;
      if (table && body.kind !== 'Table') t.failures.push(`${where}: asked for a Table, got ${body.kind}`);
      const entries: unknown[] = table ? body.rows : body.items;
      if (limit && entries.length > limit) t.failures.push(`${where}: page of ${entries.length} > limit ${limit}`);
      if (!combined) combined = body;
      else (table ? combined.rows : combined.items).push(...entries);
      token = body.metadata?.continue ?? '';
      if (!token) return combined;
      if (!limit) t.failures.push(`${where}: continue token without a limit`);
    }
    t.failures.push(`${where}: more than 200 pages`);
    return combined ?? null;
  }

  async function list(t: Tenant, op: Extract<Op, { t: 'list' }>, tag: string): Promise<void> {
    const k = t.kinds[op.k];
    const ns = k.namespaced && !op.all ? t.nsPool[op.ns] : undefined;
    const field = fieldSelector(t, k, op, ns !== undefined);
    const query = new URLSearchParams();
    if (op.label) query.set('labelSelector', LABEL_SELECTORS[op.label]);
    if (field) query.set('fieldSelector', field.text);
    const path = collection(k, ns);
    const where = `${tag} ${path}?${query.toString()}`;
    const body = await readList(t, path, query, op.limit, op.table, where);
    if (!body) return;
    if (!op.table && body.kind !== `${k.kind}List`) t.failures.push(`${where}: list kind ${body.kind}`);
    // Every entry is in scope and matches the selectors.
    const metas: Json[] = op.table
      ? body.rows.map((r: Json) => r.object?.metadata ?? {})
      : body.items.map((i: Json) => i.metadata ?? {});
    for (const m of metas) {
      if (ns !== undefined && m.namespace !== ns)
        t.failures.push(`${where}: item ${m.namespace}/${m.name} outside namespace ${ns}`);
      if (k.namespaced && typeof m.namespace !== 'string')
        t.failures.push(`${where}: item ${m.name} without namespace`);
      if (!k.namespaced && m.namespace !== undefined)
        t.failures.push(`${where}: cluster-scoped item ${m.name} with namespace ${m.namespace}`);
      if (!labelMatch(op.label, m.labels ?? {}))
        t.failures.push(
          `${where}: item ${m.namespace ?? ''}/${m.name} does not match ${LABEL_SELECTORS[op.label]} (labels ${JSON.stringify(m.labels)})`,
        );
      if (field && !field.match({ ns: m.namespace, name: m.name }))
        t.failures.push(`${where}: item ${m.namespace ?? ''}/${m.name} does not match ${field.text}`);
      if (m.annotations?.[OWNER] !== undefined && m.annotations[OWNER] !== t.token)
        t.failures.push(`${where}: item ${m.namespace ?? ''}/${m.name} owned by ${m.annotations[OWNER]}`);
    }
    const expected = expectedList(t, k, ns, op.label, field);
    if (expected) {
      const got = listedNames(t, k, body);
      if (JSON.stringify(got) !== JSON.stringify(expected))
        t.failures.push(`${where}: listed ${JSON.stringify(got)}, the model has ${JSON.stringify(expected)}`);
    }
  }

  /** Custom groups (not built into Kubernetes) a document names. */
  const customGroups = (groups: string[]) => [...new Set(groups.filter((g) => !BUILTIN_GROUPS.has(g)))].sort();

  function sameGroups(t: Tenant, where: string, got: string[], raw: string[]): void {
    const expected = ownGroups(t);
    if (JSON.stringify(got) !== JSON.stringify(expected))
      t.failures.push(`${where}: custom groups ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
    const custom = raw.filter((g) => !BUILTIN_GROUPS.has(g));
    const dupes = custom.filter((g, i) => custom.indexOf(g) !== i);
    if (dupes.length) t.failures.push(`${where}: groups listed twice: ${dupes.join(', ')}`);
  }

  async function discovery(t: Tenant, d: number, tag: string): Promise<void> {
    const where = (p: string) => `${tag} ${p}`;
    const get = async (p: string, headers: Record<string, string> = {}, expect = 200) => {
      const res = await call(t, 'GET', p, undefined, headers);
      return expectStatus(t, where(p), res, [expect]) ? res : null;
    };
    const lookalike = `${t.other}-tools.example.com`;
    switch (d) {
      case 0: {
        const res = await get('/api');
        if (res && res.body.kind !== 'APIVersions') t.failures.push(`${where('/api')}: kind ${res.body.kind}`);
        return;
      }
      case 1: {
        const res = await get('/api/v1');
        if (res && (res.body.groupVersion !== 'v1' || !res.body.resources.some((r: Json) => r.name === 'configmaps')))
          t.failures.push(`${where('/api/v1')}: not the core v1 resources`);
        return;
      }
      case 2: {
        const res = await get('/apis');
        if (res)
          sameGroups(
            t,
            where('/apis'),
            customGroups(res.body.groups.map((g: Json) => g.name)),
            res.body.groups.map((g: Json) => g.name),
          );
        return;
      }
      case 3: {
        const res = await get('/apis', { Accept: AGGREGATED });
        if (!res) return;
        if (res.body.kind !== 'APIGroupDiscoveryList')
          return void t.failures.push(`${where('/apis (aggregated)')}: kind ${res.body.kind}`);
        const names = res.body.items.map((i: Json) => i.metadata?.name ?? '');
        sameGroups(t, where('/apis (aggregated)'), customGroups(names), names);
        const widgets = res.body.items
          .find((i: Json) => i.metadata?.name === 'example.com')
          ?.versions?.[0]?.resources?.find((r: Json) => r.resource === 'widgets');
        if (JSON.stringify(widgets?.shortNames) !== JSON.stringify([`w${t.token}`]))
          t.failures.push(`${where('/apis (aggregated)')}: widgets short names ${JSON.stringify(widgets?.shortNames)}`);
        return;
      }
      case 4: {
        const res = await get('/apis/example.com');
        if (res && (res.body.name !== 'example.com' || res.body.preferredVersion?.groupVersion !== 'example.com/v1'))
          t.failures.push(`${where('/apis/example.com')}: ${res.text.slice(0, 200)}`);
        return;
      }
      case 5:
      case 6:
      case 7: {
        const [group, resource, short] = [
          ['example.com', 'widgets', 'w'],
          ['tools.example.com', 'gadgets', 'g'],
          [lookalike, 'gadgets', 'h'],
        ][d - 5];
        const p = `/apis/${group}/v1`;
        const res = await get(p);
        if (!res) return;
        const r = res.body.resources?.find((x: Json) => x.name === resource);
        if (
          res.body.groupVersion !== `${group}/v1` ||
          JSON.stringify(r?.shortNames) !== JSON.stringify([`${short}${t.token}`])
        )
          t.failures.push(`${where(p)}: ${res.text.slice(0, 300)}`);
        return;
      }
      case 8: {
        const res = await get('/openapi/v3');
        if (!res) return;
        const keys = Object.keys(res.body.paths);
        const groups = keys.filter((p) => p.startsWith('apis/')).map((p) => p.split('/')[1]);
        sameGroups(t, where('/openapi/v3'), customGroups(groups), groups);
        return;
      }
      case 9:
      case 10: {
        const [group, resource] = [
          ['example.com', 'widgets'],
          [lookalike, 'gadgets'],
        ][d - 9];
        const p = `/openapi/v3/apis/${group}/v1`;
        const res = await get(p);
        if (!res) return;
        const paths = Object.keys(res.body.paths);
        if (!paths.some((x) => x.endsWith(`/${resource}`)) || paths.some((x) => !x.startsWith(`/apis/${group}/v1/`)))
          t.failures.push(`${where(p)}: paths ${JSON.stringify(paths)}`);
        return;
      }
      case 11:
        await get('/openapi/v3/api/v1');
        return;
      case 12:
      case 13: {
        const table = d === 13;
        const p = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
        const res = await get(p, table ? { Accept: TABLE } : {});
        if (!res) return;
        const names = (
          table
            ? res.body.rows.map((r: Json) => r.object?.metadata?.name)
            : res.body.items.map((i: Json) => i.metadata.name)
        ).sort();
        if (JSON.stringify(names) !== JSON.stringify(ownCrdNames(t)))
          t.failures.push(
            `${where(p)}${table ? ' (Table)' : ''}: CRDs ${JSON.stringify(names)}, expected ${JSON.stringify(ownCrdNames(t))}`,
          );
        return;
      }
      case 14: {
        const p = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${lookalike}`;
        const res = await get(p);
        if (res && (res.body.spec?.group !== lookalike || res.body.metadata?.annotations?.[OWNER] !== t.token))
          t.failures.push(`${where(p)}: ${res.text.slice(0, 300)}`);
        return;
      }
      default:
        await get('/apis/apps/v1');
    }
  }

  async function errorPath(t: Tenant, op: Extract<Op, { t: 'error' }>, tag: string): Promise<void> {
    const k = t.kinds[op.k];
    const ns = k.namespaced ? 'default' : undefined;
    const check = async (
      method: string,
      p: string,
      body: unknown,
      expected: number[],
      headers: Record<string, string> = {},
    ) => {
      const res = await call(t, method, p, body, headers);
      expectStatus(t, `${tag} ${method} ${p}`, res, expected);
      return res;
    };
    switch (op.e) {
      case 0: {
        const name = `missing-${op.v}`;
        const res = await check('GET', `${collection(k, ns)}/${name}`, undefined, [404]);
        if (res.status === 404 && res.body?.message !== `${qualified(k)} "${name}" not found`)
          t.failures.push(`${tag}: NotFound message ${JSON.stringify(res.body?.message)}`);
        return;
      }
      case 1: {
        const name = `Bad/Name${op.v}`; // no kind allows a slash (RBAC names allow capitals and underscores)
        const res = await check(
          'POST',
          collection(k, ns),
          { ...objectBody(t, k, ns, 'x', op.v), metadata: { name, ...(ns ? { namespace: ns } : {}) } },
          [422],
        );
        if (res.status === 422 && !String(res.body?.message).includes(`"${name}"`))
          t.failures.push(`${tag}: Invalid message does not name ${name}: ${res.body?.message}`);
        return;
      }
      case 2: {
        // Too long once the prefix is in front (namespaces: 63; other cluster-scoped names: 253).
        const nsKind = k.namespaced || k.key === 'namespaces';
        const kind = nsKind ? namespaceKind(t) : k;
        const name = 'z'.repeat(nsKind ? 60 : 250);
        await check('POST', collection(kind), objectBody(t, kind, undefined, name, op.v), [422]);
        return;
      }
      case 3:
        await check('GET', `${collection(k)}?fieldSelector=spec.nope%3D1`, undefined, [400]);
        return;
      case 4:
        await check(
          'GET',
          `${collection(k)}?limit=2&continue=${op.v % 2 ? 'garbage' : encodeURIComponent(b64('{"v":"meta.k8s.io/v1","rv":1,"start":"/default/"}'))}`,
          undefined,
          [400],
        );
        return;
      case 5: {
        // A continue token the other tenant received is useless here.
        const other = tenants.find((x) => x.id === t.other)!;
        const token = other.continueTokens[op.v % Math.max(1, other.continueTokens.length)];
        if (!token) return;
        const res = await t.client.request('GET', `${collection(k)}?limit=2&continue=${encodeURIComponent(token)}`);
        t.requests++;
        record(t, `${tag} GET (foreign continue)`, res.text, '', res.body);
        expectStatus(t, `${tag} GET ${collection(k)} with the other tenant's continue token`, res, [400]);
        return;
      }
      case 6: {
        const crd = crdsFor(t)[op.v % 4];
        await check('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd, [409]);
        return;
      }
      case 7:
        // The admin's APIs: the search cache below holds both tenants' ConfigMaps and Secrets.
        await check('GET', ADMIN_PATHS[op.v % ADMIN_PATHS.length], undefined, [403]);
        return;
      case 8:
        await check('GET', '/apis/example.com/v1/nonexistents', undefined, [404]);
        return;
      case 9: {
        const res = await check(
          'POST',
          '/api/v1/namespaces/nowhere/configmaps',
          objectBody(t, t.kinds[0], 'nowhere', 'alpha', op.v),
          [404],
        );
        if (res.status === 404 && res.body?.message !== 'namespaces "nowhere" not found')
          t.failures.push(`${tag}: NotFound message ${JSON.stringify(res.body?.message)}`);
        return;
      }
      case 10: {
        // A blocking owner reference to one of the other tenant's objects by its uid, with a finalizer
        // of its own, would hold that object's foreground deletion: refused, whatever it names.
        const other = tenants.find((x) => x.id === t.other)!;
        const uid =
          other.created[op.v % Math.max(1, other.created.length)]?.uid ??
          `00000000-0000-4000-8000-${String(op.v).padStart(12, '0')}`;
        const configMaps = t.kinds[0];
        const body = objectBody(t, configMaps, 'default', `held-${op.v}`, op.v);
        body.metadata.finalizers = ['paddock.test/hold'];
        body.metadata.ownerReferences = [
          { apiVersion: 'v1', kind: 'ConfigMap', name: t.names[op.v % t.names.length], uid, blockOwnerDeletion: true },
        ];
        const res = await check('POST', collection(configMaps, 'default'), body, [403]);
        if (res.status === 403 && !String(res.body?.message).includes('cannot set blockOwnerDeletion'))
          t.failures.push(`${tag}: owner reference refusal ${JSON.stringify(res.body?.message)}`);
        return;
      }
      default:
        await check('POST', collection(k, ns), '{"metadata": {', [400]);
    }
  }

  // ---- setup ----

  before(async () => {
    ({ seed, note: seedNote } = testSeed(import.meta.url, PINNED_SEED));
    const [tokenA, tokenB, opsA, opsB] = fc.sample(
      fc
        .tuple(
          tokenArb,
          tokenArb,
          fc.array(opArb, { minLength: OPS_PER_TENANT, maxLength: OPS_PER_TENANT }),
          fc.array(opArb, { minLength: OPS_PER_TENANT, maxLength: OPS_PER_TENANT }),
        )
        .filter(([a, b]) => a !== b),
      { seed, numRuns: 1 },
    )[0];
    plans = [opsA, opsB];
    stage = await startStage('isolation');
    ({ gateway } = stage);
    upstreamAdmin = await ApiClient.load(stage.upstream.kubeconfigPath);
    const { admin } = stage;
    const tokens = [tokenA, tokenB];
    for (const [i, id] of IDS.entries()) {
      await admin.request('POST', '/apis/tenant.kubezoo.io/v1alpha1/tenants', {
        apiVersion: 'tenant.kubezoo.io/v1alpha1',
        kind: 'Tenant',
        metadata: { name: id },
      });
      let tenant: any;
      await waitUntil(
        `tenant ${id} active (${seedNote})`,
        async () =>
          (tenant = (await admin.request('GET', `/apis/tenant.kubezoo.io/v1alpha1/tenants/${id}`)).body)?.status
            ?.phase === 'Active',
        SETTLES,
      );
      const file = `${stage.dir}/${id}.kubeconfig`;
      await writeFile(file, Buffer.from(tenant.metadata.annotations['kubezoo.io/tenant.kubeconfig.base64'], 'base64'));
      const other = IDS[1 - i];
      const token = tokens[i];
      const { nsPool, names } = namesFor(other, token);
      const t: Tenant = {
        id,
        other,
        token,
        nsPool,
        names,
        client: await ApiClient.load(file),
        caPem: parseKubeconfig(await readFile(file, 'utf8')).caPem,
        tokenRequests: 0,
        keys: leakKeys(other, tokens[1 - i]),
        kinds: kindsFor({ other, token, nsPool, names }),
        model: new Map(),
        created: [],
        uids: new Set(),
        continueTokens: [],
        watches: [],
        initialWatchUids: new Map(),
        leaks: [],
        exposures: [],
        failures: [],
        requests: 0,
        stats: new Map(),
      };
      expect(t.kinds, 'KIND_COUNT').to.have.length(KIND_COUNT);
      tenants.push(t);
    }
    // The search cache holds every tenant's ConfigMaps and Secrets: what the admin paths above would leak.
    const registry = await admin.request('POST', '/apis/search.karmada.io/v1alpha1/resourceregistries', {
      apiVersion: 'search.karmada.io/v1alpha1',
      kind: 'ResourceRegistry',
      metadata: { name: 'everything' },
      spec: {
        targetCluster: {},
        resourceSelectors: [
          { apiVersion: 'v1', kind: 'ConfigMap' },
          { apiVersion: 'v1', kind: 'Secret' },
        ],
      },
    });
    expect(registry.status, registry.text).to.equal(201);

    for (const t of tenants) {
      for (const ns of ['default', ...KUBE_NAMESPACES]) entry(t, namespaceKind(t), undefined, ns).state = 'yes';
      for (const crd of crdsFor(t))
        expect(
          (await call(t, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status,
          `CRD ${crd.metadata.name}`,
        ).to.equal(201);
      for (const ns of ['ns-red', `${t.other}-default`]) {
        const body = objectBody(t, namespaceKind(t), undefined, ns, 0);
        expect((await call(t, 'POST', '/api/v1/namespaces', body)).status, `namespace ${ns}`).to.equal(201);
        Object.assign(entry(t, namespaceKind(t), undefined, ns), { state: 'yes', labels: { ...body.metadata.labels } });
      }
    }
    for (const t of tenants) {
      for (const path of [
        ...t.kinds.filter((k) => k.group.endsWith('example.com')).map((k) => collection(k)),
        `/apis/stuff.example.com/v1/${t.other}-things`,
      ]) {
        await waitUntil(
          `${t.id} ${path} served (${seedNote})`,
          async () => (await call(t, 'GET', path)).status === 200,
          SETTLES,
        );
      }
    }
    // Each tenant's second credential: a ServiceAccount bound to its cluster-admin, with a token
    // from a TokenRequest through the gateway; from here on, every other request goes with it.
    for (const t of tenants) {
      const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: TOKEN_ACCOUNT } };
      expect((await call(t, 'POST', '/api/v1/namespaces/default/serviceaccounts', sa)).status).to.equal(201);
      const binding = {
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: TOKEN_ACCOUNT },
        roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name: TOKEN_ACCOUNT, namespace: 'default' }],
      };
      expect((await call(t, 'POST', `/apis/${RBAC}/v1/clusterrolebindings`, binding)).status).to.equal(201);
      const issued = await call(t, 'POST', `/api/v1/namespaces/default/serviceaccounts/${TOKEN_ACCOUNT}/token`, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: {},
      });
      expect(issued.status, issued.text).to.equal(201);
      const tokenClient = new ApiClient(new URL(gateway.url), { ca: t.caPem, token: issued.body.status.token });
      await waitUntil(
        `${t.id}'s token takes its binding (${seedNote})`,
        async () =>
          (await tokenClient.request('GET', '/api/v1/namespaces')).status === 200 &&
          (await tokenClient.request('GET', '/api/v1/namespaces/ns-red/configmaps')).status === 200,
        SETTLES,
      );
      t.tokenClient = tokenClient;
    }
    for (const t of tenants) {
      const specs: WatchSpec[] = [
        { path: '/api/v1/configmaps?watch=1', kind: 'configmaps' },
        { path: '/api/v1/namespaces/ns-red/configmaps?watch=1', kind: 'configmaps', ns: 'ns-red' },
        { path: '/apis/example.com/v1/widgets?watch=1&allowWatchBookmarks=true', kind: 'widgets' },
        { path: '/api/v1/namespaces?watch=1', kind: 'namespaces' },
        { path: '/api/v1/secrets?watch=1', kind: 'secrets', table: true },
        { path: `/apis/${t.other}-tools.example.com/v1/gadgets?watch=1`, kind: 'lookalike-gadgets' },
        { path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings?watch=1', kind: 'clusterrolebindings' },
      ];
      for (const spec of specs) {
        const listed = await call(
          t,
          'GET',
          spec.path.replace(/[?&]watch=1/, '').replace(/&allowWatchBookmarks=true/, ''),
        );
        const watch = new Watch(t.client, spec);
        await watch.ready;
        expect(watch.status, spec.path).to.equal(200);
        t.watches.push(watch);
        const initial = (listed.body.items as Json[]).filter((i) => !madeByTheCluster(spec.kind, i));
        t.initialWatchUids.set(watch, new Set(initial.map((i) => i.metadata.uid)));
      }
    }
  });

  after(async () => {
    for (const t of tenants) {
      t.watches.forEach((w) => w.close());
      t.client.close();
      t.tokenClient?.close();
    }
    upstreamAdmin?.close();
    await stage?.stop();
  });

  function failuresReport(label: string, lines: string[]): string {
    return `${label} (${lines.length}; ${seedNote}):\n${lines.slice(0, 25).join('\n')}`;
  }

  /** Asserts what this test recorded (and forgets it, so the next test reports only its own). */
  function assertClean(): void {
    const leaks = tenants.flatMap((t) => t.leaks.splice(0));
    const failures = tenants.flatMap((t) => t.failures.splice(0));
    expect(leaks.length, failuresReport('leaks to the wrong tenant', leaks)).to.equal(0);
    expect(failures.length, failuresReport('failed checks', failures)).to.equal(0);
  }

  it("the leak detector flags injected leaks and ignores a tenant's own look-alike names (self-check)", async () => {
    const [a, b] = tenants as [Tenant, Tenant];
    const res = await a.client.request('GET', '/api/v1/namespaces');
    const clean = res.text;
    expect(clean, 'A sees its own look-alike namespace').to.contain(`"${b.id}-default"`);
    const camel = b.id[0].toUpperCase() + b.id.slice(1);
    // A's own strings with B's id in them are not leaks.
    expect(leaksIn(a.keys, clean)).to.deep.equal([]);
    expect(
      leaksIn(
        a.keys,
        `configmaps "${b.id}-x", gadgets.${b.id}-tools.example.com, ${b.id}-things.stuff.example.com, list${camel}ToolsExampleComV1Gadget, ReplicaSet "${b.id}-x-ff76f8cd8", pod ${b.id}-x-ff76f8cd8-q9zbw`,
      ),
    ).to.deep.equal([]);
    const body = JSON.parse(clean);
    const injected = [
      // another tenant's object in a list, under a name A also uses
      JSON.stringify({
        ...body,
        items: [...body.items, { metadata: { name: 'alpha', annotations: { [OWNER]: b.token } } }],
      }),
      // another tenant's upstream namespace name in a message
      JSON.stringify({ kind: 'Status', message: `namespaces "${b.id}-ns-red" not found` }),
      // A's look-alike continued: a name A never wrote
      clean.replace(`"${b.id}-default"`, `"${b.id}-defaults"`),
      // another tenant's unique name
      clean.replace('"default"', `"u${b.token}"`),
      // camel-cased, as OpenAPI operation ids spell groups
      `list${camel}StuffExampleComV1Thing`,
    ];
    for (const text of injected) expect(leaksIn(a.keys, text), text.slice(0, 120)).to.not.deep.equal([]);
    // The recording path: a Warning header, and a continue token that decodes to another tenant's key.
    const before = a.leaks.length;
    record(a, 'self-check', clean, `warning: 299 - "namespace ${b.id}-ns-red is terminating"`, undefined);
    record(a, 'self-check', '{}', '', {
      metadata: { continue: Buffer.from(`/registry/configmaps/${b.id}-ns-blue/alpha`).toString('base64url') },
    });
    expect(a.leaks.length - before).to.equal(2);
    a.leaks.splice(before);
    a.continueTokens.pop();
    // The same for B, mirrored.
    expect(leaksIn(b.keys, `"${a.id}-default" ${a.id}-tools.example.com`)).to.deep.equal([]);
    expect(leaksIn(b.keys, `"${a.id}-ns-red" ${a.token}`)).to.have.length(2);
  });

  it(`performs ${2 * OPS_PER_TENANT} random operations through one gateway: no leaks, well-formed answers, the model's results`, async () => {
    const started = Date.now();
    await Promise.all(
      tenants.map(async (t, i) => {
        for (const [n, op] of plans[i].entries()) {
          try {
            await execute(t, op, n);
          } catch (err) {
            t.failures.push(`${t.id} op#${n} ${JSON.stringify(op)}: threw ${(err as Error).stack ?? String(err)}`);
          }
        }
      }),
    );
    const counts = tenants.map(
      (t) =>
        `${t.id}: ${plans[tenants.indexOf(t)].length} operations, ${t.requests} requests (${[...t.stats]
          .sort()
          .map(([k, n]) => `${k}×${n}`)
          .join(' ')}), ${t.watches.reduce((n, w) => n + w.events.length, 0)} watch events`,
    );
    process.stdout.write(`      ${seedNote}; ${counts.join('; ')}; ${Date.now() - started}ms\n`);
    assertClean();
    // Every other request of the operations went with the token, not the certificate.
    for (const t of tenants)
      expect(t.tokenRequests, `${t.id}'s requests with its token`).to.be.above(OPS_PER_TENANT / 4);
  });

  it("ends consistent: each tenant's namespaces are its own plus the four defaults, paged lists equal unpaged ones", async () => {
    for (const t of tenants) {
      const expected = [...t.model.values()]
        .filter((e) => e.kind === 'namespaces' && e.state === 'yes')
        .map((e) => e.name)
        .sort();
      let got: string[] = [];
      try {
        await waitUntil(
          `${t.id} namespaces settle (${seedNote})`,
          async () => {
            const res = await call(t, 'GET', '/api/v1/namespaces');
            got = (res.body?.items ?? []).map((i: Json) => i.metadata.name).sort();
            return JSON.stringify(got) === JSON.stringify(expected);
          },
          SETTLES,
        );
      } catch {
        // reported below with the difference
      }
      expect(got, `${t.id} namespaces (${seedNote})`).to.deep.equal(expected);
      expect(got).to.include.members(['default', ...KUBE_NAMESPACES]);
      // Namespaces being deleted are gone now, and everything that was in them.
      for (const e of t.model.values()) {
        if (e.kind !== 'namespaces' || e.state === 'yes') continue;
        e.state = 'no';
        namespaceFresh(t, e.name);
      }
    }
    for (const t of tenants) {
      for (const k of t.kinds) {
        for (const table of [false, true]) {
          for (const label of [0, 1]) {
            const query = new URLSearchParams(label ? { labelSelector: LABEL_SELECTORS[label] } : {});
            const where = `${t.id} final ${table ? 'Table ' : ''}${collection(k)}?${query.toString()}`;
            const whole = await readList(t, collection(k), query, 0, table, where);
            const paged = await readList(t, collection(k), query, 3, table, `${where} (limit=3)`);
            if (!whole || !paged) continue;
            const ids = (b: Json) =>
              table ? b.rows.map((r: Json) => r.object?.metadata?.uid) : b.items.map((i: Json) => i.metadata.uid);
            expect(ids(paged), `${where}: paged with limit=3 vs unpaged (${seedNote})`).to.deep.equal(ids(whole));
            const expected = expectedList(t, k, undefined, label, undefined);
            if (expected)
              expect(listedNames(t, k, whole), `${where}: vs the model (${seedNote})`).to.deep.equal(expected);
          }
        }
      }
    }
    assertClean();
  });

  it("watches saw exactly the tenant's own objects, every one it created, and well-formed events", async () => {
    for (const t of tenants) {
      // Sentinels: once a watch shows its sentinel, every earlier event has arrived.
      if (nsState(t, 'ns-red') !== 'yes') {
        const res = await call(
          t,
          'POST',
          '/api/v1/namespaces',
          objectBody(t, namespaceKind(t), undefined, 'ns-red', 0),
        );
        expect(res.status, `${t.id} re-creates ns-red: ${res.text.slice(0, 200)}`).to.equal(201);
        t.created.push({ kind: 'namespaces', uid: res.body.metadata.uid });
      }
      const sentinels: [string, string | undefined][] = [
        ['configmaps', 'ns-red'],
        ['widgets', 'ns-red'],
        ['secrets', 'ns-red'],
        ['namespaces', undefined],
        ['lookalike-gadgets', undefined],
        ['clusterrolebindings', undefined],
      ];
      for (const [key, ns] of sentinels) {
        const k = t.kinds.find((x) => x.key === key)!;
        const res = await call(t, 'POST', collection(k, ns), objectBody(t, k, ns, 'sentinel', 0));
        expect(res.status, `${t.id} sentinel ${key}: ${res.text.slice(0, 200)}`).to.equal(201);
        t.created.push({ kind: key, ns, uid: res.body.metadata.uid });
      }
    }
    const eventUids = (e: RawEvent): string[] =>
      e.object?.kind === 'Table'
        ? (e.object.rows ?? []).map((r: Json) => r.object?.metadata?.uid)
        : [e.object?.metadata?.uid];
    // What kube-controller-manager puts in each of the tenant's namespaces (kube-root-ca.crt), whenever its pass comes.
    const clusterMade = new Set(
      tenants.flatMap((t) =>
        t.watches.flatMap((w) =>
          w.events.flatMap((e) =>
            (e.object?.kind === 'Table' ? (e.object.rows ?? []).map((r: Json) => r.object) : [e.object])
              .filter((o: Json) => madeByTheCluster(w.spec.kind, o))
              .map((o: Json) => o.metadata.uid),
          ),
        ),
      ),
    );
    const mineOf = (t: Tenant, w: Watch) =>
      t.created
        .filter((c) => c.kind === w.spec.kind && (w.spec.ns === undefined || c.ns === w.spec.ns))
        .map((c) => c.uid);
    for (const t of tenants) {
      for (const w of t.watches) {
        const mine = mineOf(t, w);
        const sentinel = mine[mine.length - 1];
        await waitUntil(
          `${t.id} watch ${w.spec.path} sees its sentinel (stream ended: ${w.ended}) (${seedNote})`,
          () => w.events.some((e) => e.type === 'ADDED' && eventUids(e).includes(sentinel)),
          SETTLES,
        );
      }
    }
    // First the scan of every line for leaks, and the shape of every event…
    for (const t of tenants) {
      for (const w of t.watches) {
        const where = `${t.id} watch ${w.spec.path}`;
        for (const line of w.lines) {
          let parsed: unknown;
          try {
            parsed = JSON.parse(line);
          } catch {
            parsed = undefined;
          }
          record(t, where, line, w.headersText, parsed);
        }
        for (const bad of w.malformed) t.failures.push(`${where}: a line that is not JSON: ${bad}`);
        for (const e of w.events) {
          const ok =
            EVENT_TYPES.has(e.type) &&
            isObj(e.object) &&
            (e.type === 'ERROR'
              ? e.object.kind === 'Status'
              : e.type === 'BOOKMARK' ||
                (w.spec.table
                  ? e.object.kind === 'Table' && e.object.rows?.length === 1
                  : typeof e.object.metadata?.name === 'string'));
          if (!ok) t.failures.push(`${where}: malformed event ${JSON.stringify(e).slice(0, 300)}`);
          if (e.type === 'ERROR') t.failures.push(`${where}: ERROR event ${JSON.stringify(e.object).slice(0, 300)}`);
        }
      }
    }
    assertClean();
    // …then exactly the tenant's objects: what existed when the watch began and everything it created since.
    for (const t of tenants) {
      for (const w of t.watches) {
        const where = `${t.id} watch ${w.spec.path}`;
        const added = w.events
          .filter((e) => e.type === 'ADDED')
          .flatMap(eventUids)
          .filter((uid) => !clusterMade.has(uid));
        const expected = [...new Set([...t.initialWatchUids.get(w)!, ...mineOf(t, w)])].sort();
        expect([...added].sort(), `${where}: ADDED events vs the tenant's objects (${seedNote})`).to.deep.equal(
          expected,
        );
        const seen = new Set(added);
        const stray = w.events
          .filter((e) => e.type === 'MODIFIED' || e.type === 'DELETED')
          .flatMap(eventUids)
          .filter((u) => !seen.has(u) && !clusterMade.has(u));
        expect(stray, `${where}: changes to objects never ADDED`).to.deep.equal([]);
      }
    }
  });

  // Rotation while watches are open: the old certificate's streams end, the new one's work, and
  // what they carry still passes the leak scan. The tenant goes on with the new certificate.
  it("a certificate rotated away ends its open watches; the new certificate's watches work and leak nothing", async () => {
    const t = tenants[0];
    const admin = await ApiClient.load(gateway.adminKubeconfigPath);
    const tenantPath = `/apis/tenant.kubezoo.io/v1alpha1/tenants/${t.id}`;
    const request = `isolation-${seed}`;
    const patched = await admin.request(
      'PATCH',
      tenantPath,
      { metadata: { annotations: { 'kubezoo.io/tenant.rotate': request } } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    expect(patched.status, patched.text).to.equal(200);
    let tenant: any;
    await waitUntil(
      `${t.id} rotated (${seedNote})`,
      async () => (tenant = (await admin.request('GET', tenantPath)).body)?.status?.rotation === request,
      SETTLES,
    );
    admin.close();
    const open = t.watches.filter((w) => !w.ended).length;
    await waitUntil(
      `${t.id}: the old certificate's ${open} open watches end (${seedNote})`,
      () => t.watches.every((w) => w.ended),
      SETTLES,
    );

    const oldClient = t.client;
    const file = `${dirname(gateway.adminKubeconfigPath)}/${t.id}-rotated.kubeconfig`;
    await writeFile(file, Buffer.from(tenant.metadata.annotations['kubezoo.io/tenant.kubeconfig.base64'], 'base64'));
    t.client = await ApiClient.load(file);
    expect((await oldClient.request('GET', '/api/v1/namespaces')).status, 'the old certificate').to.equal(401);
    oldClient.close();

    const renewed = [
      new Watch(t.client, { path: '/api/v1/configmaps?watch=1', kind: 'configmaps' }),
      new Watch(t.client, { path: '/api/v1/namespaces/ns-red/configmaps?watch=1', kind: 'configmaps', ns: 'ns-red' }),
    ];
    try {
      for (const w of renewed) await w.ready;
      expect(renewed.map((w) => w.status)).to.deep.equal([200, 200]);
      // ns-red may exist without the model knowing it (the watch check above re-creates it).
      expect(
        (await call(t, 'POST', '/api/v1/namespaces', objectBody(t, namespaceKind(t), undefined, 'ns-red', 0))).status,
      ).to.be.oneOf([201, 409]);
      const created = await call(t, 'POST', '/api/v1/namespaces/ns-red/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'after-rotation' },
        data: { owner: t.token },
      });
      expect(created.status, created.text.slice(0, 200)).to.equal(201);
      t.created.push({ kind: 'configmaps', ns: 'ns-red', uid: created.body.metadata.uid });
      for (const w of renewed) {
        await waitUntil(
          `${t.id} new watch ${w.spec.path} sees what the new certificate made (${seedNote})`,
          () => w.events.some((e) => e.type === 'ADDED' && e.object?.metadata?.uid === created.body.metadata.uid),
          SETTLES,
        );
        for (const line of w.lines)
          record(t, `${t.id} new watch ${w.spec.path}`, line, w.headersText, JSON.parse(line));
      }
    } finally {
      renewed.forEach((w) => w.close());
    }
    assertClean();
  });

  it('every uid a tenant saw belongs, upstream, to that tenant alone', async () => {
    const [a, b] = tenants as [Tenant, Tenant];
    const shared = [...a.uids].filter((u) => b.uids.has(u));
    expect(shared, `uids both tenants saw (${seedNote})`).to.deep.equal([]);
    const owners = new Map<string, string>();
    const ownerOf = (s: string | undefined) => IDS.find((id) => s?.startsWith(`${id}-`)) ?? `none(${s})`;
    const crds = (await upstreamAdmin.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions')).body
      .items as Json[];
    const paths: [string, 'namespaced' | 'name' | 'crd' | 'custom'][] = [
      ['/api/v1/namespaces', 'name'],
      ['/api/v1/configmaps', 'namespaced'],
      ['/api/v1/secrets', 'namespaced'],
      ['/api/v1/services', 'namespaced'],
      ['/apis/apps/v1/deployments', 'namespaced'],
      ['/apis/rbac.authorization.k8s.io/v1/clusterroles', 'name'],
      ['/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', 'name'],
      // The tenants' ClusterRoleBindings are stored as RoleBindings in their kube-system.
      ['/apis/rbac.authorization.k8s.io/v1/rolebindings', 'namespaced'],
      ['/api/v1/persistentvolumes', 'name'],
      ['/apis/storage.k8s.io/v1/storageclasses', 'name'],
      ['/apis/scheduling.k8s.io/v1/priorityclasses', 'name'],
      ['/apis/apiextensions.k8s.io/v1/customresourcedefinitions', 'crd'],
      ...crds.map((c): [string, 'custom'] => [
        `/apis/${c.spec.group}/${c.spec.versions[0].name}/${c.spec.names.plural}`,
        'custom',
      ]),
    ];
    for (const [path, rule] of paths) {
      const res = await upstreamAdmin.request('GET', path);
      expect(res.status, path).to.equal(200);
      for (const item of res.body.items as Json[]) {
        const m = item.metadata;
        // Made with the tenant's space, not by the tenant (tenants/kubernetes-service.ts).
        if (path === '/api/v1/services' && m.name === 'kubernetes') continue;
        // Whatever patches did, the cluster's admission never mounts its own token into a tenant's pods.
        if (path === '/apis/apps/v1/deployments')
          expect(
            item.spec.template.spec.automountServiceAccountToken,
            `${m.namespace}/${m.name} (${seedNote})`,
          ).to.equal(false);
        // Of RoleBindings, only those the tenants' ClusterRoleBindings are stored as (grants are never shown).
        if (path.endsWith('/v1/rolebindings') && !String(m.name).startsWith('paddock.clusterrolebinding:')) continue;
        if (path.endsWith('/v1/clusterrolebindings'))
          expect(ownerOf(m.name), `a tenant's ClusterRoleBinding at the cluster scope upstream: ${m.name}`).to.match(
            /^none/,
          );
        const group = String(item.apiVersion).split('/')[0];
        const owner =
          rule === 'namespaced'
            ? ownerOf(m.namespace)
            : rule === 'name'
              ? ownerOf(m.name)
              : rule === 'crd'
                ? ownerOf(item.spec.group)
                : m.namespace !== undefined
                  ? ownerOf(m.namespace) === ownerOf(group)
                    ? ownerOf(group)
                    : `mixed(${m.namespace}, ${group})`
                  : ownerOf(m.name) === ownerOf(group)
                    ? ownerOf(group)
                    : `mixed(${m.name}, ${group})`;
        owners.set(m.uid, owner);
      }
    }
    for (const t of tenants) {
      let verified = 0;
      const foreign: string[] = [];
      for (const uid of t.uids) {
        const owner = owners.get(uid);
        if (owner === undefined) continue;
        verified++;
        if (owner !== t.id) foreign.push(`${uid} (${owner})`);
      }
      expect(foreign, `${t.id} saw objects that are not its own (${seedNote})`).to.deep.equal([]);
      // Most of what a tenant saw still exists upstream: the check covered real objects.
      expect(verified, `${t.id}: uids verified upstream`).to.be.greaterThan(20);
      const mine = [...owners.entries()]
        .filter(([, owner]) => owner === t.id)
        .map(([uid]) => uid)
        .filter((uid) => !t.uids.has(uid));
      expect(mine, `${t.id}: its own upstream objects it never saw through the gateway`).to.deep.equal([]);
    }
  });

  it('never shows a tenant its own upstream prefix', () => {
    const exposures = tenants.flatMap((t) => t.exposures);
    expect(exposures.length, failuresReport('upstream names shown to their own tenant', exposures)).to.equal(0);
  });

  // Last, because when it fails the other tenant's objects are gone.
  it("a collection delete (a cluster-scoped kind, or a namespaced kind across namespaces) never deletes the other tenant's objects", async () => {
    // These delete the token's ClusterRoleBinding too: the certificate alone from here.
    for (const t of tenants) {
      t.tokenClient?.close();
      t.tokenClient = undefined;
    }
    const crds: KindSpec = {
      key: 'crds',
      group: 'apiextensions.k8s.io',
      version: 'v1',
      resource: 'customresourcedefinitions',
      kind: 'CustomResourceDefinition',
      namespaced: false,
    };
    const kindsOf = (t: Tenant) => [...t.kinds.filter((k) => k.key !== 'namespaces'), crds];
    /** An object labelled tier=web of every kind, a CRD among them; fresh names each round. */
    const plantVictims = async (t: Tenant, round: number) => {
      for (const k of kindsOf(t)) {
        const ns = k.namespaced ? 'default' : undefined;
        const crd = crdsFor(t)[0];
        const plural = `victim${round}s`;
        const body =
          k === crds
            ? {
                ...crd,
                metadata: { name: `${plural}.victim.example.com`, labels: { tier: 'web' } },
                spec: {
                  ...crd.spec,
                  group: 'victim.example.com',
                  names: { plural, singular: `victim${round}`, kind: `Victim${round}` },
                },
              }
            : objectBody(t, k, ns, `victim${round}`, 0);
        const res = await call(t, 'POST', collection(k, ns), body);
        expect(res.status, `${t.id} creates ${k.resource} victim${round}: ${res.text.slice(0, 200)}`).to.equal(201);
      }
    };
    /** uids of the tenant's own objects labelled tier=web, by kind, as its own lists show them. */
    const snapshot = async (t: Tenant) => {
      const out: Record<string, string[]> = {};
      for (const k of kindsOf(t)) {
        const res = await call(t, 'GET', `${collection(k)}?labelSelector=tier%3Dweb`);
        const live = (res.body?.items ?? []).filter((i: Json) => !i.metadata.deletionTimestamp);
        out[qualified(k)] = live.map((i: Json) => `${i.metadata.namespace ?? ''}/${i.metadata.name}`).sort();
      }
      return out;
    };
    const [a, b] = tenants as [Tenant, Tenant];
    for (const [round, [deleter, other]] of (
      [
        [a, b],
        [b, a],
      ] as const
    ).entries()) {
      await plantVictims(deleter, round);
      await plantVictims(other, round);
      const before = await snapshot(other);
      expect(
        Object.entries(before)
          .filter(([, names]) => names.length === 0)
          .map(([resource]) => resource),
        `kinds where ${other.id} has nothing to lose`,
      ).to.deep.equal([]);
      const problems: string[] = [];
      for (const k of kindsOf(deleter)) {
        const path = `${collection(k)}?labelSelector=tier%3Dweb`;
        const res = await call(deleter, 'DELETE', path);
        // Refusing is fine; deleting the tenant's own objects is fine; touching the other's is not.
        if (![200, 403, 405].includes(res.status)) problems.push(`${deleter.id} DELETE ${path}: HTTP ${res.status}`);
        if (res.status === 200) {
          // A CRD waits for its finalizer after the delete is accepted: being deleted counts as deleted.
          const left = ((await call(deleter, 'GET', path)).body?.items ?? []).filter(
            (i: Json) => !i.metadata.deletionTimestamp,
          );
          if (left.length)
            problems.push(`${deleter.id} DELETE ${path} answered 200 but left ${left.length} of its own`);
        }
        const after = await snapshot(other);
        for (const [resource, names] of Object.entries(before)) {
          const lost = names.filter((n) => !after[resource].includes(n));
          if (lost.length)
            problems.push(
              `${deleter.id} DELETE ${path} (HTTP ${res.status}) deleted ${other.id}'s ${resource} ${lost.join(', ')}`,
            );
        }
        Object.assign(before, after);
      }
      expect(problems.length, failuresReport('collection deletes across tenants', problems)).to.equal(0);
    }
    assertClean();
  });
});
