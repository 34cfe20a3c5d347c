import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { spawnProgram } from '../../processes/spawn-program.js';
import { waitUntil } from './eventually.js';
import { makeTempDir } from './temp-dir.js';

/** kubectl 1.32 itself. */
export const KUBECTL_1_32 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.32';
/**
 * The machine's kubectl on the PATH: the Cloud SDK dispatcher, which asks the server's /version
 * and runs the kubectl of its minor. The README's commands use it (test/docs), and one test checks
 * that it picks 1.32 against the gateway (tenant-proxy-e2e).
 */
export const KUBECTL_DISPATCHER = '/usr/bin/kubectl';
/**
 * The kubectl the tests run: 1.32 itself, which the dispatcher would pick, without the
 * dispatcher's own process and /version request (a fifth of the CPU of each of the suite's
 * ~1,800 runs). It runs as `kubectl` (argv[0]), as the dispatcher runs it: kubectl names its
 * field manager and `--record`'s change-cause after the name it was called by.
 */
export const KUBECTL = process.env.KUBECTL ?? KUBECTL_1_32;

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs kubectl against one kubeconfig with its own HOME and KUBECACHEDIR, so no discovery or
 * OpenAPI cache leaks between tests (the cache cannot be turned off: docs/design.md, "What kubectl needs").
 */
export class Kubectl {
  private constructor(
    readonly kubeconfig: string,
    private readonly home: string,
    private readonly removeHome: () => Promise<void>,
    private readonly binary: string,
  ) {}

  static async create(kubeconfig: string, binary = KUBECTL): Promise<Kubectl> {
    const { dir, remove } = await makeTempDir('kubectl-home');
    return new Kubectl(kubeconfig, dir, remove, binary);
  }

  get env(): NodeJS.ProcessEnv {
    return { PATH: process.env.PATH, HOME: this.home, KUBECACHEDIR: `${this.home}/cache`, KUBECONFIG: this.kubeconfig };
  }

  /** `env` adds to kubectl's environment (KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false and the like). */
  run(args: string[], input?: string, env: Record<string, string> = {}): Promise<KubectlResult> {
    return new Promise((resolve, reject) => {
      const child = spawnProgram(
        this.binary,
        args,
        { env: { ...this.env, ...env }, argv0: 'kubectl', stdio: 'pipe' },
        reject,
      );
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      // A kubectl that could not start takes no input.
      child.stdin!.on('error', () => {});
      child.stdin!.end(input ?? '');
    });
  }

  /** Runs and fails the test with kubectl's own words unless it exits 0. */
  async ok(args: string[], input?: string): Promise<string> {
    const result = await this.run(args, input);
    if (result.code !== 0)
      throw new Error(`kubectl ${args.join(' ')} exited ${result.code}:\n${result.stderr}${result.stdout}`);
    return result.stdout;
  }

  /** A long-running kubectl (get -w, logs -f, port-forward); its output accumulates in `output()`. */
  start(
    args: string[],
    env: Record<string, string> = {},
  ): {
    child: ChildProcess;
    output: () => string;
    waitFor: (pattern: RegExp, ms?: number) => Promise<void>;
    stop: () => Promise<void>;
  } {
    let startError: Error | undefined;
    const child = spawnProgram(
      this.binary,
      args,
      { env: { ...this.env, ...env }, argv0: 'kubectl', stdio: ['ignore', 'pipe', 'pipe'] },
      (err) => (startError = err),
    );
    // A kubectl that could not start only closes.
    const exited = once(child, 'close');
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const waitFor = async (pattern: RegExp, ms = 15000) => {
      await waitUntil(
        `kubectl ${args.join(' ')} prints ${pattern}`,
        () => {
          if (startError) throw startError;
          if (pattern.test(output)) return true;
          if (child.exitCode !== null)
            throw new Error(
              `kubectl ${args.join(' ')} exited ${child.exitCode} before printing ${pattern}:\n${output}`,
            );
          return false;
        },
        {
          timeout: ms,
          interval: 25,
          message: () => `kubectl ${args.join(' ')} did not print ${pattern} within ${ms}ms; it printed:\n${output}`,
        },
      );
    };
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
    };
    return { child, output: () => output, waitFor, stop };
  }

  async dispose(): Promise<void> {
    await this.removeHome();
  }
}
