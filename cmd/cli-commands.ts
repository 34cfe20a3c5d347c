/**
 * What each `paddock` command accepts and how its help reads: the declarations alone, with no
 * import of what runs the commands, so that `--help` and a usage error answer at once and
 * `cli.ts` loads a command's code only to run it.
 */
import { commandListText, type CommandSpec, type FlagSpec } from './cli-usage.js';
import { REQUEST_LOG_MODES } from '../gateway/observability/request-log.js';
import { LOG_FORMATS, LOG_LEVELS } from '../log/log.js';
import { DEFAULT_TENANT_CACHE_MAX_BYTES } from '../gateway/cached/tenant-cache-budget.js';
import { DEFAULT_FAILOVER_RESOURCES, DEFAULT_TENANT_CACHE } from '../gateway/cached/tenant-cache-defaults.js';
import { DEFAULT_TENANT_LIMITS } from '../gateway/server/tenant-limits.js';
import { DEFAULT_UPSTREAM_SEATS } from '../clusters/upstream-seats.js';

/** TLS to etcd, as kube-apiserver's flags of the same names. */
const ETCD_TLS_FLAGS = {
  'etcd-cafile': {
    type: 'string',
    value: 'FILE',
    help: "The CA (PEM) that signed etcd's serving certificate, for https:// endpoints; the system's roots if absent.",
  },
  'etcd-certfile': {
    type: 'string',
    value: 'FILE',
    help: 'The client certificate (PEM) to present to etcd, with --etcd-keyfile, when etcd asks for one (--client-cert-auth).',
  },
  'etcd-keyfile': { type: 'string', value: 'FILE', help: "The client certificate's private key (PEM)." },
} as const satisfies Record<string, FlagSpec>;

