/** `paddock devcluster`: one devcluster, a Kubernetes-compatible API server, until Ctrl-C or SIGTERM. */
import path from 'node:path';
import { installFaultHandlers } from '../apiserver/process-faults.js';
import { startDevCluster } from '../devcluster/devcluster.js';
import { DEVCLUSTER } from './cli-commands.js';
import { listFlag, parseCommand } from './cli-usage.js';
import { etcdTlsFromFlags } from './etcd-tls-flags.js';
import { shownPath } from './serve-banner.js';
import { catchStopSignals, stopOnSignal } from './until-signal.js';

export async function devcluster(args: string[]): Promise<number> {
  const parsed = parseCommand(DEVCLUSTER, args, (text) => process.stdout.write(text));
  if (!parsed) return 0;
  const { values } = parsed;
  const etcdEndpoints = listFlag(values['etcd-endpoints']);
  const etcdTls = await etcdTlsFromFlags(values, etcdEndpoints);
  process.stderr.write(`starting devcluster ${values.name} on ${values.listen} …\n`);
  const cluster = await startDevCluster({
    name: values.name,
    listen: values.listen,
    dataDir: path.resolve(values['data-dir']),
    etcdEndpoints,
    etcdPrefix: values['etcd-prefix'],
    etcdTls,
  });
  const kubeconfig = shownPath(cluster.kubeconfigPath);
  const caught = catchStopSignals();
  process.stdout.write(
    [
      `devcluster ${cluster.name} is up: ${cluster.url}`,
      `  admin kubeconfig   ${kubeconfig}`,
      'Next: use kubectl with it (its own discovery cache: KUBECACHEDIR):',
      `  KUBECONFIG=${kubeconfig} KUBECACHEDIR=${path.join(path.dirname(kubeconfig), 'kubectl-cache')} kubectl get namespaces`,
      'Stop: Ctrl-C',
      '',
    ].join('\n'),
  );
  installFaultHandlers();
  await stopOnSignal(`devcluster ${cluster.name}`, caught, () => cluster.stop());
  return 0;
}
