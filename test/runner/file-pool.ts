/**
 * Runs test files side by side, each in a child process of its own (one-file.js), `jobs` at a
 * time. Each file's output is held and printed whole when the file ends.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Outcome } from './mocha-run.js';
import type { Tier } from './tiers.js';

const ONE_FILE = fileURLToPath(new URL('./test-process.js', import.meta.url));

export interface TestFile {
  file: string;
  tier: Tier;
}

export interface FileResult extends TestFile {
  outcome: Outcome;
  /** From the start of its process to its end. */
  seconds: number;
}

interface PoolOptions {
  jobs: number;
  grep?: string;
  /** The parent's node flags (--enable-source-maps), passed on. */
  execArgv: string[];
}

function runFile({ file, tier }: TestFile, index: number, reports: string, options: PoolOptions): Promise<FileResult> {
  const report = path.join(reports, `${index}.json`);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...options.execArgv, ONE_FILE, file, tier, options.grep ?? ''], {
      env: { ...process.env, PADDOCK_TEST_REPORT: report },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('close', (code, signal) => {
      let outcome: Outcome;
      let trailer = '';
      try {
        outcome = JSON.parse(readFileSync(report, 'utf8')) as Outcome;
      } catch {
        // No report: the process died before the run ended; whatever it did not finish is unknown.
        outcome = { passed: 0, failed: 1, pending: [] };
        trailer = `\n${file}: the test process ended without a report (exit ${code}, signal ${signal})\n`;
      }
      const seconds = (Date.now() - started) / 1000;
      process.stdout.write(`\n=== ${path.relative(process.cwd(), file)} (${tier}, ${seconds.toFixed(1)} s)\n`);
      process.stdout.write(Buffer.concat(out));
      process.stderr.write(Buffer.concat(err));
      if (trailer) process.stderr.write(trailer);
      resolve({ file, tier, outcome, seconds });
    });
  });
}

/** Runs every file and answers the results in the order the files were given. */
export async function runFilesInParallel(files: TestFile[], options: PoolOptions): Promise<FileResult[]> {
  const reports = mkdtempSync(path.join(os.tmpdir(), 'paddock-test-reports-'));
  const results: FileResult[] = new Array<FileResult>(files.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const index = next++;
      results[index] = await runFile(files[index], index, reports, options);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.jobs) }, worker));
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
  return results;
}
