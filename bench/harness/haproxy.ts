/**
 * A second floor under the gateway: HAProxy, a proxy built for nothing but forwarding, in front of
 * the same devcluster. It terminates TLS, forwards each request in HTTP mode as it came (upstream
 * path, impersonation header) over keep-alive TLS connections that present the devcluster's admin
 * certificate, as the bare proxy does, and sends the answer back. Debian's package (`haproxy`,
 * 2.6 on bookworm) is installed by scripts/prerequisites.sh, which `npm run bench` runs first.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { createCertificateAuthority, parseKubeconfig, renderKubeconfig } from '../../certs/index.js';
import { spawnProgram } from '../../processes/spawn-program.js';
import { freePort } from '../../test/support/free-port.js';
import { sleep } from './sleep.js';
import { stopProcess, type ServerProcess } from './processes.js';

const run = promisify(execFile);
const STARTUP_TIMEOUT_MS = 30_000;

/** The haproxy binary's path (`npm run bench` has installed it: harness/prerequisites.ts). */
export async function haproxyBinary(): Promise<string> {
  const found = await which('haproxy');
  if (!found) throw new Error("haproxy not found: `bash scripts/prerequisites.sh haproxy` installs Debian's haproxy");
  return found;
}

async function which(command: string): Promise<string | undefined> {
  try {
    // /usr/sbin is where Debian puts it, and not on every PATH.
    const { stdout } = await run('sh', ['-c', `PATH="$PATH:/usr/sbin:/sbin" command -v ${command}`]);
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The configuration: one frontend, one backend, nothing else. HTTP mode (each request parsed and
 * forwarded on its own, as a gateway must), keep-alive on both sides (HAProxy 2.x's default mode,
 * `http-reuse always` to let any idle upstream connection carry any client's next request, as an
 * undici Pool does), the default of one thread per core, no logging. A request sent on an idle
 * upstream connection just as the devcluster closes it (Node's server does after 5 s idle, which
 * it announces in `Keep-Alive: timeout=5`; undici heeds that, HAProxy does not) gets no answer:
 * HAProxy then sends it again (`retry-on`), as it would in front of any server, instead of a 502.
 */
export function haproxyConfig(files: {
  port: number;
  servingPem: string;
  upstream: URL;
  upstreamCaPem: string;
  upstreamClientPem: string;
}): string {
  return `global
  maxconn 4096

defaults
  mode http
  option http-keep-alive
  http-reuse always
  timeout connect 5s
  timeout client 60s
  timeout server 60s
  timeout http-keep-alive 60s
  retries 3
  retry-on conn-failure empty-response junk-response

frontend tenants
  bind 127.0.0.1:${files.port} ssl crt ${files.servingPem}
  default_backend devcluster

backend devcluster
  server devcluster ${files.upstream.hostname}:${files.upstream.port} ssl verify required ca-file ${files.upstreamCaPem} crt ${files.upstreamClientPem}
`;
}

/**
 * Starts HAProxy in front of the upstream of `upstreamKubeconfigPath`, its config and keys in
 * `dir`, on a free loopback port; ready once the port accepts connections. Its kubeconfig holds
 * its CA and the upstream admin's certificate, which it does not ask for.
 */
export async function startHaproxyProcess(upstreamKubeconfigPath: string, dir: string): Promise<ServerProcess> {
  const binary = await haproxyBinary();
  const upstream = parseKubeconfig(await readFile(upstreamKubeconfigPath, 'utf8'));
  const ca = await createCertificateAuthority({ commonName: 'haproxy-ca' });
  const serving = await ca.issueServingCertificate({ hosts: ['127.0.0.1', 'localhost'] });
  const file = (name: string) => path.join(dir, name);
  await writeFile(file('haproxy-serving.pem'), `${serving.certPem.trim()}\n${serving.keyPem.trim()}\n`, {
    mode: 0o600,
  });
  await writeFile(file('haproxy-upstream-ca.pem'), upstream.caPem);
  await writeFile(file('haproxy-upstream-client.pem'), `${upstream.certPem.trim()}\n${upstream.keyPem.trim()}\n`, {
    mode: 0o600,
  });
  const port = await freePort();
  await writeFile(
    file('haproxy.cfg'),
    haproxyConfig({
      port,
      servingPem: file('haproxy-serving.pem'),
      upstream: new URL(upstream.server),
      upstreamCaPem: file('haproxy-upstream-ca.pem'),
      upstreamClientPem: file('haproxy-upstream-client.pem'),
    }),
  );
  // -db: in the foreground, so that its PID is the one to stop.
  let notStarted: (err: Error) => void = () => {};
  const child = spawnProgram(
    binary,
    ['-db', '-f', file('haproxy.cfg')],
    { stdio: ['ignore', 'ignore', 'pipe'] },
    (err) => notStarted(err),
  );
  createInterface({ input: child.stderr! }).on('line', (line) =>
    process.stderr.write(`[haproxy ${child.pid}] ${line}\n`),
  );
  const exited = new Promise<never>((_, reject) => {
    notStarted = reject;
    child.once('exit', (code, signal) => reject(new Error(`haproxy exited (${code ?? signal}) before it was ready`)));
  });
  exited.catch(() => undefined);
  try {
    await Promise.race([untilListening(port), exited]);
  } catch (err) {
    await stopProcess(child);
    throw err;
  }
  const url = `https://127.0.0.1:${port}`;
  const kubeconfigPath = file('haproxy.kubeconfig');
  await writeFile(
    kubeconfigPath,
    renderKubeconfig({
      clusterName: 'haproxy',
      server: url,
      caPem: ca.certPem,
      userName: 'haproxy',
      certPem: upstream.certPem,
      keyPem: upstream.keyPem,
      contextName: 'haproxy',
    }),
  );
  return { label: 'haproxy', child, pid: child.pid!, url, kubeconfigPath };
}

async function untilListening(port: number): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (!(await accepts(port))) {
    if (Date.now() > deadline)
      throw new Error(`haproxy did not listen on ${port} within ${STARTUP_TIMEOUT_MS / 1000} s`);
    await sleep(50);
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
