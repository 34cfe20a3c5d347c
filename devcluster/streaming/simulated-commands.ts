/**
 * The devcluster runs no containers, so exec runs one of a few simulated commands instead (the
 * first word of the command, no shell, no filesystem):
 *
 *   echo ARGS...   prints its arguments, space-separated, and a newline
 *   exit [N]       exits with code N (default 0, taken modulo 256); a non-number exits 2
 *   cat            copies stdin to stdout until stdin closes; file arguments do not exist (exit 1)
 *   env            prints PATH, HOSTNAME (the pod's name), the container's literal `env` values
 *                  (entries with `valueFrom` are left out: nothing resolves them) and HOME
 *   ls             prints a fixed listing of a root filesystem, whatever its arguments
 *   hostname       prints the pod's name
 *   anything else  prints `sh: CMD: not found` on stderr and exits 127
 *
 * Attach behaves like cat; without stdin it waits until the client goes away.
 */
import type { Container } from './pod-containers.js';

export interface ProcessIo {
  /** The client's stdin, or null when the request has none (stdin=false). */
  stdin: AsyncIterable<Buffer> | null;
  stdout(data: string | Buffer): void;
  stderr(data: string | Buffer): void;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
}

export interface SimulatedContainer {
  podName: string;
  container: Container;
}

const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const ROOT_LISTING = ['bin', 'dev', 'etc', 'home', 'lib', 'proc', 'root', 'sys', 'tmp', 'usr', 'var'];

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
      if (args.length > 0) {
        for (const file of args) io.stderr(`cat: ${file}: No such file or directory\n`);
        return 1;
      }
      await copyStdin(io);
      return 0;
    case 'env':
      io.stdout(environment(target).join('\n') + '\n');
      return 0;
    case 'ls':
      io.stdout(ROOT_LISTING.join('\n') + '\n');
      return 0;
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

async function copyStdin(io: ProcessIo): Promise<void> {
  if (!io.stdin) return;
  try {
    for await (const chunk of io.stdin) io.stdout(chunk);
  } catch {
    // The client went away mid-stream: there is no one left to answer.
  }
}

function environment({ podName, container }: SimulatedContainer): string[] {
  const declared = Array.isArray(container.env) ? container.env : [];
  const literal = declared
    .filter((entry) => entry?.valueFrom === undefined)
    .map((entry) => `${entry.name}=${entry.value ?? ''}`);
  return [`PATH=${PATH}`, `HOSTNAME=${podName}`, ...literal, 'HOME=/root'];
}
