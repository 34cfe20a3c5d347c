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
 *   env            prints PATH, HOSTNAME (the pod's name), the container's literal `env` values
 *                  (entries with `valueFrom` are left out: nothing resolves them) and HOME
 *   hostname       prints the pod's name
 *   anything else  prints `sh: CMD: not found` on stderr and exits 127
 *
 * Attach behaves like cat; without stdin it waits until the client goes away.
 */
import type { ContainerFilesystem } from '../container-files/container-filesystem.js';
import { cat, copyStdin, ls, mkdir, test } from './file-commands.js';
import type { Container } from './pod-containers.js';
import type { ProcessIo } from './process-io.js';
import { runTar } from './simulated-tar.js';

export interface SimulatedContainer {
  podName: string;
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
      io.stdout(`${target.podName}\n`);
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

function environment({ podName, container }: SimulatedContainer): string[] {
  const declared = Array.isArray(container.env) ? container.env : [];
  const literal = declared
    .filter((entry) => entry?.valueFrom === undefined)
    .map((entry) => `${entry.name}=${entry.value ?? ''}`);
  return [`PATH=${PATH}`, `HOSTNAME=${podName}`, ...literal, 'HOME=/root'];
}
