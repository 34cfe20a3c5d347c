#!/usr/bin/env node
/**
 * The `paddock` command. Today only the store exists; every command that needs a part not built
 * yet says so and exits non-zero instead of pretending.
 */
import { parseArgs } from 'node:util';
import path from 'node:path';
import { startDevCluster } from '../devcluster/devcluster.js';
import { openStore } from '../store/index.js';

const USAGE = `usage:
  paddock serve [--data-dir .paddock] [--etcd-endpoints http://127.0.0.1:2379,...] [--etcd-prefix /paddock]
  paddock devcluster [--listen 127.0.0.1:6444] [--data-dir .paddock/devcluster] [--etcd-endpoints URL,...] [--etcd-prefix /devcluster] [--name devcluster]
  paddock tenant create|get|list|delete|kubeconfig ID`;

const NOT_BUILT: Record<string, string> = {
  tenant: 'tenant administration needs the gateway\'s admin API, which is not built yet',
};

async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'data-dir': { type: 'string', default: '.paddock' },
      'etcd-endpoints': { type: 'string' },
      'etcd-prefix': { type: 'string', default: '/paddock' },
      listen: { type: 'string', default: '127.0.0.1:6443' },
    },
  });
  const endpoints = values['etcd-endpoints']?.split(',').filter(Boolean);
  const dataDir = path.resolve(values['data-dir']);
  const store = await openStore({ dataDir, etcdEndpoints: endpoints, etcdPrefix: values['etcd-prefix'] });
  const revision = await store.currentRevision();
  await store.close();
  const where = endpoints?.length ? `etcd at ${endpoints.join(',')} under ${values['etcd-prefix']}` : `embedded, in ${dataDir}`;
  process.stdout.write(
    `store: ${where}, revision ${revision}: opened and closed again\n` +
      `not built yet: the gateway (HTTPS on ${values.listen}) and its admin API; nothing is listening.\n` +
      `A devcluster (a Kubernetes API server for development) runs with: npm run paddock -- devcluster\n`,
  );
  return 0;
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
    etcdEndpoints: values['etcd-endpoints']?.split(',').filter(Boolean),
    etcdPrefix: values['etcd-prefix'],
  });
  process.stdout.write(`devcluster ${cluster.name} listening on ${cluster.url}; admin kubeconfig: ${cluster.kubeconfigPath}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
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
