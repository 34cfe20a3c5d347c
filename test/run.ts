/**
 * Runs the test files under dist/test with mocha and ends with the one line CI reads:
 * `N passed, N failed`. Exits non-zero when anything failed or no test ran.
 *
 * `node dist/test/run.js [--tier unit|stage|e2e|jobs]... [file-substring] [title-grep]`: every
 * file belongs to one tier (test/tiers.ts names the stage, e2e and jobs files; any other is unit);
 * without --tier every tier runs. Unit files run under the unit guard (runner/unit-guard.ts): a
 * test that starts a process or opens a socket fails.
 *
 * Files run in parallel in processes of their own (PADDOCK_TEST_JOBS at a time; by default 3, as
 * most of a test's time is spent waiting on the servers it started, so 2 cores keep 3 files busy,
 * and up to 6 while cores stand idle: runner/idle-cores.ts),
 * unit files in a few batches, the longest first (runner/timings.ts). A process's output is
 * printed whole when it ends, so files do not interleave; a batch whose process dies runs again
 * one file at a time. The summary gives each tier's counts and the slowest files.
 *
 * A run that did not run everything must not read as a success:
 * - a `.only` anywhere fails the run before any test runs (mocha's forbidOnly): `0 passed, 1 failed`;
 * - a pending test (an `it` without a body, `.skip`, `this.skip()`) is listed on a line of its own
 *   before the summary and counted in "failed" there, so the exit is non-zero;
 * - a failing `before`/`after` hook is a failure (mocha reports hooks through its 'fail' event);
 * - a test file that cannot be loaded fails the run as `.only` does, and so does a tier manifest
 *   that names a file that is not there;
 * - a file whose process ends without a report (a crash, a kill) is a failure.
 *
 * PADDOCK_TEST_ROOT (a directory) replaces dist/test as the place test files are looked for: the
 * runner's own test (test/runner/run.test.ts) points it at a directory of fixture files.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runFilesInParallel, type FileResult, type TestFile } from './runner/file-pool.js';
import { loadFailure, type Outcome } from './runner/mocha-run.js';
import { isTier, manifestName, tiersOf, TIERS, type Tier } from './runner/tiers.js';
import { recordTimings, schedule } from './runner/timings.js';

const root = process.env.PADDOCK_TEST_ROOT
  ? path.resolve(process.env.PADDOCK_TEST_ROOT)
  : path.dirname(fileURLToPath(import.meta.url));
/** How many of the slowest files the summary lists. */
const SLOWEST = 15;

function testFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) return testFiles(full);
      return name.endsWith('.test.js') ? [full] : [];
    });
}

/**
 * CPU seconds with their unit, `? CPU-s` when not known: on 2 busy cores the suite's length is
 * its CPU time over two, and a file's wall time says as much about the files beside it.
 */
function cpuText(seconds: number | undefined, digits = 1): string {
  return `${seconds === undefined ? '?' : seconds.toFixed(digits)} CPU-s`;
}

/** The CPU time of `results` together, undefined if any is unknown. */
function cpuOf(results: FileResult[]): number | undefined {
  let sum = 0;
  for (const { cpuSeconds } of results) {
    if (cpuSeconds === undefined) return undefined;
    sum += cpuSeconds;
  }
  return sum;
}

/**
 * Writes the summary, `N passed, N failed` last, and exits once it is out, as mocha's --exit does:
 * a client library's reconnect timer left behind (etcd3 retries a watch for up to 30 s) must not
 * hold CI past the summary.
 */
