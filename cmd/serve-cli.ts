/**
 * `paddock serve`: a gateway replica. Without `--upstream` it first starts `--dev-clusters`
 * embedded devclusters (`member1`…) as its upstream clusters and writes their kubeconfigs to
 * `<data-dir>/clusters/<name>.kubeconfig`; the admin kubeconfig goes to `<data-dir>/admin.kubeconfig`.
 */
import { readFile } from 'node:fs/promises';
import { clusterProbedReadyStatus } from '../clusters/cluster-resource.js';
import path from 'node:path';
import { installFaultHandlers } from '../apiserver/process-faults.js';
import type { DevCluster } from '../devcluster/devcluster.js';
import type { Gateway } from '../gateway/server/gateway.js';
import { privateDataDir, writePrivateFile } from '../store/index.js';
import { parseFailoverResources, parseTenantCache } from '../gateway/cached/tenant-cached-resources.js';
import { announceRunning, announceStopped, serveInBackground, startedInBackground } from './background.js';
import { SERVE } from './cli-commands.js';
import { listFlag, parseCommand } from './cli-usage.js';
import { etcdTlsFromFlags } from './etcd-tls-flags.js';
import { isRequestLogMode, REQUEST_LOG_MODES, requestLogLine } from '../gateway/observability/request-log.js';
import { validEvictionRate, type EvictionSettings } from '../eviction/eviction-settings.js';
import { parseGoDuration } from './go-duration.js';
import { serveBanner } from './serve-banner.js';
import { catchStopSignals, stopOnSignal } from './until-signal.js';
import { commandMessage, configureLog, isLogFormat, isLogLevel, LOG_FORMATS, LOG_LEVELS } from '../log/log.js';
import type { AuditLogOptions } from '../gateway/observability/audit-log.js';

