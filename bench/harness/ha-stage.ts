/**
 * Paddock as it is deployed (deploy/): a real etcd, three `paddock serve` replicas on it, each a
 * process of its own, and Debian's HAProxy in front of them with deploy/haproxy.cfg (TCP
 * passthrough, health checks on `/readyz`); the replicas advertise the balancer, so every
 * kubeconfig they issue points at it. One devcluster is the member cluster. The HA test
 * (test/ha/ha-balancer.test.ts) and the `ha` benchmark run their load and faults on it.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { waitUntil } from '../../test/support/eventually.js';
import { spawnProgram } from '../../processes/spawn-program.js';
import { startEtcd, type EtcdServer } from '../../test/support/etcd-server.js';
import { freePort } from '../../test/support/free-port.js';
import { haproxyConfig } from '../../test/support/haproxy-config.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { haproxyBinary } from './haproxy.js';
import { startDevclusterProcess, startGatewayProcessOver, stopProcess, type ServerProcess } from './processes.js';

export interface Replica {
  name: string;
  /** Its --listen port: its identity in elections (`<host>_<pid>_<port>`) ends with it. */
  port: number;
  /** The running process; undefined while it is killed. */
  process: ServerProcess | undefined;
  /** Kills it (SIGKILL: a crash) or stops it (SIGTERM: its graceful stop); resolves once it is gone. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Starts it again, on its port and data directory. */
  start(): Promise<void>;
}

export interface HaStage {
  etcd: EtcdServer;
  replicas: Replica[];
  /** `https://127.0.0.1:<port>`: the balancer. */
  url: string;
  /** The admin kubeconfig (it points at the balancer). */
  adminKubeconfigPath: string;
  dir: string;
  stop(): Promise<void>;
}

export interface HaStageOptions {
  replicas?: number;
  /** `paddock serve` flags of every replica. */
  serveArgs?: string[];
}

export async function startHaStage(options: HaStageOptions = {}): Promise<HaStage> {
  const work = await makeTempDir('ha');
  const stops: (() => Promise<void>)[] = [() => work.remove()];
  const stop = async () => {
    for (const fn of stops.reverse()) await fn().catch(() => undefined);
  };
  try {
    const etcd = await startEtcd();
    stops.push(() => etcd.stop());
    const member = await startDevclusterProcess(`${work.dir}/member1`);
    stops.push(() => stopProcess(member.child));
    const lbPort = await freePort();
    const replicas: Replica[] = [];
    for (let i = 0; i < (options.replicas ?? 3); i++) {
      const port = await freePort();
      const replica: Replica = {
        name: `gateway-${i}`,
        port,
        process: undefined,
        kill: async (signal) => {
          const child = replica.process?.child;
          replica.process = undefined;
          if (child) await killed(child, signal);
        },
        start: async () => {
          replica.process = await startGatewayProcessOver(
            [{ name: 'member1', kubeconfigPath: member.kubeconfigPath }],
            `${work.dir}/${replica.name}`,
            [],
            [
              '--listen',
              `127.0.0.1:${port}`,
              '--advertise-address',
              `127.0.0.1:${lbPort}`,
              '--etcd-endpoints',
              etcd.endpoint,
              ...(options.serveArgs ?? []),
            ],
          );
        },
      };
      replicas.push(replica);
    }
    stops.push(async () => {
      for (const replica of replicas) await replica.kill('SIGTERM');
    });
    // The first one alone: it makes the CA in the store, which the others then read.
    await replicas[0].start();
    await Promise.all(replicas.slice(1).map((replica) => replica.start()));
    const haproxy = await startHaproxy(
      `${work.dir}/haproxy.cfg`,
      await haproxyConfig({
        bind: `127.0.0.1:${lbPort}`,
        servers: replicas.map((replica) => ({ name: replica.name, address: `127.0.0.1:${replica.port}` })),
      }),
    );
    stops.push(() => stopProcess(haproxy));
    return {
      etcd,
      replicas,
      url: `https://127.0.0.1:${lbPort}`,
      adminKubeconfigPath: replicas[0].process!.kubeconfigPath,
      dir: work.dir,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** HAProxy in the foreground (`-db`), its log lines on stderr prefixed, once it listens. */
async function startHaproxy(configPath: string, config: string): Promise<ChildProcess> {
  await writeFile(configPath, config);
  const binary = await haproxyBinary();
  let startError: Error | undefined;
  const child = spawnProgram(binary, ['-db', '-f', configPath], { stdio: ['ignore', 'pipe', 'pipe'] }, (err) => {
    startError = err;
  });
  createInterface({ input: child.stderr! }).on('line', (line) => process.stderr.write(`[haproxy] ${line}\n`));
  // Its traffic log (deploy/haproxy.cfg logs to stdout) is read and dropped, so the pipe never fills.
  child.stdout!.resume();
  const port = Number(/bind 127\.0\.0\.1:(\d+)/.exec(config)![1]);
  await waitUntil(`haproxy listens on ${port}`, () => {
    if (startError) throw startError;
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}) at start`);
    return canConnect(port);
  });
  return child;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function killed(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (signal === 'SIGTERM') return stopProcess(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  await exited;
}