export const SERVE = {
  name: 'serve',
  summary: 'Run a gateway replica: tenants point kubectl at it and each sees a cluster of its own.',
  description: [
    'Without --upstream it first starts --dev-clusters devclusters (member1, member2, …) as the clusters',
    'tenants live on, with their kubeconfigs in <data-dir>/clusters/. The admin kubeconfig is written to',
    '<data-dir>/admin.kubeconfig on every start. It runs until Ctrl-C or SIGTERM (or `paddock stop`).',
  ].join('\n'),
  flags: {
    listen: {
      type: 'string',
      default: '127.0.0.1:6443',
      value: 'HOST:PORT',
      help: 'Where this replica listens; port 0 picks a free one.',
    },
    'advertise-address': {
      type: 'string',
      value: 'HOST:PORT',
      help: 'What tenant kubeconfigs point at (a load balancer in front of replicas); the listen address if absent.',
    },
    'advertise-service': {
      type: 'string',
      value: 'NAMESPACE/NAME',
      help: "A Service on each cluster that the cluster's pods reach the gateway by (its ClusterIP); where a cluster has none, the advertised address.",
    },
    'data-dir': {
      type: 'string',
      default: '.paddock',
      value: 'DIR',
      help: 'The admin kubeconfig, the devclusters, and the embedded store; kept private (0700).',
    },
    'dev-clusters': {
      type: 'string',
      default: '1',
      value: 'N',
      help: 'How many devclusters to start as member clusters (1 to 16), when no --upstream is given.',
    },
    upstream: {
      type: 'string',
      multiple: true,
      value: 'NAME=KUBECONFIG',
      help: 'An existing cluster tenants live on, instead of devclusters (credentials inline in the kubeconfig); registered as a Cluster object at start.',
    },
    'default-cluster': {
      type: 'string',
      value: 'NAME',
      help: "The cluster the admin's requests outside the gateway's own API pass through to; the first --upstream (or member1) if absent.",
    },
    'cluster-status-update-frequency': {
      type: 'string',
      default: '10s',
      value: 'DURATION',
      help: "How often each cluster's health, version and APIs are probed into its Cluster status (seconds: 10s).",
    },
    'cluster-success-threshold': {
      type: 'string',
      default: '30s',
      value: 'DURATION',
      help: "How long a cluster must answer healthy again before its Ready condition turns True (Karmada's flag).",
    },
    'cluster-failure-threshold': {
      type: 'string',
      default: '30s',
      value: 'DURATION',
      help: "How long a cluster must fail its health probes before its Ready condition turns False (Karmada's flag).",
    },
    'no-execute-taint-after': {
      type: 'string',
      default: '',
      value: 'DURATION',
      help: "A cluster not Ready this long gets a NoExecute taint, which moves its tenants away when the taint manager is on; '' for never (NoExecute taints then come from an admin).",
    },
    'enable-no-execute-taint-eviction': {
      type: 'boolean',
      help: "Move tenants off clusters with a NoExecute taint they do not tolerate, at --resource-eviction-rate (Karmada's taint manager; off by default, as in Karmada).",
    },
    'resource-eviction-rate': {
      type: 'string',
      default: '0.5',
      value: 'PER_SECOND',
      help: 'Tenants moved per second while evicting; 0 pauses eviction.',
    },
    'adaptive-eviction-rate': {
      type: 'boolean',
      help: 'Slow eviction to --secondary-resource-eviction-rate while more than --unhealthy-cluster-threshold of the clusters are unhealthy, and stop it while no healthy cluster is open to new tenants (as kube slows node evictions in a disrupted zone).',
    },
    'secondary-resource-eviction-rate': {
      type: 'string',
      default: '0.01',
      value: 'PER_SECOND',
      help: 'With --adaptive-eviction-rate: tenants moved per second while many clusters are unhealthy.',
    },
    'unhealthy-cluster-threshold': {
      type: 'string',
      default: '0.55',
      value: 'SHARE',
      help: 'With --adaptive-eviction-rate: the share of unhealthy clusters (0 to 1) above which the secondary rate holds.',
    },
    'no-execute-taint-eviction-purge-mode': {
      type: 'string',
      default: 'Gracefully',
      value: 'Gracefully|Directly',
      help: "When a moved tenant's objects are removed from the cluster it left, for tenants whose spec.failover.purgeMode is unset: Directly once moved, Gracefully once all of it was replayed or after --graceful-eviction-timeout.",
    },
    'concurrent-eviction-syncs': {
      type: 'string',
      default: '3',
      value: 'N',
      help: "Tenants moved at once (as Karmada's 3 eviction workers): more keeps a high --resource-eviction-rate when each move takes long; the rate still sets the pace.",
    },
    'graceful-eviction-timeout': {
      type: 'string',
      default: '10m',
      value: 'DURATION',
      help: 'How long a Gracefully evicted tenant keeps its objects on the cluster it left when not all of them could be replayed.',
    },
    'rate-limiter-base-delay': {
      type: 'string',
      default: '5ms',
      value: 'DURATION',
      help: 'The first retry delay of a failed eviction, doubled at each failure.',
    },
    'rate-limiter-max-delay': {
      type: 'string',
      default: '1000s',
      value: 'DURATION',
      help: 'The longest retry delay of a failed eviction.',
    },
    'rate-limiter-qps': {
      type: 'string',
      default: '10',
      value: 'N',
      help: "The eviction queue's token bucket: evictions per second at most.",
    },
    'rate-limiter-bucket-size': {
      type: 'string',
      default: '100',
      value: 'N',
      help: "The eviction queue's token bucket: its burst.",
    },
    'failover-resources': {
      type: 'string',
      default: DEFAULT_FAILOVER_RESOURCES,
      value: 'RESOURCE,...',
      help: "What the cache keeps of every cluster, beside --tenant-cache, so that an evicted tenant's objects can be replayed elsewhere (with --enable-no-execute-taint-eviction); with customresourcedefinitions.apiextensions.k8s.io among them, the tenants' custom resources too.",
    },
    'upstream-timeout': {
      type: 'string',
      default: '60s',
      value: 'DURATION',
      help: "How long a cluster may take to answer a forwarded request's headers before the client gets 504 Timeout (a watch's or a followed log's body may then run on).",
    },
    'shutdown-delay': {
      type: 'string',
      default: '0s',
      value: 'DURATION',
      help: 'On SIGTERM, how long requests are still served after /readyz starts failing, for load balancers to notice (kube-apiserver: --shutdown-delay-duration).',
    },
    'shutdown-timeout': {
      type: 'string',
      default: '30s',
      value: 'DURATION',
      help: 'On SIGTERM, the most time from the signal to the exit: watches end at once (clients watch again elsewhere), requests in flight finish, and what is still open then (an exec session) is cut.',
    },
    'cache-sync-timeout': {
      type: 'string',
      default: '60s',
      value: 'DURATION',
      help: "How long /readyz waits for the search cache's first lists before it answers ok anyway (seconds: 60s).",
    },
    'tenant-cache': {
      type: 'string',
      default: DEFAULT_TENANT_CACHE,
      value: 'RESOURCE,...',
      help: "The resources tenants' get, list and watch are answered from the cache for (resource.group for a named group; '' for none).",
    },
    'tenant-cache-max-bytes': {
      type: 'string',
      default: String(DEFAULT_TENANT_CACHE_MAX_BYTES),
      value: 'BYTES',
      help: "The most JSON bytes the cache holds (its heap is about 1.5 times that) before the largest stores kept only for tenants' reads are dropped and those reads forwarded; 0 for no budget.",
    },
    'watch-flush-interval': {
      type: 'string',
      default: '0',
      value: 'DURATION',
      help: 'The least time between two writes of one shared tenant watch to a watcher (0, 50ms, 1s): more is fewer TLS writes per event for that much latency at most; 0 writes each event as it comes.',
    },
    'etcd-endpoints': {
      type: 'string',
      value: 'URL,...',
      help: 'Keep state in etcd at these endpoints (replicas share it) instead of the embedded store.',
    },
    'etcd-prefix': { type: 'string', default: '/paddock', value: 'PREFIX', help: 'The key prefix in etcd.' },
    ...ETCD_TLS_FLAGS,
    'ca-cert': {
      type: 'string',
      value: 'FILE',
      help: 'The CA certificate to sign with; created and kept in the store if absent.',
    },
    'ca-key': { type: 'string', value: 'FILE', help: "The CA's private key (with --ca-cert)." },
    'trusted-ca-file': {
      type: 'string',
      value: 'FILE',
      help: 'More CAs (a PEM bundle) to trust beside the signing one while the CA is rotated: client certificates they signed are accepted, and every kubeconfig written carries them (docs/operations.md, Rotating the CA).',
    },
    'key-algorithm': {
      type: 'string',
      default: 'ecdsa',
      value: 'ecdsa|rsa',
      help: 'The key type of tenant certificates: ECDSA P-256 or RSA-2048.',
    },
    'tenant-cert-validity': {
      type: 'string',
      default: '8760h',
      value: 'DURATION',
      help: 'How long tenant certificates are valid, in hours (8760h) or days (365d).',
    },
    'election-ttl': {
      type: 'string',
      default: '5',
      value: 'SECONDS',
      help: 'After how long another replica takes over the tenant controller when the leader dies.',
    },
    'max-request-bytes': {
      type: 'string',
      default: String(3 * 1024 * 1024),
      value: 'BYTES',
      help: 'The largest tenant request body; a larger one is answered 413.',
    },
    'tenant-qps': {
      type: 'string',
      default: String(DEFAULT_TENANT_LIMITS.qps),
      value: 'N',
      help: "Each tenant's request rate on this replica, per second (0: no limit).",
    },
    'tenant-burst': {
      type: 'string',
      default: String(DEFAULT_TENANT_LIMITS.burst),
      value: 'N',
      help: 'How many requests a tenant may make at once above its rate.',
    },
    'tenant-max-watches': {
      type: 'string',
      default: String(DEFAULT_TENANT_LIMITS.maxWatches),
      value: 'N',
      help: "Each tenant's open watches, logs, proxies, exec, attach and port-forward sessions (0: no limit).",
    },
    'tenant-max-upstream-connections': {
      type: 'string',
      default: String(DEFAULT_TENANT_LIMITS.maxUpstreamConnections),
      value: 'N',
      help: 'Upstream connections one tenant may hold at once on this replica (0: no limit).',
    },
    'upstream-tenant-seats': {
      type: 'string',
      default: String(DEFAULT_UPSTREAM_SEATS.tenantSeats),
      value: 'N',
      help: "Tenants' requests to one cluster at once on this replica, shared fairly: the rest wait in per-tenant queues served in turn. Watches, logs, proxies and upgrades take none.",
    },
    'tenant-upstream-seats': {
      type: 'string',
      default: String(DEFAULT_UPSTREAM_SEATS.seatsPerTenant),
      value: 'N',
      help: "Of --upstream-tenant-seats, one tenant's at most, however many are free.",
    },
    'tenant-queue-length': {
      type: 'string',
      default: String(DEFAULT_UPSTREAM_SEATS.tenantQueueLength),
      value: 'N',
      help: "One tenant's requests to one cluster that may wait for a seat; one more is answered 429 TooManyRequests (0: none waits).",
    },
    'tenant-queue-wait': {
      type: 'string',
      default: `${DEFAULT_UPSTREAM_SEATS.tenantQueueWaitMs / 1000}s`,
      value: 'DURATION',
      help: 'How long a request waits for a seat before it is answered 429 TooManyRequests.',
    },
    'upstream-gateway-seats': {
      type: 'string',
      default: String(DEFAULT_UPSTREAM_SEATS.gatewaySeats),
      value: 'N',
      help: "The gateway's own requests to one cluster at once (the admin's pass-through, health probes, discovery), apart from the tenants' seats.",
    },
    'request-log': {
      type: 'string',
      default: 'off',
      value: REQUEST_LOG_MODES.join('|'),
      help: 'line: print one line per request when it ends (time, user, tenant, verb, path, code, duration).',
    },
    'log-format': {
      type: 'string',
      default: 'text',
      value: LOG_FORMATS.join('|'),
      help: "The server's log on stderr: text, the lines as they always were, or json, one object a line (ts, level, component, msg and the entry's fields).",
    },
    'log-level': {
      type: 'string',
      default: 'info',
      value: LOG_LEVELS.join('|'),
      help: "The least level of the server's log written: error, warn, info (controllers' failures, tenants moved) or debug (and leadership changes).",
    },
    'audit-log-path': {
      type: 'string',
      value: 'FILE',
      help: "Write an audit event (Kubernetes' audit.k8s.io/v1 Event, Metadata level, never a body) to FILE for every write, exec, attach and port-forward, and every request on Tenants, Clusters, their Secrets and ResourceRegistries; off when absent.",
    },
    'audit-log-maxsize': {
      type: 'string',
      default: '100',
      value: 'MB',
      help: 'The size in megabytes (a fraction for less) at which the audit log is renamed to <name>-<time>.<ext> and a new one started.',
    },
    'audit-log-maxbackup': {
      type: 'string',
      default: '10',
      value: 'N',
      help: 'How many rotated audit log files are kept, the oldest removed first; 0 keeps all.',
    },
    'metrics-per-tenant': {
      type: 'boolean',
      help: "Label /metrics' requests and open watches with each tenant's id too, and name the cached stores of tenants' custom resources one by one: series per tenant, so off by default (labels bounded by identity kind, verb, code, cluster and resource).",
    },
    background: {
      type: 'boolean',
      help: 'Start in the background and return once up; output goes to <data-dir>/serve.log; stop with `paddock stop`.',
    },
  },
  examples: [
    'paddock serve                                   # npm start: member1 and the gateway on 127.0.0.1:6443',
    'paddock serve --background                      # the same, returning to the shell once it is up',
    'paddock serve --dev-clusters 3 --listen 127.0.0.1:7443 --data-dir /tmp/paddock-demo',
    'paddock serve --etcd-endpoints http://127.0.0.1:2379 --upstream member1=member1.kubeconfig',
    'paddock serve --etcd-endpoints https://etcd:2379 --etcd-cafile ca.crt --etcd-certfile client.crt --etcd-keyfile client.key --upstream member1=member1.kubeconfig',
  ],
} as const satisfies CommandSpec;

