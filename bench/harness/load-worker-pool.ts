/**
 * Load worker processes (load-worker.ts) kept between runs, each running one spec at a time: a
 * process a run cost 0.3 s of CPU to start, most of a quick run's. An idle worker holds nothing
 * of the benchmark process (its handles are unreferenced), so that process ends when its work
 * does, and each worker then at the end of its stdin.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { spawnProgram } from '../../processes/spawn-program.js';
import { LOAD_WORKER } from './locations.js';

/** A cluster-wide list is hundreds of megabytes; checking its item count parses it once. */
const NODE_ARGS = ['--max-old-space-size=8192'];

class LoadWorkerProcess {
  private readonly child: ChildProcess;
  private stderr = '';
  private ended: Error | undefined;
  private waiting: { resolve: (line: string) => void; reject: (err: Error) => void } | undefined;

  constructor() {
    this.child = spawnProgram(process.execPath, [...NODE_ARGS, LOAD_WORKER], { stdio: 'pipe' }, (err) =>
      this.fail(err),
    );
    createInterface({ input: this.child.stdout!, crlfDelay: Infinity }).on('line', (line) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      this.holdOpen(false);
      waiting?.resolve(line);
    });
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.child.once('close', (code) => this.fail(new Error(`load worker exited with ${code}: ${this.stderr.trim()}`)));
    this.holdOpen(false);
  }

  /** False once its process has ended or failed. */
  get alive(): boolean {
    return this.ended === undefined;
  }

  /** Its run of `spec`: one JSON line. */
  run(spec: unknown): Promise<string> {
    if (this.ended) return Promise.reject(this.ended);
    this.holdOpen(true);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.child.stdin!.write(`${JSON.stringify(spec)}\n`);
    });
  }

  private fail(err: Error): void {
    this.ended ??= err;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(this.ended);
  }

  /** Whether the worker keeps the benchmark process running: while it runs a spec only. */
  private holdOpen(hold: boolean): void {
    // The pipes are sockets, which ref and unref as the process does.
    const handles = [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as unknown as {
      ref(): void;
      unref(): void;
    }[];
    for (const handle of handles) {
      if (hold) handle.ref();
      else handle.unref();
    }
  }
}

const idle: LoadWorkerProcess[] = [];

/** Runs `spec` in an idle load worker, or a new one; a worker that failed or ended is not used again. */
export async function runInLoadWorker(spec: unknown): Promise<string> {
  let worker = idle.pop();
  while (worker && !worker.alive) worker = idle.pop();
  worker ??= new LoadWorkerProcess();
  const line = await worker.run(spec);
  idle.push(worker);
  return line;
}
