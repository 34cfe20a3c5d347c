/**
 * The README's commands run as written, in order, in one terminal, on a fresh copy of the
 * project: a copy without .git and what .gitignore ignores (node_modules, dist, .paddock, …; CI
 * may run from a copy without git), a HOME of its own (so no kubectl cache or config of the machine's is used), and the real
 * kubectl on the PATH. `npm ci` installs from npm's cache (prefer-offline), as on a machine that
 * has run it once. The copy gets this run's dist/ (built by the same scripts/build.mjs that
 * `npm start` runs, from the clean clone CI starts with), so `npm start` finds it built: a second
 * full build here cost 25 s of CPU and showed nothing new.
 *
 * The README's shell blocks, in order: `npm ci && npm start` (run, then stopped with Ctrl-C, as a
 * user would), `npm test` (this suite: not run again), the walkthrough (one bash, every command
 * checked against what its comment promises), and the Commands list (each line run, or named
 * below as not run here and why). A new block or a new command fails this test until it says
 * what to expect of it.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { cp, readFile, writeFile, mkdir, symlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { waitUntil } from '../support/eventually.js';
import { KUBECTL_DISPATCHER } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/**
 * Whether a fresh clone lacks `relative`: git's own directory, and what .gitignore ignores (its
 * entries here are directories, `dir/`, and file patterns, `*.log`), installed, built or written
 * by a run (a kubeconfig a user saved at the root).
 */
function notInAClone(relative: string, gitignore: string[]): boolean {
  return (
    relative === '.git' ||
    gitignore.some((entry) =>
      entry.startsWith('*') ? relative.endsWith(entry.slice(1)) : relative === entry.replace(/^\/|\/$/g, ''),
    )
  );
}