export const DEVCLUSTER = {
  name: 'devcluster',
  summary: 'Run one devcluster: a Kubernetes-compatible API server for development and tests.',
  description: [
    'kubectl drives it as a cluster (docs/devcluster.md says what it serves). Its admin kubeconfig is',
    'written to <data-dir>/admin.kubeconfig. It runs until Ctrl-C or SIGTERM.',
  ].join('\n'),
  flags: {
    listen: {
      type: 'string',
      default: '127.0.0.1:6444',
      value: 'HOST:PORT',
      help: 'Where it listens; port 0 picks a free one.',
    },
    'data-dir': {
      type: 'string',
      default: '.paddock/devcluster',
      value: 'DIR',
      help: 'The CA, the admin kubeconfig and the embedded store; kept private (0700).',
    },
    'etcd-endpoints': {
      type: 'string',
      value: 'URL,...',
      help: 'Keep its objects in etcd at these endpoints instead of the embedded store.',
    },
    'etcd-prefix': {
      type: 'string',
      default: '/devcluster',
      value: 'PREFIX',
      help: 'The key prefix in etcd (the cluster name is added under it).',
    },
    ...ETCD_TLS_FLAGS,
    name: {
      type: 'string',
      default: 'devcluster',
      value: 'NAME',
      help: 'The cluster, user and context name in its kubeconfig.',
    },
  },
  examples: ['paddock devcluster --listen 127.0.0.1:6444 --data-dir /tmp/dc'],
} as const satisfies CommandSpec;

