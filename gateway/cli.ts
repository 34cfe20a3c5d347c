#!/usr/bin/env node
/**
 * The `paddock` command: `serve` (a gateway replica), `devcluster`, and `tenant` (administration
 * through the gateway's admin API).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { installFaultHandlers } from '../apiserver/process-faults.js';
import { startDevCluster, type DevCluster } from '../devcluster/devcluster.js';
import { privateDataDir, writePrivateFile } from '../store/index.js';
import { startGateway } from './gateway.js';
import { DEFAULT_TENANT_LIMITS } from './tenant-limits.js';
import { tenantCommand } from './tenant-cli.js';

const USAGE = `usage:
  paddock serve [--listen 127.0.0.1:6443] [--advertise-address HOST:PORT] [--data-dir .paddock]
                [--dev-clusters 1 | --upstream NAME=KUBECONFIG ...] [--etcd-endpoints http://127.0.0.1:2379,...] [--etcd-prefix /paddock]
                [--ca-cert F --ca-key F] [--key-algorithm ecdsa|rsa] [--tenant-cert-validity 8760h] [--election-ttl 5] [--max-request-bytes 3145728]
                [--tenant-qps 1000] [--tenant-burst 2000] [--tenant-max-watches 200] [--tenant-max-upstream-connections 1000]
  paddock devcluster [--listen 127.0.0.1:6444] [--data-dir .paddock/devcluster] [--etcd-endpoints URL,...] [--etcd-prefix /devcluster] [--name devcluster]
  paddock tenant create|get|list|delete|kubeconfig|rotate ID [--data-dir .paddock | --kubeconfig F] [--cluster NAME] [-o yaml|json]`;

function endpointsOf(value: string | undefined): string[] | undefined {
  const endpoints = value?.split(',').filter(Boolean);
  return endpoints?.length ? endpoints : undefined;
}

async function untilSignal(): Promise<void> {
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

/**
 * `serve`: a gateway replica. Without `--upstream` it first starts `--dev-clusters` embedded
 * devclusters (`member1`…) as its upstream clusters and writes their kubeconfigs to
 * `<data-dir>/clusters/<name>.kubeconfig`; the admin kubeconfig goes to `<data-dir>/admin.kubeconfig`.
 */
