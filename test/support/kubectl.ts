import { spawn, type ChildProcess } from 'node:child_process';
import { makeTempDir } from './temp-dir.js';

/** The real kubectl: the Cloud SDK dispatcher, which picks kubectl 1.32 from the server's /version. */
export const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs kubectl against one kubeconfig with its own HOME and KUBECACHEDIR, so no discovery or
 * OpenAPI cache leaks between tests (KUBECTL.md: the cache cannot be turned off).
 */
export class Kubectl {
  private constructor(
    readonly kubeconfig: string,
    private readonly home: string,
    private readonly removeHome: () => Promise<void>,
  ) {}

  static async create(kubeconfig: string): Promise<Kubectl> {
    const { dir, remove } = await makeTempDir('kubectl-home');
    return new Kubectl(kubeconfig, dir, remove);
  }

  get env(): NodeJS.ProcessEnv {
    return { PATH: process.env.PATH, HOME: this.home, KUBECACHEDIR: `${this.home}/cache`, KUBECONFIG: this.kubeconfig };
  }

  run(args: string[], input?: string): Promise<KubectlResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(KUBECTL, args, { env: this.env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      child.stdin.end(input ?? '');
    });
  }

  /** Runs and fails the test with kubectl's own words unless it exits 0. */
  async ok(args: string[], input?: string): Promise<string> {
    const result = await this.run(args, input);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${result.code}:\n${result.stderr}${result.stdout}`);
    return result.stdout;
  }

  /** A long-running kubectl (get -w); its output accumulates in `output()`. */
  start(args: string[]): { child: ChildProcess; output: () => string; waitFor: (pattern: RegExp, ms?: number) => Promise<void> } {
    const child = spawn(KUBECTL, args, { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const waitFor = async (pattern: RegExp, ms = 15000) => {
      const deadline = Date.now() + ms;
      while (!pattern.test(output)) {
        if (Date.now() > deadline) throw new Error(`kubectl ${args.join(' ')} did not print ${pattern} within ${ms}ms; it printed:\n${output}`);
        if (child.exitCode !== null) throw new Error(`kubectl ${args.join(' ')} exited ${child.exitCode} before printing ${pattern}:\n${output}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    return { child, output: () => output, waitFor };
  }

  async dispose(): Promise<void> {
    await this.removeHome();
  }
}