/** How every tenant and cluster command reaches the gateway's admin API. */
const ADMIN_FLAGS = {
  'data-dir': {
    type: 'string',
    default: '.paddock',
    value: 'DIR',
    help: 'The data directory of `paddock serve`: its admin kubeconfig, <data-dir>/admin.kubeconfig, is used.',
  },
  kubeconfig: {
    type: 'string',
    value: 'FILE',
    help: 'An admin kubeconfig to use instead of the one in --data-dir.',
  },
} as const satisfies Record<string, FlagSpec>;

export const TIMEOUT_FLAG = {
  type: 'string',
  default: '120',
  value: 'SECONDS',
  help: 'How long to wait before giving up.',
} as const satisfies FlagSpec;

export const TENANT_VERBS = {
  create: {
    name: 'tenant create',
    positionals: ['ID'],
    summary: 'Create a tenant and wait until it is Active (its namespaces, RBAC and certificate made).',
    description: 'ID is the tenant id: exactly 6 characters of [a-z0-9].',
    flags: {
      ...ADMIN_FLAGS,
      cluster: { type: 'string', value: 'NAME', help: 'Place the tenant on this member cluster.' },
      timeout: TIMEOUT_FLAG,
    },
    examples: ['paddock tenant create foofoo', 'paddock tenant create barbar --cluster member2'],
  },
  get: {
    name: 'tenant get',
    positionals: ['ID'],
    summary: 'Print a Tenant object.',
    flags: {
      ...ADMIN_FLAGS,
      output: { type: 'string', short: 'o', default: 'yaml', value: 'yaml|json', help: 'The output format.' },
    },
  },
  list: {
    name: 'tenant list',
    summary: 'List the tenants: NAME, PHASE, CLUSTER and AGE.',
    flags: ADMIN_FLAGS,
  },
  delete: {
    name: 'tenant delete',
    positionals: ['ID'],
    summary: 'Delete a tenant and everything it owns upstream; prints what is left until it is gone.',
    flags: { ...ADMIN_FLAGS, timeout: TIMEOUT_FLAG },
  },
  kubeconfig: {
    name: 'tenant kubeconfig',
    positionals: ['ID'],
    summary: "Print the tenant's kubeconfig (with its private key) to stdout, and nothing else.",
    description: 'Redirect it into a private place: the data directory is 0700 and ignored by git.',
    flags: ADMIN_FLAGS,
    examples: ['paddock tenant kubeconfig foofoo > .paddock/foofoo.kubeconfig'],
  },
  rotate: {
    name: 'tenant rotate',
    positionals: ['ID'],
    summary: 'Issue the tenant a new certificate and wait for it; the old one is refused from then on.',
    description: 'Get the new kubeconfig with `paddock tenant kubeconfig ID`.',
    flags: { ...ADMIN_FLAGS, timeout: TIMEOUT_FLAG },
  },
} as const satisfies Record<string, CommandSpec>;

