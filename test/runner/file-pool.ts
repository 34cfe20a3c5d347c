/**
 * Runs test files side by side in child processes (test-process.js), `jobs` at a time, or more while
 * cores stand idle (idle-cores.ts): each file of the stage, e2e and jobs tiers in a process of its
 * own, unit files in batches (a process per file cost unit files four times their own CPU time).
 * A process's output is held and printed whole when it ends.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileOutcome, Outcome } from './mocha-run.js';
import type { Tier } from './tiers.js';
import { IdleCores, startAnother } from './idle-cores.js';

const TEST_PROCESS = fileURLToPath(new URL('./test-process.js', import.meta.url));

export interface TestFile {
  file: string;
  tier: Tier;
}

export interface FileResult extends TestFile {
  outcome: Outcome;
  /** A file alone: from the start of its process to its end; in a batch: from its first suite's start to its last one's end. */
  seconds: number;
  /** What its process said of its failures (mocha's failure list, or the end of stderr), for a failed file. */
  failureText?: string;
  /**
   * CPU time of its process and the programs it waited for (cpu-seconds.ts); a batch's is shared
   * among its files by their seconds. Undefined where it cannot be read.
   */
  cpuSeconds?: number;
}

/** What a test process writes to its report file. */
export interface ProcessReport {
  outcomes: Record<string, FileOutcome>;
  cpuSeconds?: number;
}

interface PoolOptions {
  /** The least files at once (while enough wait), and the most, started while cores stand idle. */
  jobs: number;
  maxJobs: number;
  grep?: string;
  /** The parent's node flags (--enable-source-maps), passed on. */
  execArgv: string[];
}

/** Files of one tier that run in one process, in this order. */
export type Batch = TestFile[];

let reportCount = 0;

interface ProcessEnd {
  /** Each file's outcome and the CPU time, or undefined when the process ended without its report. */
  report?: ProcessReport;
  seconds: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  failureText: string;
}

/** Lines of a failed process's output repeated under the summary: CI may show a run's end only. */
const FAILURE_LINES = 80;

/**
 * Mocha's failure list (from its "N failing" line) and the end of stderr: what a reader of the
 * run's last lines needs to know why a file failed.
 */
function failureTextOf(stdout: string, stderr: string): string {
  const failing = stdout.search(/^ {2}\d+ failing$/m);
  const tail = (text: string) => text.trimEnd().split('\n').slice(-FAILURE_LINES).join('\n');
  return [failing >= 0 ? tail(stdout.slice(failing)) : '', tail(stderr)].filter(Boolean).join('\n');
}

/** Runs a batch in a test process; prints its output whole when it ends. */
function runProcess(batch: Batch, reports: string, options: PoolOptions): Promise<ProcessEnd> {
  const report = path.join(reports, `${reportCount++}.json`);
  const started = Date.now();
  const files = batch.map(({ file }) => file);
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [...options.execArgv, TEST_PROCESS, batch[0].tier, options.grep ?? '', ...files],
      // NO_COLOR: plain text, as CI reads it (picocolors, behind mocha's ✔, colours whenever CI is set).
      { env: { ...process.env, PADDOCK_TEST_REPORT: report, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('close', (code, signal) => {
      const seconds = (Date.now() - started) / 1000;
      const names = files.map((file) => path.relative(process.cwd(), file)).join(', ');
      process.stdout.write(`\n=== ${names} (${batch[0].tier}, ${seconds.toFixed(1)} s)\n`);
      process.stdout.write(Buffer.concat(out));
      process.stderr.write(Buffer.concat(err));
      let written: ProcessReport | undefined;
      try {
        written = JSON.parse(readFileSync(report, 'utf8')) as ProcessReport;
      } catch {
        // No report: the process died before the run ended; whatever it did not finish is unknown.
      }
      resolve({
        report: written,
        seconds,
        code,
        signal,
        failureText: failureTextOf(String(Buffer.concat(out)), String(Buffer.concat(err))),
      });
    });
  });
}