export async function serve(args: string[]): Promise<number> {
  const parsed = parseCommand(SERVE, args, (text) => process.stdout.write(text));
  if (!parsed) return 0;
  const { values } = parsed;
  const tenantLimits = {
    qps: limitFlag('--tenant-qps', values['tenant-qps'], false),
    burst: limitFlag('--tenant-burst', values['tenant-burst'], true),
    maxWatches: limitFlag('--tenant-max-watches', values['tenant-max-watches'], true),
    maxUpstreamConnections: limitFlag(
      '--tenant-max-upstream-connections',
      values['tenant-max-upstream-connections'],
      true,
    ),
  };
  if (tenantLimits.qps > 0 && tenantLimits.burst === 0)
    throw new Error('--tenant-burst must be at least 1 while --tenant-qps limits the rate');
  const upstreamSeats = {
    tenantSeats: countFlag('--upstream-tenant-seats', values['upstream-tenant-seats'], 1),
    seatsPerTenant: countFlag('--tenant-upstream-seats', values['tenant-upstream-seats'], 1),
    tenantQueueLength: countFlag('--tenant-queue-length', values['tenant-queue-length'], 0),
    tenantQueueWaitMs: durationFlag('--tenant-queue-wait', values['tenant-queue-wait'], 0),
    gatewaySeats: countFlag('--upstream-gateway-seats', values['upstream-gateway-seats'], 1),
  };
  const keyAlgorithm = values['key-algorithm'];
  if (keyAlgorithm !== 'ecdsa' && keyAlgorithm !== 'rsa') throw new Error('--key-algorithm must be ecdsa or rsa');
  const requestLog = values['request-log'];
  if (!isRequestLogMode(requestLog))
    throw new Error(`--request-log must be ${REQUEST_LOG_MODES.join(' or ')}, got ${JSON.stringify(requestLog)}`);
  const logFormat = values['log-format'];
  if (!isLogFormat(logFormat))
    throw new Error(`--log-format must be ${LOG_FORMATS.join(' or ')}, got ${JSON.stringify(logFormat)}`);
  const logLevel = values['log-level'];
  if (!isLogLevel(logLevel))
    throw new Error(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`);
  const auditLog = auditLogFlags(values);
  const tenantCertValidityDays = durationDays(values['tenant-cert-validity']);
  const clusterStatusFrequencyMs = durationFlag(
    '--cluster-status-update-frequency',
    values['cluster-status-update-frequency'],
    1000,
  );
  const clusterSuccessThresholdMs = durationFlag('--cluster-success-threshold', values['cluster-success-threshold'], 0);
  const clusterFailureThresholdMs = durationFlag('--cluster-failure-threshold', values['cluster-failure-threshold'], 0);
  const noExecuteTaintAfter = values['no-execute-taint-after'];
  const noExecuteTaintAfterMs =
    noExecuteTaintAfter === '' ? undefined : durationFlag('--no-execute-taint-after', noExecuteTaintAfter, 0);
  const cacheSyncTimeoutMs = durationFlag('--cache-sync-timeout', values['cache-sync-timeout'], 1000);
  const upstreamTimeoutMs = durationFlag('--upstream-timeout', values['upstream-timeout'], 1);
  const shutdownDelayMs = durationFlag('--shutdown-delay', values['shutdown-delay'], 0);
  const shutdownTimeoutMs = durationFlag('--shutdown-timeout', values['shutdown-timeout'], 0);
  if (shutdownDelayMs > shutdownTimeoutMs)
    throw new Error('--shutdown-delay must not be longer than --shutdown-timeout');
  const eviction = evictionFlags(values);
  const enableNoExecuteTaintEviction = values['enable-no-execute-taint-eviction'] === true;
  if (enableNoExecuteTaintEviction) parseFailoverResources(values['failover-resources']);
  parseTenantCache(values['tenant-cache']);
  const tenantCacheMaxBytes = Number(values['tenant-cache-max-bytes']);
  if (!Number.isSafeInteger(tenantCacheMaxBytes) || tenantCacheMaxBytes < 0)
    throw new Error('--tenant-cache-max-bytes must be a whole number of bytes (0: no budget)');
  const watchFlushIntervalMs = durationFlag('--watch-flush-interval', values['watch-flush-interval'], 0, 10_000);
  const upstreamSpecs = values.upstream ?? [];
  const devClusterCount = Number(values['dev-clusters']);
  if (upstreamSpecs.length === 0 && (!Number.isInteger(devClusterCount) || devClusterCount < 1 || devClusterCount > 16))
    throw new Error('--dev-clusters must be a whole number from 1 to 16 (or give --upstream)');
  const dataDir = path.resolve(values['data-dir']);
  const etcdEndpoints = listFlag(values['etcd-endpoints']);
  const etcdTls = await etcdTlsFromFlags(values, etcdEndpoints);
  if (values.background)
    return serveInBackground(
      args.filter((arg) => arg !== '--background'),
      dataDir,
    );

  configureLog({ format: logFormat, level: logLevel });
  const clustersDir = path.join(dataDir, 'clusters');
  const devclusters: DevCluster[] = [];
  const stopDevclusters = () => Promise.all(devclusters.splice(0).map((c) => c.stop()));
  const clusters: { name: string; kubeconfig: string; url?: string }[] = [];
  try {
    const upstreams = await Promise.all(upstreamSpecs.map(parseUpstream));
    clusters.push(...upstreams.map((u) => ({ name: u.name, kubeconfig: u.file })));
    const starting = `starting Paddock: ${upstreams.length ? `upstream ${upstreams.map((u) => u.name).join(', ')}` : `${devClusterCount} devcluster${devClusterCount > 1 ? 's' : ''}`}, then the gateway on ${values.listen}`;
    commandMessage('paddock', `${starting} …\n`, { msg: starting });
    if (upstreams.length === 0) {
      await privateDataDir(clustersDir);
      // Imported here, as the gateway below: flags refused and --help answer without loading them.
      const { startDevCluster } = await import('../devcluster/devcluster.js');
      for (let i = 1; i <= devClusterCount; i++) {
        const name = `member${i}`;
        const cluster = await startDevCluster({
          name,
          listen: '127.0.0.1:0',
          dataDir: path.join(clustersDir, name),
          etcdEndpoints,
          etcdPrefix: `${values['etcd-prefix']}/clusters`,
          etcdTls,
        });
        devclusters.push(cluster);
        const kubeconfig = path.join(clustersDir, `${name}.kubeconfig`);
        const text = await readFile(cluster.kubeconfigPath, 'utf8');
        await writePrivateFile(kubeconfig, text);
        upstreams.push({ name, kubeconfig: text, file: kubeconfig });
        clusters.push({ name, kubeconfig, url: cluster.url });
      }
    }
    const { startGateway } = await import('../gateway/server/gateway.js');
    const gateway = await startGateway({
      listen: values.listen,
      advertiseAddress: values['advertise-address'],
      advertiseService: values['advertise-service'],
      dataDir,
      etcdEndpoints,
      etcdPrefix: values['etcd-prefix'],
      etcdTls,
      caCert: values['ca-cert'],
      caKey: values['ca-key'],
      trustedCaFile: values['trusted-ca-file'],
      keyAlgorithm,
      tenantCertValidityDays,
      upstreams,
      electionTtlSeconds: Number(values['election-ttl']),
      defaultCluster: values['default-cluster'],
      clusterStatusUpdateFrequencyMs: clusterStatusFrequencyMs,
      clusterSuccessThresholdMs,
      clusterFailureThresholdMs,
      noExecuteTaintAfterMs,
      enableNoExecuteTaintEviction,
      eviction,
      failoverResources: values['failover-resources'],
      cacheSyncTimeoutMs,
      upstreamTimeoutMs,
      shutdownDelayMs,
      shutdownTimeoutMs,
      tenantCache: values['tenant-cache'],
      tenantCacheMaxBytes,
      watchFlushIntervalMs,
      maxRequestBytes: Number(values['max-request-bytes']),
      tenantLimits,
      upstreamSeats,
      onRequest: requestLog === 'line' ? (entry) => process.stdout.write(`${requestLogLine(entry)}\n`) : undefined,
      auditLog,
      metricsPerTenant: values['metrics-per-tenant'] === true,
    });
    const banner = serveBanner({
      gatewayUrl: gateway.url,
      adminKubeconfig: gateway.adminKubeconfigPath,
      dataDir,
      clusters,
      requestLog,
      auditLog: auditLog?.path,
      background: startedInBackground(),
    });
    const caught = catchStopSignals();
    // Tenants go only to clusters probed Ready: a tenant made before the first probes would wait as
    // Pending, saying no cluster is Ready. So the banner waits for them (a cluster that cannot be
    // reached is probed too, Ready False), though not past FIRST_PROBES_WAIT_MS (no elected replica yet).
    await firstProbes(gateway, FIRST_PROBES_WAIT_MS);
    // The pid file, then the banner: whoever reads the banner may look for the pid at once (paddock stop, tests).
    await announceRunning(dataDir, banner);
    // From here on a fault is one request's, not the gateway's (startup failures still end it).
    installFaultHandlers();
    await stopOnSignal('Paddock', caught, async () => {
      await gateway.drain();
      await gateway.stop();
      await stopDevclusters();
      await announceStopped(dataDir);
    });
    return 0;
  } finally {
    await stopDevclusters();
  }
}

/** `--audit-log-path`, `--audit-log-maxsize` (megabytes, a fraction allowed) and `--audit-log-maxbackup`, as kube-apiserver's. */
function auditLogFlags(values: Record<string, unknown>): AuditLogOptions | undefined {
  const maxSize = Number(values['audit-log-maxsize']);
  const maxBytes = Math.round(maxSize * 1024 * 1024);
  if (String(values['audit-log-maxsize']).trim() === '' || !Number.isFinite(maxSize) || maxBytes < 1)
    throw new Error(
      `--audit-log-maxsize must be a positive number of megabytes, got ${JSON.stringify(values['audit-log-maxsize'])}`,
    );
  const maxBackups = Number(values['audit-log-maxbackup']);
  if (String(values['audit-log-maxbackup']).trim() === '' || !Number.isSafeInteger(maxBackups) || maxBackups < 0)
    throw new Error(
      `--audit-log-maxbackup must be a whole number (0 keeps every file), got ${JSON.stringify(values['audit-log-maxbackup'])}`,
    );
  const file = values['audit-log-path'];
  if (typeof file !== 'string' || file === '') return undefined;
  return { path: path.resolve(file), maxBytes, maxBackups };
}

/** `--upstream NAME=KUBECONFIG` */
async function parseUpstream(spec: string): Promise<{ name: string; kubeconfig: string; file: string }> {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new Error(`--upstream must be NAME=KUBECONFIG, got ${JSON.stringify(spec)}`);
  const file = path.resolve(spec.slice(eq + 1));
  return { name: spec.slice(0, eq), kubeconfig: await readFile(file, 'utf8'), file };
}

/** A per-tenant limit: a non-negative number (a whole one unless `whole` is false); 0 turns the limit off. */
function limitFlag(flag: string, text: string, whole: boolean): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0 || (whole && !Number.isInteger(value))) {
    throw new Error(
      `${flag} must be a non-negative ${whole ? 'whole number' : 'number'} (0: no limit), got ${JSON.stringify(text)}`,
    );
  }
  return value;
}

/** A whole number of at least `min` (seats, places in a queue). */
function countFlag(flag: string, text: string, min: number): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isSafeInteger(value) || value < min)
    throw new Error(`${flag} must be a whole number of at least ${min}, got ${JSON.stringify(text)}`);
  return value;
}

/** Karmada's failover and rate limiter flags, validated as its ClusterFailoverOptions and ratelimiterflag do. */
function evictionFlags(values: Record<string, unknown>): EvictionSettings {
  const rate = Number(values['resource-eviction-rate']);
  if (String(values['resource-eviction-rate']).trim() === '' || !validEvictionRate(rate))
    throw new Error(
      `--resource-eviction-rate must be non-negative (0 pauses eviction), got ${JSON.stringify(values['resource-eviction-rate'])}`,
    );
  const purgeMode = values['no-execute-taint-eviction-purge-mode'];
  if (purgeMode !== 'Gracefully' && purgeMode !== 'Directly')
    throw new Error(
      `--no-execute-taint-eviction-purge-mode must be Gracefully or Directly, got ${JSON.stringify(purgeMode)}`,
    );
  const positive = (flag: string) => {
    const value = Number(values[flag]);
    if (!(value > 0) || !Number.isFinite(value))
      throw new Error(`--${flag} must be a positive number, got ${JSON.stringify(values[flag])}`);
    return value;
  };
  const secondaryRate = Number(values['secondary-resource-eviction-rate']);
  if (String(values['secondary-resource-eviction-rate']).trim() === '' || !validEvictionRate(secondaryRate))
    throw new Error(
      `--secondary-resource-eviction-rate must be non-negative, got ${JSON.stringify(values['secondary-resource-eviction-rate'])}`,
    );
  const threshold = Number(values['unhealthy-cluster-threshold']);
  if (String(values['unhealthy-cluster-threshold']).trim() === '' || !(threshold >= 0 && threshold <= 1))
    throw new Error(
      `--unhealthy-cluster-threshold must be a share from 0 to 1, got ${JSON.stringify(values['unhealthy-cluster-threshold'])}`,
    );
  return {
    resourceEvictionRate: rate,
    ...(values['adaptive-eviction-rate'] === true
      ? { adaptive: { secondaryRate, unhealthyThreshold: threshold } }
      : {}),
    purgeMode,
    workers: Math.floor(positive('concurrent-eviction-syncs')),
    gracefulEvictionTimeoutMs: durationFlag(
      '--graceful-eviction-timeout',
      String(values['graceful-eviction-timeout']),
      0,
    ),
    rateLimiter: {
      baseDelayMs: durationFlag('--rate-limiter-base-delay', String(values['rate-limiter-base-delay']), 0),
      maxDelayMs: durationFlag('--rate-limiter-max-delay', String(values['rate-limiter-max-delay']), 0),
      qps: positive('rate-limiter-qps'),
      bucketSize: Math.floor(positive('rate-limiter-bucket-size')),
    },
  };
}

/**
 * A Go duration (`30s`, `1m30s`, `100ms`) from `minMs` to `maxMs`, in milliseconds; a bare number
 * is seconds, as these flags took before they took Go durations.
 */
function durationFlag(flag: string, text: string, minMs: number, maxMs = Infinity): number {
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : parseGoDuration(text);
  if (ms === undefined || ms < minMs || ms > maxMs) {
    const range = `${minMs === 0 ? 'from 0' : `of at least ${goDuration(minMs)}`}${maxMs === Infinity ? '' : ` to ${goDuration(maxMs)}`}`;
    throw new Error(`${flag} must be a duration ${range} such as 100ms, 30s or 5m, got ${JSON.stringify(text)}`);
  }
  return ms;
}

function goDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** A validity such as `8760h` or `365d` (Go durations in hours, or days), in days. */
function durationDays(text: string): number {
  const match = /^(\d+)(h|d)$/.exec(text);
  if (!match) throw new Error(`--tenant-cert-validity must look like 8760h or 365d, got ${JSON.stringify(text)}`);
  const days = match[2] === 'd' ? Number(match[1]) : Number(match[1]) / 24;
  if (days <= 0) throw new Error('--tenant-cert-validity must be positive');
  return days;
}

/** How long `serve` waits for the first probe of each cluster before it says it is up. */
const FIRST_PROBES_WAIT_MS = 10_000;

/** Resolves once every registered cluster has a Ready condition, or after `ms`. */
async function firstProbes(gateway: Gateway, ms: number): Promise<void> {
  const probed = () => gateway.clusters.objects().every((cluster) => clusterProbedReadyStatus(cluster) !== undefined);
  if (probed()) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      unfollow();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const unfollow = gateway.clusters.onChange(() => {
      if (probed()) done();
    });
  });
}