/** `paddock tenant --help`. */
export const TENANT_HELP = commandListText(
  "Administer tenants through the gateway's admin API, with the admin kubeconfig.",
  'paddock tenant <command> [ID] [flags]',
  Object.entries(TENANT_VERBS).map(([name, spec]) => ({ name, summary: spec.summary })),
  "See 'paddock tenant <command> --help' for a command's flags.",
);

export const TENANT_SUMMARY = 'Administer tenants: create, get, list, delete, kubeconfig, rotate.';

/** The help of `paddock tenant <verb>`; undefined for a verb that does not exist. */
export function tenantVerbHelp(verb: string): CommandSpec | undefined {
  return Object.hasOwn(TENANT_VERBS, verb) ? TENANT_VERBS[verb as keyof typeof TENANT_VERBS] : undefined;
}

export const CLUSTER_VERBS = {
  list: {
    name: 'cluster list',
    summary: 'List the clusters: NAME, VERSION, READY, TAINTS, TENANTS (how many live there) and AGE.',
    flags: ADMIN_FLAGS,
  },
  taint: {
    name: 'cluster taint',
    positionals: ['NAME', 'KEY[=VALUE]:EFFECT'],
    summary: 'Add a taint to a cluster, as `kubectl taint` does to a node.',
    description: [
      'EFFECT is NoSchedule (no new tenant is placed there) or NoExecute (the taint manager also moves the',
      "tenants that do not tolerate it away); a cluster takes no other. The taint's timeAdded is now, from",
      "which tenants' tolerationSeconds count. A taint with the same KEY and EFFECT is replaced only with",
      '--overwrite.',
    ].join('\n'),
    flags: {
      ...ADMIN_FLAGS,
      overwrite: { type: 'boolean', help: 'Replace a taint with the same key and effect (value and timeAdded).' },
    },
    examples: [
      'paddock cluster taint member1 maintenance=true:NoSchedule',
      'paddock cluster taint member1 maintenance=drain:NoExecute --overwrite',
    ],
  },
  untaint: {
    name: 'cluster untaint',
    positionals: ['NAME', 'KEY[:EFFECT]'],
    summary: 'Remove the taints with KEY (and EFFECT, when given) from a cluster.',
    flags: ADMIN_FLAGS,
    examples: ['paddock cluster untaint member1 maintenance', 'paddock cluster untaint member1 maintenance:NoExecute'],
  },
} as const satisfies Record<string, CommandSpec>;