/** Runs a batch; one of several files whose process ends without a report runs again file by file. */
async function runBatch(batch: Batch, reports: string, options: PoolOptions): Promise<FileResult[]> {
  const { report, seconds, code, signal, failureText } = await runProcess(batch, reports, options);
  if (report) {
    const { outcomes, cpuSeconds } = report;
    const ownSeconds = batch.reduce((sum, { file }) => sum + outcomes[file].seconds, 0);
    return batch.map(({ file, tier }) => {
      const { seconds: own, ...outcome } = outcomes[file];
      const share = batch.length === 1 ? 1 : ownSeconds > 0 ? own / ownSeconds : 1 / batch.length;
      return {
        file,
        tier,
        outcome,
        seconds: batch.length === 1 ? seconds : own,
        failureText,
        cpuSeconds: cpuSeconds === undefined ? undefined : cpuSeconds * share,
      };
    });
  }
  const names = batch.map(({ file }) => path.relative(process.cwd(), file));
  if (batch.length === 1) {
    const ended = `${names[0]}: the test process ended without a report (exit ${code}, signal ${signal})`;
    process.stderr.write(`\n${ended}\n`);
    return [
      { ...batch[0], outcome: { passed: 0, failed: 1, pending: [] }, seconds, failureText: `${failureText}\n${ended}` },
    ];
  }
  process.stderr.write(`\nthe process of ${names.join(', ')} ended without a report: they run again one at a time\n`);
  const results: FileResult[] = [];
  for (const file of batch) results.push(...(await runBatch([file], reports, options)));
  return results;
}

/**
 * How often the pool reads the idle cores, and so how often it may start a file beyond its least:
 * a reading of 2 s, not a moment's pause of busy files, says whether a machine has room.
 */
const READ_IDLE_MS = 2000;

/**
 * Runs every batch and answers the results of their files, in no particular order: `jobs` at a
 * time at least, and up to `maxJobs` while cores stand idle (idle-cores.ts).
 */
export async function runFilesInParallel(batches: Batch[], options: PoolOptions): Promise<FileResult[]> {
  const reports = mkdtempSync(path.join(os.tmpdir(), 'paddock-test-reports-'));
  const results: FileResult[] = [];
  const idle = new IdleCores();
  let next = 0;
  let running = 0;
  let lastStart = 0;
  let mostAtOnce = 0;
  let timer: NodeJS.Timeout | undefined;
  const started: Promise<void>[] = [];
  const failures: unknown[] = [];
  try {
    await new Promise<void>((resolve) => {
      const start = () => {
        const batch = batches[next++];
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        lastStart = Date.now();
        started.push(
          runBatch(batch, reports, options)
            .then(
              (ran) => void results.push(...ran),
              (err: unknown) => void failures.push(err),
            )
            .finally(() => {
              running--;
              fill();
            }),
        );
      };
      const state = (idleCores: number | undefined) => ({
        running,
        waiting: batches.length - next,
        jobs: Math.max(1, options.jobs),
        maxJobs: Math.max(1, options.jobs, options.maxJobs),
        idleCores,
        sinceStartMs: Date.now() - lastStart,
      });
      const fill = () => {
        while (startAnother(state(undefined))) start();
        if (next === batches.length && running === 0) resolve();
      };
      timer = setInterval(() => {
        if (startAnother(state(idle.read()))) start();
      }, READ_IDLE_MS);
      fill();
    });
    await Promise.all(started);
    if (failures.length) throw failures[0];
    if (mostAtOnce > options.jobs)
      process.stdout.write(`\nfiles at once: ${options.jobs}, up to ${mostAtOnce} while cores stood idle\n`);
  } finally {
    clearInterval(timer);
    rmSync(reports, { recursive: true, force: true });
  }
  return results;
}