/** The README's ```sh blocks, in order. */
function shellBlocks(readme: string): string[] {
  return [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/** A block's commands: one per line, a heredoc's lines with the command that opens it. */
function commandsOf(block: string): string[] {
  const commands: string[] = [];
  let heredocEnd: string | undefined;
  for (const line of block.split('\n')) {
    if (heredocEnd !== undefined) {
      commands[commands.length - 1] += `\n${line}`;
      if (line === heredocEnd) heredocEnd = undefined;
    } else if (line.trim()) {
      commands.push(line);
      heredocEnd = /<<-?'?(\w+)'?/.exec(line)?.[1];
    }
  }
  return commands;
}

/** A command's first line without its comment: how the expectations below name it. */
const commandKey = (command: string) => command.split('\n')[0].replace(/\s+#.*$/, '');

/** A port someone listens on now. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Processes whose working directory is in `dir` (Linux: /proc). */
function processesIn(dir: string): number[] {
  if (!existsSync('/proc/self/cwd')) return [];
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const cwd = readlinkSync(`/proc/${pid}/cwd`);
        return cwd === dir || cwd.startsWith(`${dir}/`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

interface Terminal {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

describe('docs: the README runs as written on a fresh copy, in one terminal', function () {
  this.timeout(600_000);
  let project: string;
  let env: NodeJS.ProcessEnv;
  let home: string;
  const removals: (() => Promise<void>)[] = [];
  let blocks: string[];

  /** `bash -c line` in the project, in a process group of its own, as a terminal runs it. */
  function terminal(line: string): Terminal {
    const child = spawn('bash', ['-c', line], { cwd: project, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    return { child, output: () => output, exited };
  }

  async function untilPrinted(run: Terminal, pattern: RegExp, what: string): Promise<void> {
    await waitUntil(
      what,
      () => {
        if (pattern.test(run.output())) return true;
        if (run.child.exitCode !== null) throw new Error(`${what}: it exited ${run.child.exitCode}:\n${run.output()}`);
        return false;
      },
      { timeout: 300_000, interval: 100, message: () => `${what}: not printed ${pattern}:\n${run.output()}` },
    );
  }

  /** Ctrl-C: SIGINT to the terminal's foreground process group, then waits until it has ended. */
  async function ctrlC(run: Terminal): Promise<void> {
    process.kill(-run.child.pid!, 'SIGINT');
    await run.exited;
  }

  /** Runs a server command of the README, checks it comes up and stops on Ctrl-C. */
  async function serverCommand(line: string, up: RegExp, whileUp?: () => Promise<void>): Promise<string> {
    const run = terminal(line);
    await untilPrinted(run, up, line);
    await whileUp?.();
    await ctrlC(run);
    expect(run.output(), line).to.match(/SIGINT: stopping .* … stopped\n/);
    return run.output();
  }

  before(async function () {
    for (const port of [6443, 6444, 7443])
      if (await listening(port))
        throw new Error(`127.0.0.1:${port} is taken: the README's commands listen there; stop what uses it`);
    const temp = await makeTempDir('readme');
    removals.push(temp.remove);
    project = path.join(temp.dir, 'paddock');
    home = path.join(temp.dir, 'home');
    const gitignore = (await readFile(path.join(REPO_ROOT, '.gitignore'), 'utf8'))
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    await cp(REPO_ROOT, project, {
      recursive: true,
      filter: (source) => !notInAClone(path.relative(REPO_ROOT, source), gitignore),
    });
    await cp(path.join(REPO_ROOT, 'dist'), path.join(project, 'dist'), { recursive: true });
    const bin = path.join(temp.dir, 'bin');
    await mkdir(bin);
    await mkdir(home);
    await symlink(KUBECTL_DISPATCHER, path.join(bin, 'kubectl'));
    env = {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: home,
      LANG: 'C.UTF-8',
      // npm's cache of the machine, so `npm ci` installs what it installed before without the network.
      npm_config_cache: process.env.npm_config_cache ?? path.join(homedir(), '.npm'),
      npm_config_prefer_offline: 'true',
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    };
    blocks = shellBlocks(await readFile(path.join(project, 'README.md'), 'utf8'));
  });

  after(async () => {
    // A failed step may leave a server behind: nothing of this test outlives it.
    for (const pid of project ? processesIn(project) : []) process.kill(pid, 'SIGKILL');
    for (const remove of removals) await remove();
  });

  it('has the blocks this test knows: run Paddock, run the tests, the walkthrough, the Commands list', () => {
    expect(blocks).to.have.length(4);
    expect(blocks[0]).to.equal('npm ci && npm start\n');
    expect(blocks[1]).to.equal('npm test\n');
  });

  it('npm ci && npm start: installs, runs Paddock until Ctrl-C', async () => {
    const output = await serverCommand(blocks[0].trim(), /^Stop: Ctrl-C$/m);
    expect(output).to.match(/^Paddock is up: the gateway listens on https:\/\/127\.0\.0\.1:6443$/m);
    expect(output).to.match(/^ {2}admin kubeconfig {3}\.paddock\/admin\.kubeconfig$/m);
    expect(output).to.match(
      /^ {2}cluster member1 {4}https:\/\/127\.0\.0\.1:\d+, kubeconfig \.paddock\/clusters\/member1\.kubeconfig$/m,
    );
    expect(await listening(6443), 'the gateway stopped').to.equal(false);
  });

  it('the walkthrough, in one bash: every command does what its comment says, and nothing is left running', async () => {
    const commands = commandsOf(blocks[2]);
    let stopped: number | undefined;
    let memberPort: number | undefined;
    const expectations: Record<string, (output: string) => unknown> = {
      'npm start -- --background': (output) => {
        expect(output).to.match(
          /^starting Paddock in the background \(log: \.paddock\/serve\.log\) … up \(pid \d+\)$/m,
        );
        expect(output).not.to.match(/building Paddock/);
        expect(output).to.match(/^Paddock is up: the gateway listens on https:\/\/127\.0\.0\.1:6443$/m);
        memberPort = Number(/cluster member1 +https:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1]);
      },
      'admin()   { KUBECONFIG=.paddock/admin.kubeconfig            KUBECACHEDIR=.paddock/kubectl-cache/admin   kubectl "$@"; }':
        (output) => expect(output).to.equal(''),
      'foofoo()  { KUBECONFIG=.paddock/foofoo.kubeconfig           KUBECACHEDIR=.paddock/kubectl-cache/foofoo  kubectl "$@"; }':
        (output) => expect(output).to.equal(''),
      'member1() { KUBECONFIG=.paddock/clusters/member1.kubeconfig KUBECACHEDIR=.paddock/kubectl-cache/member1 kubectl "$@"; }':
        (output) => expect(output).to.equal(''),
      'search()  { KUBECONFIG=.paddock/admin.kubeconfig            KUBECACHEDIR=.paddock/kubectl-cache/search  kubectl --server https://127.0.0.1:6443/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy "$@"; }':
        (output) => expect(output).to.equal(''),
      "admin create -f - <<'YAML'": (output) =>
        expect(output).to.equal('resourceregistry.search.karmada.io/pods created\n'),
      "search get pods -A -o custom-columns=CLUSTER:'.metadata.annotations.resource\\.karmada\\.io/cached-from-cluster',NAMESPACE:.metadata.namespace,NAME:.metadata.name":
        (output) =>
          expect(output).to.match(/^CLUSTER\s+NAMESPACE\s+NAME\n(.|\n)*^member1\s+foofoo-default\s+web-\S+$/m),
      "admin apply -f - <<'YAML'": (output) => expect(output).to.equal('tenant.tenant.kubezoo.io/foofoo created\n'),
      "admin wait --for=jsonpath='{.status.phase}'=Active tenant/foofoo": (output) =>
        expect(output).to.equal('tenant.tenant.kubezoo.io/foofoo condition met\n'),
      'admin get tenants': (output) =>
        expect(output).to.match(/^NAME\s+PHASE\s+CLUSTER\s+AGE\nfoofoo\s+Active\s+member1\s+\d+s\n$/),
      'admin get clusters': (output) =>
        expect(output).to.match(/^NAME\s+VERSION\s+MODE\s+READY\s+AGE\nmember1\s+v1\.32\.\S+\s+Push\s+True\s+\d+s\n$/),
      'npm run --silent paddock -- tenant kubeconfig foofoo > .paddock/foofoo.kubeconfig': async (output) => {
        expect(output).to.equal('');
        const kubeconfig = parse(await readFile(path.join(project, '.paddock/foofoo.kubeconfig'), 'utf8'));
        expect(kubeconfig['current-context']).to.equal('foofoo@paddock');
      },
      'foofoo auth whoami': (output) => expect(output).to.match(/^Username\s+foofoo-admin$/m),
      'foofoo get namespaces': (output) =>
        expect(
          output
            .split('\n')
            .slice(1, -1)
            .map((line) => line.split(/\s+/)[0]),
        ).to.deep.equal(['default', 'kube-node-lease', 'kube-public', 'kube-system']),
      "foofoo apply -f - <<'YAML'": (output) => expect(output).to.equal('configmap/settings created\n'),
      'foofoo create deployment web --image=nginx': (output) =>
        expect(output).to.equal('deployment.apps/web created\n'),
      'foofoo rollout status deployment/web': (output) =>
        expect(output).to.match(/^deployment "web" successfully rolled out\n$/m),
      'foofoo get deployment web': (output) => expect(output).to.match(/^web\s+1\/1\s+1\s+1\s+\d+s$/m),
      'foofoo exec deploy/web -- env | grep KUBERNETES_SERVICE_HOST': (output) =>
        expect(output).to.equal('KUBERNETES_SERVICE_HOST=127.0.0.1\n'),
      'foofoo exec deploy/web -- cat /var/run/secrets/kubernetes.io/serviceaccount/namespace': (output) =>
        expect(output).to.equal('default'),
      'foofoo explain deployment.spec.replicas': (output) => {
        expect(output).to.match(/^GROUP:\s+apps$/m);
        expect(output).to.match(/^FIELD: replicas <integer>$/m);
        expect(output).to.match(/Number of desired pods/);
      },
      'foofoo create serviceaccount ci': (output) => expect(output).to.equal('serviceaccount/ci created\n'),
      'foofoo create rolebinding ci --clusterrole=cluster-admin --serviceaccount=default:ci': (output) =>
        expect(output).to.equal('rolebinding.rbac.authorization.k8s.io/ci created\n'),
      "foofoo config view --raw --minify | sed '/client-/d' > .paddock/ci.kubeconfig": async (output) => {
        expect(output).to.equal('');
        const kubeconfig = parse(await readFile(path.join(project, '.paddock/ci.kubeconfig'), 'utf8'));
        expect(kubeconfig.clusters[0].cluster['certificate-authority-data']).to.be.a('string');
        expect(JSON.stringify(kubeconfig.users)).not.to.contain('client-');
      },
      'ci() { KUBECONFIG=.paddock/ci.kubeconfig KUBECACHEDIR=.paddock/kubectl-cache/ci kubectl --token "$(foofoo create token ci)" "$@"; }':
        (output) => expect(output).to.equal(''),
      'ci auth whoami': (output) => expect(output).to.match(/^Username\s+system:serviceaccount:default:ci$/m),
      'ci get configmaps': (output) => expect(output).to.match(/^settings\s/m),
      'member1 get namespaces -l kubezoo.io/tenant=foofoo': (output) =>
        expect(
          output
            .split('\n')
            .slice(1, -1)
            .map((line) => line.split(/\s+/)[0]),
        ).to.deep.equal(['foofoo-default', 'foofoo-kube-node-lease', 'foofoo-kube-public', 'foofoo-kube-system']),
      'member1 get configmaps -n foofoo-default': (output) => expect(output).to.match(/^settings\s/m),
      'npm run paddock -- tenant delete foofoo': (output) =>
        expect(output).to.match(/^tenant\/foofoo deleting\n(.|\n)*^tenant\/foofoo deleted\n$/m),
      'npm run paddock -- stop': (output) => {
        const match = /^stopping Paddock \(pid (\d+)\) … stopped$/m.exec(output);
        expect(match, output).to.not.equal(null);
        stopped = Number(match![1]);
      },
    };
    for (const command of commands)
      expect(Object.keys(expectations), 'a README command this test has no expectation for').to.include(
        commandKey(command),
      );

    const script = ['set -e', ...commands.flatMap((command, i) => [`printf '\\n@@@ %d\\n' ${i}`, command])].join('\n');
    const scriptFile = path.join(path.dirname(project), 'walkthrough.sh');
    await writeFile(scriptFile, `${script}\n`);
    const run = terminal(`bash ${scriptFile}`);
    const code = await run.exited;
    const outputs = run.output().split(/\n@@@ (\d+)\n/);
    expect(code, `the walkthrough failed at command ${outputs.at(-2)}:\n${run.output()}`).to.equal(0);
    for (let i = 1; i < outputs.length; i += 2) {
      const command = commands[Number(outputs[i])];
      const output = outputs[i + 1];
      try {
        await expectations[commandKey(command)](output);
      } catch (err) {
        throw new Error(`${commandKey(command)}:\n${(err as Error).message}\nit printed:\n${output}`, { cause: err });
      }
    }
    expect(outputs.length, 'every command ran').to.equal(commands.length * 2 + 1);

    expect(stopped).to.be.a('number');
    expect(() => process.kill(stopped!, 0), 'the server process is gone').to.throw();
    expect(await listening(6443), 'the gateway port is free').to.equal(false);
    expect(await listening(memberPort!), "member1's port is free").to.equal(false);
    expect(processesIn(project), 'processes still running in the project').to.deep.equal([]);
    // Each identity used its own discovery cache; none went to the shared ~/.kube/cache.
    expect(existsSync(path.join(home, '.kube', 'cache')), '~/.kube/cache').to.equal(false);
    for (const identity of ['admin', 'foofoo', 'member1'])
      expect(existsSync(path.join(project, '.paddock/kubectl-cache', identity, 'discovery')), identity).to.equal(true);
    // The tenant's key stays in the private data directory.
    expect(existsSync(path.join(project, 'foofoo.kubeconfig'))).to.equal(false);
    expect(statSync(path.join(project, '.paddock')).mode & 0o777).to.equal(0o700);
  });

  it('the Commands list: each command runs as written (the tests and benchmarks are run elsewhere)', async () => {
    const NOT_RUN_HERE: Record<string, string> = {
      'npm ci && npm start': 'run above, as the first block',
      'npm start -- --background': 'run above, in the walkthrough',
      'npm test': 'this suite',
      'npm test -- store/etcd': 'this suite, narrowed',
      'npm test -- store "leader election"': 'this suite, narrowed',
      'npm run test:unit': 'this suite, one tier',
      'npm test -- --tier e2e gateway/': 'this suite, one tier, narrowed',
      'npm run bench -- get create list tenant-list-all watch tenants memory': 'minutes; test/bench runs --quick',
      'npm run bench -- cache': 'minutes; test/bench runs --quick',
      'npm run bench -- fair-share': 'a benchmark; test/bench runs --quick',
      'npm run bench -- --quick': 'test/bench/bench-quick-*.test.ts, in three shares',
      'npm run bench -- list --cpu-prof': 'a benchmark',
      'npm run bench -- store': 'a benchmark',
      'npm run bench -- devcluster': 'a benchmark',
    };
    const run: Record<string, () => Promise<void>> = {
      'npm run paddock -- --help': async () => {
        const help = terminal('npm run paddock -- --help');
        expect(await help.exited).to.equal(0);
        expect(help.output()).to.match(/^Commands:\n {2}serve /m);
      },
      'npm run paddock -- serve --data-dir .paddock/demo --listen 127.0.0.1:7443 --dev-clusters 3': async () => {
        const output = await serverCommand(
          'npm run paddock -- serve --data-dir .paddock/demo --listen 127.0.0.1:7443 --dev-clusters 3',
          /^Stop: Ctrl-C$/m,
        );
        expect(output).to.match(/^Paddock is up: the gateway listens on https:\/\/127\.0\.0\.1:7443$/m);
        for (const member of ['member1', 'member2', 'member3'])
          expect(output).to.contain(`kubeconfig .paddock/demo/clusters/${member}.kubeconfig`);
      },
      'npm run paddock -- serve --request-log line': async () => {
        let created = '';
        const output = await serverCommand(
          'npm run paddock -- serve --request-log line',
          /^Stop: Ctrl-C$/m,
          async () => {
            const create = terminal('npm run paddock -- tenant create barbar');
            expect(await create.exited).to.equal(0);
            created = create.output();
          },
        );
        expect(created).to.match(/^tenant\/barbar created \(Active on member1\)$/m);
        expect(output).to.match(/^\S+Z admin - create \/apis\/tenant\.kubezoo\.io\/v1alpha1\/tenants 201 \d+ms$/m);
      },
      'npm run paddock -- tenant create barbar': async () => {
        // Run above, while `serve --request-log line` was up: it needs a running Paddock.
      },
      'npm run paddock -- devcluster --listen 127.0.0.1:6444 --data-dir .paddock/dc': async () => {
        const output = await serverCommand(
          'npm run paddock -- devcluster --listen 127.0.0.1:6444 --data-dir .paddock/dc',
          /^Stop: Ctrl-C$/m,
          async () => {
            const get = terminal(
              'KUBECONFIG=.paddock/dc/admin.kubeconfig KUBECACHEDIR=.paddock/kubectl-cache/dc kubectl get namespace default -o name',
            );
            expect(await get.exited).to.equal(0);
            expect(get.output()).to.equal('namespace/default\n');
          },
        );
        expect(output).to.match(/^devcluster devcluster is up: https:\/\/127\.0\.0\.1:6444$/m);
      },
    };
    const lines = commandsOf(blocks[3]).map(commandKey);
    for (const line of lines)
      expect([...Object.keys(NOT_RUN_HERE), ...Object.keys(run)], 'a Commands line this test does not know').to.include(
        line,
      );
    for (const line of lines) if (run[line]) await run[line]();
    expect(processesIn(project), 'processes still running in the project').to.deep.equal([]);
  });
});
