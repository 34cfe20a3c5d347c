import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { spawnProgram } from '../../processes/spawn-program.js';
import { waitUntil } from './eventually.js';
import { freePort } from './free-port.js';
import { makeTempDir } from './temp-dir.js';

export interface EtcdServer {
  endpoint: string;
  pid: number;
  /** Ends the process (SIGKILL: a crash, or SIGTERM), keeping its data and ports: `start` brings it back. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same data and ports, after `kill`. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** PEM files for etcd's client port: its serving certificate and key, and the CA its clients' certificates must be signed by. */
export interface EtcdServerTls {
  certFile: string;
  keyFile: string;
  clientCaFile: string;
}

/**
 * A real etcd (Debian's etcd-server, 3.4) on free loopback ports in a temp dir, with the short
 * heartbeat and election timeouts that let a one-member cluster start in tens of milliseconds.
 * With `tls`, its client port speaks only TLS and asks every client for a certificate
 * (`--client-cert-auth`). Stopped by PID.
 */
export async function startEtcd(options: { tls?: EtcdServerTls } = {}): Promise<EtcdServer> {
  const { dir, remove } = await makeTempDir('etcd');
  const clientPort = await freePort();
  const peerPort = await freePort();
  const { tls } = options;
  const client = `${tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const tlsFlags = tls
    ? [
        '--cert-file',
        tls.certFile,
        '--key-file',
        tls.keyFile,
        '--trusted-ca-file',
        tls.clientCaFile,
        '--client-cert-auth',
      ]
    : [];
  const peer = `http://127.0.0.1:${peerPort}`;
  const launch = async (): Promise<ChildProcess> => {
    let startError: Error | undefined;
    const child = spawnProgram(
      process.env.ETCD_BIN ?? 'etcd',
      [
        '--name',
        'n',
        '--data-dir',
        dir,
        '--listen-client-urls',
        client,
        '--advertise-client-urls',
        client,
        '--listen-peer-urls',
        peer,
        '--initial-advertise-peer-urls',
        peer,
        '--initial-cluster',
        `n=${peer}`,
        '--heartbeat-interval=10',
        '--election-timeout=100',
        '--log-level=error',
        ...tlsFlags,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
      (err) => (startError = err),
    );
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    try {
      await waitForPort(
        clientPort,
        child,
        () => startError,
        () => stderr,
      );
    } catch (err) {
      child.kill('SIGKILL');
      throw err;
    }
    return child;
  };
  let child: ChildProcess;
  try {
    child = await launch();
  } catch (err) {
    await remove();
    throw err;
  }
  const server: EtcdServer = {
    endpoint: client,
    pid: child.pid!,
    kill: (signal = 'SIGKILL') => killAndWait(child, signal),
    start: async () => {
      child = await launch();
      server.pid = child.pid!;
    },
    stop: async () => {
      await killAndWait(child);
      await remove();
    },
  };
  return server;
}

async function waitForPort(
  port: number,
  child: ChildProcess,
  startError: () => Error | undefined,
  stderr: () => string,
): Promise<void> {
  await waitUntil(
    `etcd listens on ${port}`,
    async () => {
      const notStarted = startError();
      if (notStarted) throw notStarted;
      if (child.exitCode !== null) throw new Error(`etcd exited with ${child.exitCode}: ${stderr()}`);
      return canConnect(port);
    },
    { timeout: 15_000, interval: 20, message: () => `etcd did not listen on ${port} within 15s: ${stderr()}` },
  );
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function killAndWait(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
