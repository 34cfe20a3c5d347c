/**
 * One benchmark's world: a devcluster process (the upstream), a gateway process in front of it,
 * and their temp dirs, all gone when the benchmark ends.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { CPU_PROF_ARGS, profilesOf } from './profile.js';
import { rssBytes, startDevclusterProcess, startGatewayProcess, stopProcess, type ServerProcess } from './processes.js';
import { targetOf, type Target } from './target.js';

export interface BenchOptions {
  /** Small sizes, for CI: the benchmarks must run, their numbers mean little. */
  quick: boolean;
  /** Profile the gateway's CPU (bench/results/profiles). */
  cpuProf: boolean;
}

/** How long a quick run measures a load: long enough to make its requests, too short to mean much. */
export const QUICK_RUN_MS = 100;
/** Iterations a quick run warms a load up with: each side's connections open, its code paths run. */
export const QUICK_WARMUP = 10;

export interface BenchEnvironment {
  /** A temp dir for files such as tenant kubeconfigs. */
  dir: string;
  devcluster: ServerProcess;
  gateway: ServerProcess;
  /** The devcluster's admin, as itself: for fixtures. */
  upstreamAdmin: Target;
  upstreamAdminKubeconfig: string;
  gatewayAdminKubeconfig: string;
}

/** What a benchmark reports about its processes besides its measurements. */
export interface EnvironmentRun {
  /** Both processes' resident memory at the end of the benchmark. */
  memory: { gatewayRssBytes: number; devclusterRssBytes: number };
  /** With --cpu-prof: the gateway's .cpuprofile files, written as it exited. */
  cpuProfiles: string[];
  /** With --cpu-prof: the devcluster's, where the benchmark profiles it too (`tenants`). */
  devclusterCpuProfiles?: string[];
}

/** Runs `body` against a fresh devcluster and gateway (`paddock serve` with `serveArgs` too), which are stopped when it ends. */
export async function withEnvironment<T>(
  options: BenchOptions,
  body: (env: BenchEnvironment) => Promise<T>,
  serveArgs: string[] = [],
  /** With --cpu-prof, profile the devcluster too: where its CPU is as much the cost as the gateway's. */
  profileDevcluster = false,
): Promise<{ result: T; run: EnvironmentRun }> {
  const temp = await makeTempDir('bench');
  let devcluster: ServerProcess | undefined;
  let gateway: ServerProcess | undefined;
  const cpuProfiles: string[] = [];
  const devclusterCpuProfiles: string[] = [];
  let succeeded = false;
  try {
    devcluster = await startDevclusterProcess(
      path.join(temp.dir, 'devcluster'),
      undefined,
      options.cpuProf && profileDevcluster ? CPU_PROF_ARGS : [],
    );
    gateway = await startGatewayProcess(
      devcluster.kubeconfigPath,
      path.join(temp.dir, 'gateway'),
      options.cpuProf ? CPU_PROF_ARGS : [],
      serveArgs,
    );
    const upstreamAdminKubeconfig = await readFile(devcluster.kubeconfigPath, 'utf8');
    const env: BenchEnvironment = {
      dir: temp.dir,
      devcluster,
      gateway,
      upstreamAdmin: targetOf(upstreamAdminKubeconfig),
      upstreamAdminKubeconfig,
      gatewayAdminKubeconfig: await readFile(gateway.kubeconfigPath, 'utf8'),
    };
    const result = await body(env);
    const memory = { gatewayRssBytes: await rssBytes(gateway.pid), devclusterRssBytes: await rssBytes(devcluster.pid) };
    succeeded = true;
    return { result, run: { memory, cpuProfiles, devclusterCpuProfiles } };
  } finally {
    if (gateway) await stopProcess(gateway.child);
    if (devcluster) await stopProcess(devcluster.child);
    await temp.remove();
    if (gateway && options.cpuProf) {
      // Node writes the profile as the process exits, so it exists only now.
      cpuProfiles.push(...(await profilesOf(gateway.pid)));
      if (!cpuProfiles.length)
        process.stderr.write(`no CPU profile from gateway pid ${gateway.pid}: it did not exit cleanly\n`);
      // Without a table to go under, say at least where the profile went.
      if (!succeeded) for (const file of cpuProfiles) process.stderr.write(`gateway CPU profile: ${file}\n`);
    }
    if (devcluster && options.cpuProf && profileDevcluster)
      devclusterCpuProfiles.push(...(await profilesOf(devcluster.pid)));
  }
}