/** `paddock cluster --help`. */
export const CLUSTER_HELP = commandListText(
  "Administer the clusters tenants live on through the gateway's admin API, with the admin kubeconfig.",
  'paddock cluster <command> [NAME] [TAINT] [flags]',
  Object.entries(CLUSTER_VERBS).map(([name, spec]) => ({ name, summary: spec.summary })),
  "See 'paddock cluster <command> --help' for a command's flags.",
);

export const CLUSTER_SUMMARY = 'Administer clusters: list, taint, untaint.';

/** The help of `paddock cluster <verb>`; undefined for a verb that does not exist. */
export function clusterVerbHelp(verb: string): CommandSpec | undefined {
  return Object.hasOwn(CLUSTER_VERBS, verb) ? CLUSTER_VERBS[verb as keyof typeof CLUSTER_VERBS] : undefined;
}

export const STOP = {
  name: 'stop',
  summary: 'Stop the Paddock that `paddock serve` runs on a data directory, and wait until it has stopped.',
  flags: {
    'data-dir': { type: 'string', default: '.paddock', value: 'DIR', help: 'The data directory it was started with.' },
    timeout: { type: 'string', default: '60', value: 'SECONDS', help: 'How long to wait before giving up.' },
  },
} as const satisfies CommandSpec;

export const COMMANDS = [
  { name: 'serve', summary: 'Run a gateway replica (npm start runs it with the defaults).' },
  { name: 'stop', summary: 'Stop a Paddock started with `paddock serve` (e.g. `--background`).' },
  { name: 'devcluster', summary: 'Run one devcluster, a Kubernetes-compatible API server.' },
  { name: 'tenant', summary: TENANT_SUMMARY },
  { name: 'cluster', summary: CLUSTER_SUMMARY },
  { name: 'help', summary: "Print a command's help: paddock help tenant create." },
];

export const HELP = commandListText(
  'Paddock: a multi-tenant gateway for Kubernetes. Tenants use kubectl with a kubeconfig it issued and each sees\na cluster of its own (from a checkout: npm run paddock -- <command>).',
  'paddock <command> [flags]',
  COMMANDS,
  "See 'paddock <command> --help' for a command's flags.",
);
