/**
 * A benchmark's world with several member clusters: N devcluster processes (member1, member2, …)
 * and one gateway process given every one of them (`--upstream memberK=…`), all gone when the
 * benchmark ends. For what the gateway does across clusters, such as the search cache.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir } from '../../test/support/temp-dir.js';
import type { BenchOptions, EnvironmentRun } from './environment.js';
import { CPU_PROF_ARGS, profilesOf } from './profile.js';
import {
  rssBytes,
  startDevclusterProcess,
  startGatewayProcessOver,
  stopProcess,
  type ServerProcess,
} from './processes.js';
import { targetOf, type Target } from './target.js';

export interface MemberCluster {
  name: string;
  process: ServerProcess;
  /** The devcluster's admin, as itself: for fixtures and the direct path. */
  admin: Target;
  adminKubeconfig: string;
}

export interface ClustersEnvironment {
  dir: string;
  members: MemberCluster[];
  gateway: ServerProcess;
  /** The gateway's admin: who applies ResourceRegistries and reads the search API. */
  gatewayAdmin: Target;
  gatewayAdminKubeconfig: string;
}

/** Runs `body` against `count` fresh devclusters and a gateway over them (`paddock serve` with `serveArgs` too). */
export async function withClusters<T>(
  options: BenchOptions,
  count: number,
  body: (env: ClustersEnvironment) => Promise<T>,
  serveArgs: string[] = [],
): Promise<{ result: T; run: EnvironmentRun }> {
  const temp = await makeTempDir('bench-clusters');
  const devclusters: ServerProcess[] = [];
  let gateway: ServerProcess | undefined;
  const cpuProfiles: string[] = [];
  let succeeded = false;
  try {
    for (let i = 1; i <= count; i++) devclusters.push(await startDevclusterProcess(path.join(temp.dir, `member${i}`)));
    gateway = await startGatewayProcessOver(
      devclusters.map((devcluster, i) => ({ name: `member${i + 1}`, kubeconfigPath: devcluster.kubeconfigPath })),
      path.join(temp.dir, 'gateway'),
      options.cpuProf ? CPU_PROF_ARGS : [],
      serveArgs,
    );
    const members: MemberCluster[] = [];
    for (const [i, devcluster] of devclusters.entries()) {
      const adminKubeconfig = await readFile(devcluster.kubeconfigPath, 'utf8');
      members.push({ name: `member${i + 1}`, process: devcluster, admin: targetOf(adminKubeconfig), adminKubeconfig });
    }
    const gatewayAdminKubeconfig = await readFile(gateway.kubeconfigPath, 'utf8');
    const result = await body({
      dir: temp.dir,
      members,
      gateway,
      gatewayAdmin: targetOf(gatewayAdminKubeconfig),
      gatewayAdminKubeconfig,
    });
    let devclusterRssBytes = 0;
    for (const devcluster of devclusters) devclusterRssBytes += await rssBytes(devcluster.pid);
    const memory = { gatewayRssBytes: await rssBytes(gateway.pid), devclusterRssBytes };
    succeeded = true;
    return { result, run: { memory, cpuProfiles } };
  } finally {
    if (gateway) await stopProcess(gateway.child);
    for (const devcluster of devclusters) await stopProcess(devcluster.child);
    await temp.remove();
    if (gateway && options.cpuProf) {
      // Node writes the profile as the process exits, so it exists only now.
      cpuProfiles.push(...(await profilesOf(gateway.pid)));
      // Without a table to go under, say at least where the profile went.
      if (!succeeded) for (const file of cpuProfiles) process.stderr.write(`gateway CPU profile: ${file}\n`);
    }
  }
}