async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      listen: { type: 'string', default: '127.0.0.1:6443' },
      'advertise-address': { type: 'string' },
      'data-dir': { type: 'string', default: '.paddock' },
      'dev-clusters': { type: 'string', default: '1' },
      upstream: { type: 'string', multiple: true },
      'etcd-endpoints': { type: 'string' },
      'etcd-prefix': { type: 'string', default: '/paddock' },
      'ca-cert': { type: 'string' },
      'ca-key': { type: 'string' },
      'key-algorithm': { type: 'string', default: 'ecdsa' },
      'tenant-cert-validity': { type: 'string', default: '8760h' },
      'election-ttl': { type: 'string', default: '5' },
      'max-request-bytes': { type: 'string', default: String(3 * 1024 * 1024) },
      'tenant-qps': { type: 'string', default: String(DEFAULT_TENANT_LIMITS.qps) },
      'tenant-burst': { type: 'string', default: String(DEFAULT_TENANT_LIMITS.burst) },
      'tenant-max-watches': { type: 'string', default: String(DEFAULT_TENANT_LIMITS.maxWatches) },
      'tenant-max-upstream-connections': {
        type: 'string',
        default: String(DEFAULT_TENANT_LIMITS.maxUpstreamConnections),
      },
    },
  });
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
  const keyAlgorithm = values['key-algorithm'];
  if (keyAlgorithm !== 'ecdsa' && keyAlgorithm !== 'rsa') throw new Error('--key-algorithm must be ecdsa or rsa');
  const dataDir = path.resolve(values['data-dir']);
  const clustersDir = path.join(dataDir, 'clusters');
  const etcdEndpoints = endpointsOf(values['etcd-endpoints']);
  const devclusters: DevCluster[] = [];
  try {
    const upstreams = await Promise.all((values.upstream ?? []).map(parseUpstream));
    if (upstreams.length === 0) {
      const count = Number(values['dev-clusters']);
      if (!Number.isInteger(count) || count < 1 || count > 16)
        throw new Error('--dev-clusters must be a whole number from 1 to 16 (or give --upstream)');
      await privateDataDir(clustersDir);
      for (let i = 1; i <= count; i++) {
        const name = `member${i}`;
        const cluster = await startDevCluster({
          name,
          listen: '127.0.0.1:0',
          dataDir: path.join(clustersDir, name),
          etcdEndpoints,
          etcdPrefix: `${values['etcd-prefix']}/clusters`,
        });
        devclusters.push(cluster);
        const kubeconfig = path.join(clustersDir, `${name}.kubeconfig`);
        const text = await readFile(cluster.kubeconfigPath, 'utf8');
        await writePrivateFile(kubeconfig, text);
        upstreams.push({ name, kubeconfig: text });
        process.stdout.write(`devcluster ${name} listening on ${cluster.url}; direct kubeconfig: ${kubeconfig}\n`);
      }
    }
    const gateway = await startGateway({
      listen: values.listen,
      advertiseAddress: values['advertise-address'],
      dataDir,
      etcdEndpoints,
      etcdPrefix: values['etcd-prefix'],
      caCert: values['ca-cert'],
      caKey: values['ca-key'],
      keyAlgorithm,
      tenantCertValidityDays: durationDays(values['tenant-cert-validity']),
      upstreams,
      electionTtlSeconds: Number(values['election-ttl']),
      maxRequestBytes: Number(values['max-request-bytes']),
      tenantLimits,
    });
    process.stdout.write(
      `paddock gateway listening on ${gateway.url}; admin kubeconfig: ${gateway.adminKubeconfigPath}\n`,
    );
    // From here on a fault is one request's, not the gateway's (startup failures still end it).
    installFaultHandlers();
    await untilSignal();
    await gateway.stop();
    return 0;
  } finally {
    await Promise.all(devclusters.map((c) => c.stop()));
  }
}

/** `--upstream NAME=KUBECONFIG` */
async function parseUpstream(spec: string): Promise<{ name: string; kubeconfig: string }> {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new Error(`--upstream must be NAME=KUBECONFIG, got ${JSON.stringify(spec)}`);
  return { name: spec.slice(0, eq), kubeconfig: await readFile(spec.slice(eq + 1), 'utf8') };
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

/** A validity such as `8760h` or `365d` (Go durations in hours, or days), in days. */
function durationDays(text: string): number {
  const match = /^(\d+)(h|d)$/.exec(text);
  if (!match) throw new Error(`--tenant-cert-validity must look like 8760h or 365d, got ${JSON.stringify(text)}`);
  const days = match[2] === 'd' ? Number(match[1]) : Number(match[1]) / 24;
  if (days <= 0) throw new Error('--tenant-cert-validity must be positive');
  return days;
}

/** Runs one devcluster until SIGINT or SIGTERM. */
async function devcluster(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      listen: { type: 'string', default: '127.0.0.1:6444' },
      'data-dir': { type: 'string', default: '.paddock/devcluster' },
      'etcd-endpoints': { type: 'string' },
      'etcd-prefix': { type: 'string', default: '/devcluster' },
      name: { type: 'string', default: 'devcluster' },
    },
  });
  const cluster = await startDevCluster({
    name: values.name,
    listen: values.listen,
    dataDir: values['data-dir'],
    etcdEndpoints: endpointsOf(values['etcd-endpoints']),
    etcdPrefix: values['etcd-prefix'],
  });
  process.stdout.write(
    `devcluster ${cluster.name} listening on ${cluster.url}; admin kubeconfig: ${cluster.kubeconfigPath}\n`,
  );
  installFaultHandlers();
  await untilSignal();
  await cluster.stop();
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'serve') return serve(rest);
  if (command === 'devcluster') return devcluster(rest);
  if (command === 'tenant') return tenantCommand(rest, (line) => process.stdout.write(`${line}\n`));
  process.stderr.write(`${command ? `unknown command ${JSON.stringify(command)}\n` : ''}${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: Error) => {
    process.stderr.write(`paddock: ${err.message}\n`);
    process.exitCode = 1;
  },
);