function finish({ passed, failed, pending }: Outcome, results: FileResult[] = []): void {
  let text = '\n';
  if (results.length > 1) {
    text += `slowest files:\n`;
    for (const r of [...results].sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST))
      text += `  ${r.seconds.toFixed(1).padStart(6)} s  ${cpuText(r.cpuSeconds).padStart(11)}  ${manifestName(root, r.file)} (${r.tier})\n`;
  }
  for (const tier of TIERS) {
    const ran = results.filter((r) => r.tier === tier);
    if (ran.length === 0) continue;
    const count = (key: 'passed' | 'failed') => ran.reduce((sum, r) => sum + r.outcome[key], 0);
    const pendingCount = ran.reduce((sum, r) => sum + r.outcome.pending.length, 0);
    const seconds = ran.reduce((sum, r) => sum + r.seconds, 0);
    text +=
      `${tier.padEnd(5)}  ${count('passed')} passed, ${count('failed') + pendingCount} failed ` +
      `in ${ran.length} file(s), ${seconds.toFixed(0)} s of file time, ${cpuText(cpuOf(ran), 0)}\n`;
  }
  if (results.length > 1)
    text += `CPU time of the test processes and the programs they ran: ${cpuText(cpuOf(results), 0)}\n`;
  const failedFiles = results.filter((r) => r.outcome.failed > 0);
  for (const { file, failureText } of failedFiles)
    text += `--- why ${path.relative(process.cwd(), file)} failed:\n${failureText ?? ''}\n`;
  if (failedFiles.length > 0) {
    text += `failures in ${failedFiles.length} file(s) (their output above):\n`;
    for (const { file } of failedFiles) text += `  ${path.relative(process.cwd(), file)}\n`;
  }
  if (pending.length > 0) {
    text += `${pending.length} pending (counted as failed below: a test that did not run is not a pass)\n`;
    for (const title of pending) text += `  pending: ${title}\n`;
  }
  const failures = failed + pending.length;
  text += `${passed} passed, ${failures} failed\n`;
  process.stdout.write(text, () => process.exit(failures > 0 || passed === 0 ? 1 : 0));
}

/** A run refused before any test ran. */
function refuse(why: string): void {
  process.stderr.write(`\n${why}\n`);
  finish({ passed: 0, failed: 1, pending: [] });
}

/** `--tier` (repeated or comma-separated, default all), then the file filter and the title grep. */
function parseArguments(): { tiers: Tier[]; filter?: string; grep?: string } | { problem: string } {
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: { tier: { type: 'string', multiple: true } } });
  } catch (err) {
    return { problem: (err as Error).message };
  }
  const named = (parsed.values.tier ?? []).flatMap((value) => value.split(','));
  const unknown = named.filter((name) => !isTier(name));
  if (unknown.length > 0) return { problem: `no tier ${unknown.join(', ')}: the tiers are ${TIERS.join(', ')}` };
  const [filter, grep] = parsed.positionals;
  return { tiers: named.length > 0 ? named.filter(isTier) : [...TIERS], filter, grep };
}

const args = parseArguments();
const all = testFiles(root);
const tiers = await tiersOf(root, all);
if ('problem' in args)
  refuse(`${args.problem}\nusage: node dist/test/run.js [--tier ${TIERS.join('|')}]... [file-substring] [title-grep]`);
else if ('problem' in tiers) refuse(tiers.problem);
else {
  const { filter, grep } = args;
  // Matched against the path under the test directory: a checkout whose own path holds the filter must not match every file.
  const files: TestFile[] = all
    .filter((file) => !filter || path.relative(root, file).includes(filter))
    .map((file) => ({ file, tier: tiers.tierOf(file) }))
    .filter(({ tier }) => args.tiers.includes(tier));
  await runAll(files, grep);
}

/** Checks that every file loads and none holds a `.only`, then runs them side by side. */
async function runAll(files: TestFile[], grep: string | undefined): Promise<void> {
  if (files.length > 1) {
    const refused = await loadFailure(files.map(({ file }) => file));
    if (refused !== undefined) return refuse(refused);
  }
  // PADDOCK_TEST_JOBS fixes how many files run at once; else 3, and up to 6 while cores stand idle.
  const fixed = process.env.PADDOCK_TEST_JOBS ? Number(process.env.PADDOCK_TEST_JOBS) : undefined;
  const jobs = fixed ?? 3;
  const ran = await runFilesInParallel(schedule(root, files, jobs), {
    jobs,
    maxJobs: fixed ?? 6,
    grep,
    execArgv: process.execArgv,
  });
  // Reported in the order of the files' paths, whichever order they ran in.
  const position = new Map(files.map(({ file }, index) => [file, index]));
  const results = ran.sort((a, b) => position.get(a.file)! - position.get(b.file)!);
  // A run narrowed to some tests says nothing of how long a whole file takes.
  if (!grep) recordTimings(root, results);
  const total: Outcome = { passed: 0, failed: 0, pending: [] };
  for (const { outcome } of results) {
    total.passed += outcome.passed;
    total.failed += outcome.failed;
    total.pending.push(...outcome.pending);
  }
  finish(total, results);
}
