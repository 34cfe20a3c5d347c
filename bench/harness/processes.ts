/**
 * The devcluster and the gateway as processes of their own (`paddock devcluster`, `paddock
 * serve`), as they run in production: the benchmark process never shares their CPU or heap.
 * Each is ready when it says where it is (the block it prints once up; a PADDOCK_BENCH_CLI build
 * from before that block printed one listening line instead); each is stopped by its PID.
 */
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnProgram } from '../../processes/spawn-program.js';
import { createInterface } from 'node:readline';
import { BARE_PROXY, CLI, LAUNCHER } from './locations.js';

const STARTUP_TIMEOUT_MS = 60_000;
/** A devcluster holding 100k pods takes a while to flush its log on SIGTERM. */
const STOP_TIMEOUT_MS = 30_000;

export interface ServerProcess {
  label: string;
  child: ChildProcess;
  pid: number;
  url: string;
  kubeconfigPath: string;
}

/**
 * node's default heap (4 GiB here) is less than a cluster-wide list of 100k Pods takes the
 * devcluster to build (`tenant-list-all`); it stands for a kube-apiserver, which has no such limit.
 */
const DEVCLUSTER_HEAP_MIB = 12 * 1024;

/** `devcluster NAME is up: URL` and `  admin kubeconfig   PATH` (before: `devcluster NAME listening on URL; admin kubeconfig: PATH`) */
export function startDevclusterProcess(
  dataDir: string,
  listen = '127.0.0.1:0',
  nodeArgs: string[] = [],
): Promise<ServerProcess> {
  return startCli(
    'devcluster',
    [`--max-old-space-size=${DEVCLUSTER_HEAP_MIB}`, ...nodeArgs],
    ['devcluster', '--listen', listen, '--data-dir', dataDir],
    [
      /^devcluster \S+ is up: (\S+)\n {2}admin kubeconfig {3}(.+)\n/m,
      /^devcluster \S+ listening on (\S+); admin kubeconfig: (.+)\n/m,
    ],
  );
}

/** A member cluster the gateway is started with: `--upstream NAME=KUBECONFIG`. */
export interface UpstreamCluster {
  name: string;
  kubeconfigPath: string;
}

/** `Paddock is up: the gateway listens on URL` and `  admin kubeconfig   PATH` (before: `paddock gateway listening on URL; admin kubeconfig: PATH`), with `nodeArgs` (e.g. `--cpu-prof`) for its node and `serveArgs` (e.g. `--key-algorithm rsa`) for `paddock serve`. */
export function startGatewayProcess(
  upstreamKubeconfigPath: string,
  dataDir: string,
  nodeArgs: string[],
  serveArgs: string[] = [],
): Promise<ServerProcess> {
  return startGatewayProcessOver(
    [{ name: 'member1', kubeconfigPath: upstreamKubeconfigPath }],
    dataDir,
    nodeArgs,
    serveArgs,
  );
}

/** The same, over several member clusters. */
export async function startGatewayProcessOver(
  upstreams: UpstreamCluster[],
  dataDir: string,
  nodeArgs: string[],
  serveArgs: string[] = [],
): Promise<ServerProcess> {
  const limits = await unthrottledTenantFlags();
  return startCli(
    'gateway',
    nodeArgs,
    [
      'serve',
      ...upstreams.flatMap(({ name, kubeconfigPath }) => ['--upstream', `${name}=${kubeconfigPath}`]),
      '--listen',
      '127.0.0.1:0',
      '--data-dir',
      dataDir,
      ...limits,
      ...serveArgs,
    ],
    [
      /^Paddock is up: the gateway listens on (\S+)\n {2}admin kubeconfig {3}(.+)\n/m,
      /^paddock gateway listening on (\S+); admin kubeconfig: (.+)\n/m,
    ],
  );
}

/**
 * One tenant makes all of a benchmark's load, so the per-tenant limits are set far above it: the
 * benchmarks measure the gateway, never its limiter, whose accounting still runs on every request
 * (0 would turn it off). Likewise the tenant may take every tenant seat of the cluster, as its
 * requests could take the whole pool before the seats, and never meets a full queue. A build
 * from before the limiter or the seats (PADDOCK_BENCH_CLI) has no such flags in its help (`serve
 * --help`; before that command had one, the usage printed without arguments), and gets none.
 */
