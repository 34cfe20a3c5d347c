/**
 * The devcluster runs no containers, so exec runs one of a few simulated commands instead (the
 * first word of the command, no shell) over the container's in-memory file system
 * (devcluster/container-files/), where the pod's volumes are mounted and `kubectl cp` writes:
 *
 *   echo ARGS...   prints its arguments, space-separated, and a newline
 *   exit [N]       exits with code N (default 0, taken modulo 256); a non-number exits 2
 *   cat [FILE...]  prints the files; `-` or no file copies stdin to stdout until stdin closes
 *   ls [PATH...]   lists directories (the working directory by default), one name a line
 *   test, mkdir    as coreutils (file-commands.ts)
 *   tar            creates, extracts and lists archives: what `kubectl cp` runs (simulated-tar.ts)
 *   env            prints PATH, HOSTNAME (the pod's name), the container's `env` (literal values
 *                  and downward-API fields; other `valueFrom` sources are left out), the
 *                  `kubernetes` Service's variables the kubelet adds where the container sets none
 *                  of its own, and HOME
 *   hostname       prints the pod's name
 *   anything else  prints `sh: CMD: not found` on stderr and exits 127
 *
 * Attach behaves like cat; without stdin it waits until the client goes away.
 */
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import type { ContainerFilesystem } from '../container-files/container-filesystem.js';
import { fieldValue } from '../container-files/pod-volumes.js';
import { KUBERNETES_SERVICE_IP } from '../service-ips.js';
import { cat, copyStdin, ls, mkdir, test } from './file-commands.js';
import type { Container } from './pod-containers.js';
import type { ProcessIo } from './process-io.js';
import { runTar } from './simulated-tar.js';

export interface SimulatedContainer {
  pod: ApiObject;
  container: Container;
  fs: ContainerFilesystem;
}

const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Runs a simulated command to completion and returns its exit code. */
export async function runCommand(argv: readonly string[], target: SimulatedContainer, io: ProcessIo): Promise<number> {
  const [command = '', ...args] = argv;
  switch (command) {
    case 'echo':
      io.stdout(`${args.join(' ')}\n`);
      return 0;
    case 'exit':
      return exitCode(args[0], io);
    case 'cat':
      return cat(args, target.fs, io);
    case 'env':
      io.stdout(environment(target).join('\n') + '\n');
      return 0;
    case 'ls':
      return ls(args, target.fs, io);
    case 'test':
      return test(args, target.fs, io);
    case 'mkdir':
      return mkdir(args, target.fs, io);
    case 'tar':
      return runTar(args, target.fs, io);
    case 'hostname':
      io.stdout(`${podName(target.pod)}\n`);
      return 0;
    default:
      io.stderr(`sh: ${command}: not found\n`);
      return 127;
  }
}

/** What an attached client sees of the container: its stdin echoed back. */
export async function attachProcess(io: ProcessIo): Promise<void> {
  if (io.stdin) {
    await copyStdin(io);
    return;
  }
  if (io.signal.aborted) return;
  await new Promise((resolve) => io.signal.addEventListener('abort', resolve, { once: true }));
}

function exitCode(arg: string | undefined, io: ProcessIo): number {
  if (arg === undefined) return 0;
  if (!/^\d+$/.test(arg)) {
    io.stderr(`sh: exit: Illegal number: ${arg}\n`);
    return 2;
  }
  return Number(BigInt(arg) % 256n);
}

const podName = (pod: ApiObject): string => String(pod.metadata?.name ?? '');

/**
 * What the kubelet gives every container of the default `kubernetes` Service (ClusterIP, port
 * 443), as it gives each Service: the `docker link` variables.
 */
const KUBERNETES_SERVICE_ENV: readonly [string, string][] = [
  ['KUBERNETES_SERVICE_HOST', KUBERNETES_SERVICE_IP],
  ['KUBERNETES_SERVICE_PORT', '443'],
  ['KUBERNETES_SERVICE_PORT_HTTPS', '443'],
  ['KUBERNETES_PORT', `tcp://${KUBERNETES_SERVICE_IP}:443`],
  ['KUBERNETES_PORT_443_TCP', `tcp://${KUBERNETES_SERVICE_IP}:443`],
  ['KUBERNETES_PORT_443_TCP_PROTO', 'tcp'],
  ['KUBERNETES_PORT_443_TCP_PORT', '443'],
  ['KUBERNETES_PORT_443_TCP_ADDR', KUBERNETES_SERVICE_IP],
];

/** A declared variable's value: its literal, or a downward-API field; undefined for other sources. */
function valueOf(pod: ApiObject, entry: { value?: string; valueFrom?: any }): string | undefined {
  if (entry.valueFrom === undefined) return entry.value ?? '';
  const fieldPath = entry.valueFrom?.fieldRef?.fieldPath;
  if (typeof fieldPath !== 'string') return undefined;
  switch (fieldPath) {
    case 'spec.nodeName':
      return String(pod.spec?.nodeName ?? '');
    case 'spec.serviceAccountName':
      return String(pod.spec?.serviceAccountName ?? '');
    case 'status.podIP':
      return String(pod.status?.podIP ?? '');
    case 'status.hostIP':
      return String(pod.status?.hostIP ?? '');
    default:
      return fieldValue(pod, fieldPath) ?? undefined;
  }
}

/** The container's own variables win over the Service's, as in the kubelet's makeEnvironmentVariables. */
function environment({ pod, container }: SimulatedContainer): string[] {
  const declared: { name: string; value?: string; valueFrom?: unknown }[] = Array.isArray(container.env)
    ? container.env
    : [];
  const own = new Map<string, string>();
  for (const entry of declared) {
    const value = valueOf(pod, entry);
    if (value !== undefined) own.set(entry.name, value);
  }
  const service = KUBERNETES_SERVICE_ENV.filter(([name]) => !own.has(name)).map(([name, value]) => `${name}=${value}`);
  return [
    `PATH=${PATH}`,
    `HOSTNAME=${podName(pod)}`,
    ...[...own].map(([name, value]) => `${name}=${value}`),
    ...service,
    'HOME=/root',
  ];
}
