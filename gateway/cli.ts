#!/usr/bin/env node
/**
 * The `paddock` command. The gateway itself is not built yet: `serve` runs what exists (the
 * embedded devcluster upstreams) and says plainly what does not; `tenant` says so and exits 3.
 */
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startDevCluster, type DevCluster } from '../devcluster/devcluster.js';

const USAGE = `usage:
  paddock serve [--data-dir .paddock] [--dev-clusters 1] [--etcd-endpoints http://127.0.0.1:2379,...] [--etcd-prefix /paddock]
  paddock devcluster [--listen 127.0.0.1:6444] [--data-dir .paddock/devcluster] [--etcd-endpoints URL,...] [--etcd-prefix /devcluster] [--name devcluster]
  paddock tenant create|get|list|delete|kubeconfig ID`;

const NOT_BUILT: Record<string, string> = {
  tenant: 'tenant administration needs the gateway\'s admin API, which is not built yet',
};

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
 * `serve`: starts the embedded devclusters (`member1`…) that the gateway will use as upstreams,
 * writes `<data-dir>/clusters/<name>.kubeconfig` for each, and runs until SIGINT or SIGTERM.
 */
async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'data-dir': { type: 'string', default: '.paddock' },
      'dev-clusters': { type: 'string', default: '1' },
      'etcd-endpoints': { type: 'string' },
      'etcd-prefix': { type: 'string', default: '/paddock' },
      listen: { type: 'string', default: '127.0.0.1:6443' },
    },
  });
  const count = Number(values['dev-clusters']);
  if (!Number.isInteger(count) || count < 0 || count > 16) throw new Error('--dev-clusters must be a whole number from 0 to 16');
  const dataDir = path.resolve(values['data-dir']);
  const clustersDir = path.join(dataDir, 'clusters');
  await mkdir(clustersDir, { recursive: true });
  const clusters: DevCluster[] = [];
  try {
    for (let i = 1; i <= count; i++) {
      const name = `member${i}`;
      const cluster = await startDevCluster({
        name,
        listen: '127.0.0.1:0',
        dataDir: path.join(clustersDir, name),
        etcdEndpoints: endpointsOf(values['etcd-endpoints']),
        etcdPrefix: `${values['etcd-prefix']}/clusters`,
      });
      clusters.push(cluster);
      const kubeconfig = path.join(clustersDir, `${name}.kubeconfig`);
      await copyFile(cluster.kubeconfigPath, kubeconfig);
      process.stdout.write(`devcluster ${name} listening on ${cluster.url}; direct kubeconfig: ${kubeconfig}\n`);
    }
    process.stdout.write(
      `not built yet: the gateway (HTTPS on ${values.listen}), its admin API and ${path.join(dataDir, 'admin.kubeconfig')}; ` +
        `nothing listens on ${values.listen}. Use the devcluster kubeconfigs above for now.\n`,
    );
    await untilSignal();
    return 0;
  } finally {
    await Promise.all(clusters.map((c) => c.stop()));
  }
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
  process.stdout.write(`devcluster ${cluster.name} listening on ${cluster.url}; admin kubeconfig: ${cluster.kubeconfigPath}\n`);
  await untilSignal();
  await cluster.stop();
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'serve') return serve(rest);
  if (command === 'devcluster') return devcluster(rest);
  if (command && NOT_BUILT[command]) {
    process.stderr.write(`paddock ${command}: ${NOT_BUILT[command]}\n`);
    return 3;
  }
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