const UNTHROTTLED = [
  '--tenant-qps',
  '1000000',
  '--tenant-burst',
  '1000000',
  '--tenant-max-watches',
  '1000000',
  '--tenant-max-upstream-connections',
  '1000000',
];
const UNQUEUED = ['--tenant-upstream-seats', '1000000', '--tenant-queue-length', '1000000'];
let tenantFlags: Promise<string[]> | undefined;

function unthrottledTenantFlags(): Promise<string[]> {
  tenantFlags ??= Promise.all([cliOutput(['serve', '--help']), cliOutput([])]).then((helps) =>
    helps.some((help) => help.includes('--tenant-qps'))
      ? [...UNTHROTTLED, ...(helps.some((help) => help.includes('--tenant-upstream-seats')) ? UNQUEUED : [])]
      : [],
  );
  return tenantFlags;
}

/** What the command prints, stdout and stderr, with `args`. */
function cliOutput(args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const child = spawnProgram(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }, () =>
      resolve(''),
    );
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('close', () => resolve(output));
  });
}

/** `bare proxy listening on URL; kubeconfig: PATH`: the floor under the gateway (bare-proxy.ts). */
export function startBareProxyProcess(upstreamKubeconfigPath: string, dir: string): Promise<ServerProcess> {
  return startScript(
    'bare-proxy',
    [],
    BARE_PROXY,
    [upstreamKubeconfigPath, dir],
    [/^bare proxy listening on (\S+); kubeconfig: (.+)\n/m],
  );
}

/** Through the `paddock` launcher, as a user runs it (its allocator included), with CLI as its build. */
function startCli(label: string, nodeArgs: string[], args: string[], ready: RegExp[]): Promise<ServerProcess> {
  return startProcess(label, LAUNCHER, args, { PADDOCK_CLI: CLI, PADDOCK_NODE_ARGS: nodeArgs.join(' ') }, ready);
}

function startScript(
  label: string,
  nodeArgs: string[],
  script: string,
  args: string[],
  /** What it prints once ready, any of these: its URL and its kubeconfig's path, in that order. */
  ready: RegExp[],
): Promise<ServerProcess> {
  return startProcess(label, process.execPath, [...nodeArgs, script, ...args], {}, ready);
}

function startProcess(
  label: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp[],
): Promise<ServerProcess> {
  let failed: (err: Error) => void = () => {};
  const child = spawnProgram(
    command,
    args,
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
    (err) => failed(err),
  );
  // Its complaints (a failed request in the gateway) belong in the benchmark's output.
  createInterface({ input: child.stderr! }).on('line', (line) =>
    process.stderr.write(`[${label} ${child.pid}] ${line}\n`),
  );
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const fail = (err: Error) => {
      clearTimeout(timer);
      stopProcess(child).then(
        () => reject(err),
        () => reject(err),
      );
    };
    const onExit = (code: number | null, signal: string | null) =>
      fail(new Error(`${label} exited (${code ?? signal}) before it was ready`));
    const timer = setTimeout(
      () => fail(new Error(`${label} did not say it was up within ${STARTUP_TIMEOUT_MS / 1000} s`)),
      STARTUP_TIMEOUT_MS,
    );
    failed = fail;
    child.once('exit', onExit);
    // Later lines keep being read, so the pipe never fills and blocks the server.
    let printed = '';
    let ended = false;
    lines.on('line', (line) => {
      if (ended) return;
      printed += `${line}\n`;
      const match = ready.map((pattern) => pattern.exec(printed)).find(Boolean);
      if (!match) return;
      ended = true;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ label, child, pid: child.pid!, url: match[1], kubeconfigPath: path.resolve(match[2]) });
    });
  });
}

/** SIGTERM to the PID, then SIGKILL if it has not exited within the timeout. */
export async function stopProcess(child: ChildProcess, timeoutMs = STOP_TIMEOUT_MS): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
  ]);
  clearTimeout(timer);
  if (!timedOut) return;
  process.stderr.write(`pid ${child.pid} did not exit within ${timeoutMs / 1000} s of SIGTERM; killing it\n`);
  child.kill('SIGKILL');
  await exited;
}

/** Resident memory of a process (VmRSS of /proc/PID/status), in bytes. */
export async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}
